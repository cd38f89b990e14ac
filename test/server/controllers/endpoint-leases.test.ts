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
