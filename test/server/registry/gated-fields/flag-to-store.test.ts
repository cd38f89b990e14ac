/**
 * `--feature-gates` reaches the kinds' strategies through the store: a replica started with
 * DRAAdminAccess off stores a new claim without its adminAccess, as a 1.34.4 kube-apiserver
 * with the same flag does.
 */
import { inProcessServerForSuite } from '../../../helpers/in-process-server';

const server = inProcessServerForSuite(['--feature-gates=DRAAdminAccess=false']);

const JSON_BODY = { 'content-type': 'application/json' };

test('a claim created while DRAAdminAccess is off loses adminAccess', async () => {
  const namespace = await server.request('POST', '/api/v1/namespaces', {
    body: JSON.stringify({ metadata: { name: 'gated' } }),
    headers: JSON_BODY,
  });
  expect(namespace.status).toBe(201);
  const answer = await server.request('POST', '/apis/resource.k8s.io/v1/namespaces/gated/resourceclaims', {
    body: JSON.stringify({
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceClaim',
      metadata: { name: 'claim' },
      spec: { devices: { requests: [{ name: 'a', exactly: { deviceClassName: 'c', adminAccess: true } }] } },
    }),
    headers: JSON_BODY,
  });
  expect(answer.status).toBe(201);
  expect(answer.json<{ spec: unknown }>().spec).toEqual({
    devices: { requests: [{ name: 'a', exactly: { deviceClassName: 'c', allocationMode: 'ExactCount', count: 1 } }] },
  });
});
