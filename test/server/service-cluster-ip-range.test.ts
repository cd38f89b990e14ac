/**
 * `--service-cluster-ip-range` through a whole replica: the `kubernetes` Service takes the
 * primary range's first address, the default ServiceCIDR holds the flag's ranges and is Ready
 * (as the reference's default-servicecidr controller leaves it), and Services get addresses of
 * their family's range.
 */
import { startInProcessServer, type InProcessServer } from '../helpers/in-process-server';

let server: InProcessServer;

beforeAll(async () => {
  server = await startInProcessServer(['--service-cluster-ip-range=10.96.0.0/12,fd00:10:96::/112']);
});

afterAll(async () => {
  await server?.stop();
});

async function getJson<T>(path: string): Promise<T> {
  const answer = await server.request('GET', path, {});
  expect(answer.status).toBe(200);
  return answer.json<T>();
}

test("the kubernetes Service has the primary range's first address", async () => {
  const service = await getJson<{ spec: Record<string, unknown> }>('/api/v1/namespaces/default/services/kubernetes');
  expect(service.spec).toMatchObject({ clusterIP: '10.96.0.1', clusterIPs: ['10.96.0.1'], ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack' });
});

test('the default ServiceCIDR holds both ranges and is Ready', async () => {
  const serviceCIDR = await getJson<{ spec: unknown; status: { conditions: Record<string, unknown>[] }; metadata: { managedFields: { manager: string; subresource?: string }[] } }>(
    '/apis/networking.k8s.io/v1/servicecidrs/kubernetes',
  );
  expect(serviceCIDR.spec).toEqual({ cidrs: ['10.96.0.0/12', 'fd00:10:96::/112'] });
  expect(serviceCIDR.status.conditions).toEqual([{ type: 'Ready', status: 'True', reason: '', message: 'Kubernetes default Service CIDR is ready', lastTransitionTime: expect.any(String) }]);
  expect(serviceCIDR.metadata.managedFields.map(({ manager, subresource }) => `${manager}${subresource ? `/${subresource}` : ''}`)).toContain('kubernetes-service-cidr-controller/status');
});

test('a Service asking for IPv6 gets an address of the IPv6 range', async () => {
  const body = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'v6' }, spec: { ipFamilies: ['IPv6'], ports: [{ port: 80 }] } };
  const created = await server.request('POST', '/api/v1/namespaces/default/services', { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  expect(created.status).toBe(201);
  const spec = created.json<{ spec: { clusterIP: string; ipFamilies: string[] } }>().spec;
  expect(spec.clusterIP).toMatch(/^fd00:10:96::[0-9a-f]{1,4}$/);
  expect(spec.ipFamilies).toEqual(['IPv6']);
  const address = await getJson<{ metadata: { labels: Record<string, string> } }>(`/apis/networking.k8s.io/v1/ipaddresses/${spec.clusterIP}`);
  expect(address.metadata.labels).toMatchObject({ 'ipaddress.kubernetes.io/ip-family': 'IPv6' });
});
