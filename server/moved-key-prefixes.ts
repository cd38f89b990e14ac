/**
 * Key prefixes capstan used before it kept every resource where the reference keeps it:
 * CustomResourceDefinitions and APIServices lived under `/registry/<resource>/`, the
 * reference's apiextensions server and aggregator keep them under `/registry/<group>/<resource>/`.
 * At start each object still under an old prefix is moved (created at its new key unless one
 * is there, then deleted at the revision it was read at), so a store written by an older
 * capstan keeps its CRDs and APIServices. Replicas starting together may both move a key:
 * the create and the conditional delete make that harmless.
 */
import type { RevisionedStore } from '../storage/store';

const MOVED = [
  { from: 'customresourcedefinitions', to: 'apiextensions.k8s.io/customresourcedefinitions' },
  { from: 'apiservices', to: 'apiregistration.k8s.io/apiservices' },
] as const;

/** Moves the objects under the old prefixes within `etcdPrefix`; answers how many moved. */
export async function moveOldKeyPrefixes(store: RevisionedStore, etcdPrefix: string): Promise<number> {
  const root = etcdPrefix.replace(/\/+$/, '');
  let moved = 0;
  for (const { from, to } of MOVED) {
    const oldPrefix = `${root}/${from}/`;
    const { kvs } = await store.range({ prefix: oldPrefix });
    for (const kv of kvs) {
      await store.create(`${root}/${to}/${kv.key.slice(oldPrefix.length)}`, kv.value);
      if ((await store.delete(kv.key, kv.modRevision)).succeeded) moved++;
    }
  }
  return moved;
}
