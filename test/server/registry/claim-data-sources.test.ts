/**
 * A PersistentVolumeClaim's dataSource and dataSourceRef against what kube-apiserver 1.34.4
 * answered (fixtures/claim-data-sources.json: the spec members a claim of one mode and 1Gi was
 * created with, the members an update then changed, null where it removed one, the feature
 * gates, and the answer's causes, each cut at its first line). Each names a kind and a name,
 * a core kind only as a claim, a group as a DNS subdomain; both forms name the same thing (an
 * empty group is not an absent one), or the newer one names another namespace and stands alone.
 * An update checks the spec twice, as the reference does, and spares the group of a claim whose
 * stored sources named one. A source of a core kind is answered with `"apiGroup": null`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject } from '../../../api/objects';
import { created, typeOf } from './gated-fields/write-path';
import { recordedUpdateCauses } from './recorded-update';

interface Case {
  readonly gates: Record<string, boolean>;
  readonly stored: Record<string, unknown>;
  readonly changed?: Record<string, unknown>;
  readonly code: number;
  readonly causes: readonly string[];
  /** The sources the reference answered an accepted create with. */
  readonly answered?: Record<string, unknown>;
}

const recorded: Readonly<Record<string, Case>> = JSON.parse(
  readFileSync(join(__dirname, 'fixtures', 'claim-data-sources.json'), 'utf8'),
);

const claims = typeOf('', 'persistentvolumeclaims');

function claim(members: Record<string, unknown>): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'c', namespace: 'default' },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...structuredClone(members) },
  } as KubeObject;
}

test.each(Object.entries(recorded))('%s', (_id, { gates, stored, changed, code, causes, answered }) => {
  if (changed !== undefined) {
    expect(recordedUpdateCauses(claims, claim(stored), { changed }, gates)).toEqual(code < 300 ? [] : causes);
    return;
  }
  const made = created(claims, claim(stored), gates);
  expect(made.errors.map((error) => error.split('\n')[0])).toEqual(code < 300 ? [] : causes);
  if (answered === undefined) return;
  const { dataSource, dataSourceRef } = made.object.spec as Record<string, unknown>;
  expect({ dataSource, dataSourceRef }).toEqual(answered);
});
