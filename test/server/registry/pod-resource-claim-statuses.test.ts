/**
 * The claims a pod's status reports as made for its resource claims, judged on a status write as
 * kube-apiserver 1.34.4 answered the same writes (fixtures/recorded-pod-resource-claim-statuses.json:
 * the pod created, the status then written, and the answer): each entry names one of the pod's
 * claims, once, and a claim name that is a DNS subdomain, every error at the entry's `name`.
 * fixtures/recorded-pod-extended-resource-claim-status.json holds the claim made for the
 * extended resources the containers request (DRAExtendedResource on, as the reference ran):
 * mappings present, each from a container and a resource it requests, each pair once, with a
 * request name (its errors at the status's `requestName`, unindexed), and the claim's name.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject } from '../../../api/objects';
import { created, typeOf, updated } from './gated-fields/write-path';

interface Case {
  /** The feature gates the reference ran with, where they differ from its defaults. */
  readonly gates?: Readonly<Record<string, boolean>>;
  readonly object: KubeObject;
  readonly status: Record<string, unknown>;
  readonly code: number;
  readonly causes: readonly string[];
}

const recorded = [
  'recorded-pod-resource-claim-statuses.json',
  'recorded-pod-extended-resource-claim-status.json',
].flatMap((fixture) =>
  Object.entries(JSON.parse(readFileSync(join(__dirname, 'fixtures', fixture), 'utf8')) as Record<string, Case>),
);

test.each(recorded)('%s', (_name, { gates = {}, object, status, code, causes }) => {
  const pods = typeOf('', 'pods');
  const stored = created(pods, { ...object, metadata: { ...object.metadata, namespace: 'default' } }, gates);
  expect(stored.errors).toEqual([]);
  const written = updated(pods, stored.object, (next) => (next.status = structuredClone(status)), gates, 'status');
  expect(written.errors).toEqual(code < 300 ? [] : causes);
});
