/**
 * A new Pod's container AppArmor annotations become its containers' `appArmorProfile` fields,
 * unless the pod-level profile already says the same. The containers below are those
 * kube-apiserver 1.34.4 stored for this pod (its warnings are in fixtures/workload-warnings.json).
 */
import { inProcessServerForSuite } from '../../helpers/in-process-server';

const server = inProcessServerForSuite(['--disable-admission-plugins=ServiceAccount']);

test('the annotations the pod-level profile does not cover are copied to the fields', async () => {
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'aa',
      annotations: {
        'container.apparmor.security.beta.kubernetes.io/c': 'runtime/default',
        'container.apparmor.security.beta.kubernetes.io/e': 'unconfined',
        'container.apparmor.security.beta.kubernetes.io/i': 'localhost/prof',
      },
    },
    spec: {
      securityContext: { appArmorProfile: { type: 'Unconfined' } },
      initContainers: [{ name: 'i', image: 'busybox' }],
      containers: [
        { name: 'c', image: 'busybox' },
        { name: 'e', image: 'busybox' },
      ],
    },
  };
  const created = await server.request('POST', '/api/v1/namespaces/default/pods', {
    body: JSON.stringify(pod),
    headers: { 'content-type': 'application/json' },
  });
  expect(created.status).toBe(201);
  const stored = JSON.parse((await server.request('GET', '/api/v1/namespaces/default/pods/aa')).body) as {
    spec: Record<'initContainers' | 'containers', { securityContext?: unknown }[]>;
  };
  expect([...stored.spec.initContainers, ...stored.spec.containers].map((c) => c.securityContext)).toEqual([
    { appArmorProfile: { type: 'Localhost', localhostProfile: 'prof' } },
    { appArmorProfile: { type: 'RuntimeDefault' } },
    undefined,
  ]);
});
