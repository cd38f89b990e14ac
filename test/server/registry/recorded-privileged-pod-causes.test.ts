/**
 * Pods and templates refused under a cluster policy that allows privileged containers
 * (`--allow-privileged=true`), with the causes kube-apiserver 1.34.4 gave under the same flag
 * (fixtures/recorded-pod-privileged-security-context.json), so that the policy's own refusals
 * do not hide the rules beside them: a container kept from gaining privileges yet privileged,
 * and Windows hostProcess containers (the pod's setting and a container's agree, all of the
 * pod's containers or none are such, and they run on the host's network; a Linux pod has no
 * Windows options at all).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject } from '../../../api/objects';
import { setClusterPolicy } from '../../../server/validation/cluster-policy';
import { created, typeOf } from './gated-fields/write-path';

interface Case {
  readonly name: string;
  readonly group: string;
  readonly resource: string;
  readonly object: KubeObject;
  /** `<field>: <message>`, as the reference's Status listed them. */
  readonly causes: readonly string[];
}

const CASES = JSON.parse(
  readFileSync(join(__dirname, 'fixtures', 'recorded-pod-privileged-security-context.json'), 'utf8'),
) as Case[];

// The policy is the process's, as the reference's is: this file's module registry is its own.
beforeAll(() => setClusterPolicy({ allowPrivileged: true }));
afterAll(() => setClusterPolicy({ allowPrivileged: false }));

test.each(CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
  const object = { ...c.object, metadata: { ...c.object.metadata, namespace: 'default' } } as KubeObject;
  expect(created(typeOf(c.group, c.resource), object, {}).errors).toEqual(c.causes);
});
