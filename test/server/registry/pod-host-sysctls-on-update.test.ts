/**
 * Updates of pods and Deployments whose sysctls are of a namespace the pod shares with its node,
 * as kube-apiserver 1.34.4 answered them (fixtures/pod-host-sysctls-on-update.json: the object
 * stored, the one the update sent, and the answer). A stored object that already sets such a
 * sysctl was written by a server without the rule (`storedThrough: capstan`, before it had it):
 * its updates may keep any, even add others; an object stored without one may not gain one, by
 * a new sysctl or by a host namespace turned on.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject } from '../../../api/objects';
import { created, typeOf, updated } from './gated-fields/write-path';

interface Case {
  readonly group: string;
  readonly resource: string;
  readonly object: KubeObject;
  /** Which server stored `object`: capstan (without the rule) for objects the rule now refuses. */
  readonly storedThrough: 'reference' | 'capstan';
  /** The object as the update sent it: its annotations and spec replace the stored ones. */
  readonly update: KubeObject;
  readonly code: number;
  readonly causes: readonly string[];
}

const recorded = Object.entries(
  JSON.parse(readFileSync(join(__dirname, 'fixtures', 'pod-host-sysctls-on-update.json'), 'utf8')) as Record<
    string,
    Case
  >,
);

test.each(recorded)('%s', (_name, { group, resource, object, storedThrough, update, code, causes }) => {
  const type = typeOf(group, resource);
  const stored = created(type, { ...object, metadata: { ...object.metadata, namespace: 'default' } }, {});
  // What the reference would not have stored is refused on create now, and kept as it was written.
  if (storedThrough === 'reference') expect(stored.errors).toEqual([]);
  else expect(stored.errors).not.toEqual([]);
  const written = updated(
    type,
    stored.object,
    (next) => {
      next.metadata.annotations = structuredClone(update.metadata.annotations);
      next.spec = structuredClone(update.spec);
    },
    {},
  );
  expect(written.errors.map((error) => error.split('\n')[0])).toEqual(code < 300 ? [] : causes);
});
