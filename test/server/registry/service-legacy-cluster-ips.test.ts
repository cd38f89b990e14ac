/**
 * A Service's cluster IPs are a legacy field: with StrictIPCIDRValidation off (its 1.34 default)
 * an address with leading zeros or IPv4-mapped is taken, kept in the Service as written, and its
 * IPAddress object is the address it reads as. Every expected answer is what kube-apiserver
 * 1.34.4 answered to the same requests, started with `--service-cluster-ip-range=10.96.0.0/12`
 * and the gate at its default or on, over one etcd.
 */
import type { KubeObject } from '../../../api/objects';
import { ServiceIPRepair } from '../../../server/controllers/service-ip-repair';
import { ClusterIPAllocator, ipAddressReservations } from '../../../server/registry/allocators/cluster-ip';
import { parseServiceIPRanges } from '../../../server/net/service-ip-ranges';
import { inProcessServerForSuite } from '../../helpers/in-process-server';
import { created, typeOf, updated } from './gated-fields/write-path';

interface Status {
  code: number;
  message: string;
}

const services = typeOf('', 'services');
const PATH = '/api/v1/namespaces/default/services';
const STRICT = { StrictIPCIDRValidation: true };
const server = inProcessServerForSuite(['--service-cluster-ip-range=10.96.0.0/12']);

function service(name: string, spec: Record<string, unknown>): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: 'default' },
    spec: { ports: [{ port: 80 }], ...spec },
  };
}

async function create(name: string, spec: Record<string, unknown>, query = '') {
  return server.request('POST', PATH + query, { body: JSON.stringify(service(name, spec)) });
}

async function ipAddressParent(ip: string): Promise<unknown> {
  const result = await server.request('GET', `/apis/networking.k8s.io/v1/ipaddresses/${ip}`);
  return result.status === 200 ? (result.json<KubeObject>().spec as { parentRef: unknown }).parentRef : result.status;
}

describe('with StrictIPCIDRValidation off', () => {
  test('leading zeros: kept as written, the IPAddress is the address read, given back on delete', async () => {
    const result = await create('zeros', { clusterIP: '10.96.0.010' });
    expect(result.status).toBe(201);
    expect(result.json<KubeObject>().spec).toMatchObject({
      clusterIP: '10.96.0.010',
      clusterIPs: ['10.96.0.010'],
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
    });
    expect(await ipAddressParent('10.96.0.10')).toEqual({ resource: 'services', namespace: 'default', name: 'zeros' });

    const taken = await create('plain', { clusterIP: '10.96.0.10' });
    expect([taken.status, taken.json<Status>().message]).toEqual([
      422,
      'Service "plain" is invalid: spec.clusterIPs: Invalid value: ["10.96.0.10"]: failed to allocate IP 10.96.0.10: provided IP is already allocated',
    ]);

    expect((await server.request('DELETE', `${PATH}/zeros`)).status).toBe(200);
    expect(await ipAddressParent('10.96.0.10')).toBe(404);
  });

  test('an IPv4-mapped address is IPv4', async () => {
    const result = await create('mapped', { clusterIP: '::ffff:10.96.0.11' });
    expect(result.status).toBe(201);
    expect(result.json<KubeObject>().spec).toMatchObject({ clusterIPs: ['::ffff:10.96.0.11'], ipFamilies: ['IPv4'] });
    expect(await ipAddressParent('10.96.0.11')).toEqual({ resource: 'services', namespace: 'default', name: 'mapped' });

    const asIPv6 = await create('mapped6', { clusterIP: '::ffff:10.96.0.16', ipFamilies: ['IPv6'] });
    expect([asIPv6.status, asIPv6.json<Status>().message]).toEqual([
      422,
      'Service "mapped6" is invalid: spec.clusterIPs[0]: Invalid value: "::ffff:10.96.0.16": expected an IPv6 value as indicated by `ipFamilies[0]`',
    ]);
  });

  test('outside the range, and a dry run', async () => {
    const outside = await create('outside', { clusterIP: '010.0.0.1' });
    expect([outside.status, outside.json<Status>().message]).toEqual([
      422,
      'Service "outside" is invalid: spec.clusterIPs: Invalid value: ["010.0.0.1"]: failed to allocate IP 010.0.0.1: the provided network does not match the current range',
    ]);
    const dryRun = await create('dry', { clusterIP: '10.96.0.013' }, '?dryRun=All');
    expect(dryRun.status).toBe(201);
    expect(dryRun.json<KubeObject>().spec).toMatchObject({ clusterIPs: ['10.96.0.013'] });
    expect(await ipAddressParent('10.96.0.13')).toBe(404);
  });
});

test("the repair reads a Service's addresses as the allocator names them", async () => {
  expect((await create('repaired', { clusterIP: '10.96.0.020' })).status).toBe(201);
  const find = (group: string, resource: string) => server.plane.registry.find({ group, version: 'v1' }, resource)!;
  const ipAddresses = server.plane.storageFor(find('networking.k8s.io', 'ipaddresses'));
  const logged: string[] = [];
  const repair = new ServiceIPRepair({
    services: server.plane.storageFor(find('', 'services')),
    ipAddresses,
    allocator: new ClusterIPAllocator({
      reservations: ipAddressReservations(ipAddresses),
      ranges: parseServiceIPRanges('10.96.0.0/12', { limitSize: false }),
    }),
    removeAddress: async (name) => void (await ipAddresses.delete({ name })),
    log: (line) => logged.push(line),
  });
  // Held, not leaked: two passes leave it.
  await repair.runOnce();
  await repair.runOnce();
  expect(await ipAddressParent('10.96.0.20')).toEqual({ resource: 'services', namespace: 'default', name: 'repaired' });
  // Lost: given back under the name the allocator gives it.
  await ipAddresses.delete({ name: '10.96.0.20' });
  await repair.runOnce();
  expect(await ipAddressParent('10.96.0.20')).toEqual({ resource: 'services', namespace: 'default', name: 'repaired' });
  expect(logged).toEqual(['the ClusterIP 10.96.0.20 for Service default/repaired is not allocated; repairing']);
});

describe('with StrictIPCIDRValidation on', () => {
  test.each([
    ['leading zeros', '10.96.0.012', 'spec.clusterIPs[0]: Invalid value: "10.96.0.012": must not have leading 0s'],
    [
      'IPv4-mapped',
      '::ffff:10.96.0.12',
      'spec.clusterIPs[0]: Invalid value: "::ffff:10.96.0.12": must not be an IPv4-mapped IPv6 address',
    ],
  ])('%s is refused in a new Service', (_, ip, error) => {
    expect(created(services, service('x', { clusterIP: ip, clusterIPs: [ip] }), STRICT).errors).toEqual([error]);
  });

  test('an address the stored Service has is spared', () => {
    const stored = created(services, service('x', { clusterIP: '10.96.0.010', clusterIPs: ['10.96.0.010'] }), {});
    expect(stored.errors).toEqual([]);
    const relabelled = updated(services, stored.object, (next) => (next.metadata.labels = { x: 'y' }), STRICT);
    expect(relabelled.errors).toEqual([]);
  });
});
