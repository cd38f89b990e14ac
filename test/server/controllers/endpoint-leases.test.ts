/**
 * `--endpoint-reconciler-type` on one server: `lease` (the default) lists this replica's
 * advertise address in the `kubernetes` Endpoints and EndpointSlice; `none` writes neither, as
 * the reference; `master-count` and unknown values stop the start with one line.
 * (Several replicas, kills and expiry: test/cluster/kubernetes-endpoints.test.ts.)
 */
import { parseFlags } from '../../../server/config/flags';
import { kubernetesEndpoints, kubernetesEndpointSlice } from '../../../server/controllers/endpoint-leases';
import { startServer, type TestServer } from '../../helpers/server';

const ADVERTISED = '127.0.0.42';

describe('--endpoint-reconciler-type', () => {
  let lease: TestServer;
  let none: TestServer;
  beforeAll(async () => {
    [lease, none] = await Promise.all([
      startServer({ flags: [`--advertise-address=${ADVERTISED}`] }),
      startServer({ flags: [`--advertise-address=${ADVERTISED}`, '--endpoint-reconciler-type=none'] }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([lease?.stop(), none?.stop()]);
  });

  it('lease: the advertise address is listed in both objects', async () => {
    const endpoints = (await lease.request('GET', '/api/v1/namespaces/default/endpoints/kubernetes')).json<{
      subsets: { addresses: { ip: string }[] }[];
    }>();
    expect(endpoints.subsets.map((subset) => subset.addresses.map((address) => address.ip))).toEqual([[ADVERTISED]]);
    const slice = (
      await lease.request('GET', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes')
    ).json<{ endpoints: { addresses: string[] }[] }>();
    expect(slice.endpoints.map((endpoint) => endpoint.addresses)).toEqual([[ADVERTISED]]);
  });

  it('none: the Service is there, its Endpoints and EndpointSlice are not', async () => {
    expect((await none.request('GET', '/api/v1/namespaces/default/services/kubernetes')).status).toBe(200);
    expect((await none.request('GET', '/api/v1/namespaces/default/endpoints/kubernetes')).status).toBe(404);
    expect(
      (await none.request('GET', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes')).status,
    ).toBe(404);
  });

  it("a loopback address is taken in the kubernetes Service's Endpoints alone (where the reference refuses it too)", async () => {
    const post = (name: string) =>
      none.request('POST', '/api/v1/namespaces/default/endpoints', {
        body: JSON.stringify({
          apiVersion: 'v1',
          kind: 'Endpoints',
          metadata: { name },
          subsets: [{ addresses: [{ ip: ADVERTISED }], ports: [{ name: 'https', port: 443 }] }],
        }),
        headers: { 'content-type': 'application/json' },
      });
    expect((await post('kubernetes')).status).toBe(201);
    expect((await post('other')).json()).toMatchObject({
      code: 422,
      message: `Endpoints "other" is invalid: subsets[0].addresses[0].ip: Invalid value: "${ADVERTISED}": may not be in the loopback range (127.0.0.0/8, ::1/128)`,
    });
  });

  it('refuses master-count, which is not built, and what the reference does not implement', () => {
    expect(() => parseFlags(['--endpoint-reconciler-type=master-count'])).toThrow(/master-count .* is not built/);
    expect(() => parseFlags(['--endpoint-reconciler-type=foo'])).toThrow(
      '--endpoint-reconciler-type: Reconciler not implemented: foo',
    );
  });

  it('the last replica to leave writes valid objects with no address, as the reference repacks them', () => {
    expect(kubernetesEndpoints([], 6443)).not.toHaveProperty('subsets');
    expect(kubernetesEndpointSlice([], 6443)).toMatchObject({ endpoints: [] });
  });
});
