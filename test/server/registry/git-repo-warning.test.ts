/**
 * GitRepoVolumeDriver only changes what the reference warns of a gitRepo volume (the kubelet,
 * not the API server, refuses to mount one while it is off). The warnings below are those
 * kube-apiserver 1.34.4 sent with the gate on (and
 * `--disable-admission-plugins=ServiceAccount`, so that no service account need exist); write-warnings.test.ts has them with it off.
 */
import { inProcessServerForSuite } from '../../helpers/in-process-server';

const server = inProcessServerForSuite([
  '--disable-admission-plugins=ServiceAccount',
  '--feature-gates=GitRepoVolumeDriver=true',
]);
test('with the gate on, a gitRepo volume is only deprecated', async () => {
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'g' },
    spec: {
      containers: [{ name: 'c', image: 'busybox' }],
      volumes: [
        { name: 'p', photonPersistentDisk: { pdID: 'x' } },
        { name: 'g', gitRepo: { repository: 'https://example.com/r.git' } },
      ],
    },
  };
  const result = await server.request('POST', '/api/v1/namespaces/default/pods', {
    body: JSON.stringify(pod),
    headers: { 'content-type': 'application/json' },
  });
  expect([result.status, result.headers.warning]).toEqual([
    201,
    '299 - "spec.volumes[0].photonPersistentDisk: deprecated in v1.11, non-functional in v1.16+", ' +
      '299 - "spec.volumes[1].gitRepo: deprecated in v1.11"',
  ]);
});
