/**
 * Namespace deletion, as the reference's namespace controller does it: once a namespace is
 * terminating, delete every namespaced object in it (each delete honouring finalizers and
 * propagation), wait until nothing is left, then drop the `kubernetes` entry of
 * `spec.finalizers` (the finalize step) and remove the namespace.
 */
import type { KubeObject } from '../../api/objects';
import { EVERYTHING } from '../../storage/objects/types';
import type { ResourceType } from '../registry/types';
import { startInformer } from '../client/informer';
import type { ObjectOperations } from '../client/operations';
import { startWorkQueue } from '../client/work-queue';

export const NAMESPACE_FINALIZER = 'kubernetes';
/** How soon a terminating namespace whose content is still being deleted is looked at again. */
const CONTENT_RECHECK_MS = 1000;
/** The reference's namespace controller caps its retries at a minute. */
const NAMESPACE_MAX_BACKOFF_MS = 60_000;

function namespaceType(operations: ObjectOperations): ResourceType {
  const type = operations.registry.find({ group: '', version: 'v1' }, 'namespaces');
  if (!type) throw new Error('namespaces are not served');
  return type;
}

/** Deletes what is left in the namespace; answers how many objects still exist. */
async function deleteContent(operations: ObjectOperations, namespace: string): Promise<number> {
  let remaining = 0;
  for (const type of operations.registry.all()) {
    if (!type.namespaced || type.virtual || !type.verbs.includes('delete')) continue;
    const { items } = await operations.storageFor(type).list({ namespace }, { predicate: EVERYTHING });
    remaining += items.length;
    for (const item of items) {
      if (item.metadata.deletionTimestamp) continue;
      await operations.deleteObject(
        type,
        { namespace, name: String(item.metadata.name) },
        { propagationPolicy: 'Background' },
      );
    }
  }
  return remaining;
}

export async function finalizeNamespace(operations: ObjectOperations, namespace: KubeObject): Promise<void> {
  const type = namespaceType(operations);
  const name = String(namespace.metadata.name);
  await operations.updateObject(
    type,
    { name },
    (object) => {
      const spec = (object.spec ?? {}) as { finalizers?: string[] };
      spec.finalizers = (spec.finalizers ?? []).filter((finalizer) => finalizer !== NAMESPACE_FINALIZER);
      object.spec = spec;
    },
    'finalize',
  );
  await operations.deleteObject(type, { name }, { uid: namespace.metadata.uid });
}

export function startNamespaceController(operations: ObjectOperations, stop: AbortSignal): void {
  const type = namespaceType(operations);
  const queue = startWorkQueue<string>({
    stop,
    backoff: { maxMs: NAMESPACE_MAX_BACKOFF_MS },
    // Failures retry with the queue's backoff; content still going is looked at again in a second.
    handle: async (name) => {
      const namespace = informer.objects.get(name);
      if (!namespace?.metadata.deletionTimestamp) return;
      const remaining = await deleteContent(operations, name);
      if (remaining === 0) await finalizeNamespace(operations, namespace);
      else queue.addAfter(name, CONTENT_RECHECK_MS);
    },
  });
  const informer = startInformer(operations.storageFor(type), {
    onUpsert: (object) => {
      if (object.metadata.deletionTimestamp) queue.add(String(object.metadata.name));
    },
  });
  stop.addEventListener('abort', () => informer.stop(), { once: true });
}
