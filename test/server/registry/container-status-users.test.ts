/**
 * The users a pod's container statuses report, judged on a status write against the OS the pod
 * declares, as kube-apiserver 1.34.4 answered the same writes
 * (fixtures/recorded-container-status-users.json: the pod created, the status then written, and
 * the answer): a Linux pod's (or one declaring no OS) ids within 0 and 2147483647, regular
 * containers' statuses before init containers'; a Windows pod's statuses with no Linux user.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject } from '../../../api/objects';
import { created, typeOf, updated } from './gated-fields/write-path';

interface Case {
  readonly object: KubeObject;
  readonly status: Record<string, unknown>;
  readonly code: number;
  readonly causes: readonly string[];
}

const recorded = Object.entries(
  JSON.parse(readFileSync(join(__dirname, 'fixtures', 'recorded-container-status-users.json'), 'utf8')) as Record<
    string,
    Case
  >,
);

test.each(recorded)('%s', (_name, { object, status, code, causes }) => {
  const pods = typeOf('', 'pods');
  const stored = created(pods, { ...object, metadata: { ...object.metadata, namespace: 'default' } }, {});
  expect(stored.errors).toEqual([]);
  const written = updated(pods, stored.object, (next) => (next.status = structuredClone(status)), {}, 'status');
  expect(written.errors).toEqual(code < 300 ? [] : causes);
});
