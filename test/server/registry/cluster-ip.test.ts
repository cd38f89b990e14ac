import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EVERYTHING, type KubeObject } from '../../../storage/objects/types';
import type { RevisionedStore } from '../../../storage/store';
import { openSqliteStore } from '../../../storage/sqlite/sqlite-store';
import { ResourceStore } from '../../../storage/objects/resource-store';
import { ClusterIPAllocator, ipAddressReservations } from '../../../server/registry/allocators/cluster-ip';
import { parseServiceIPRanges } from '../../../server/registry/allocators/service-cidr';

/** kubeadm's default service subnet. */
const KUBEADM_RANGE = parseServiceIPRanges('10.96.0.0/12', { limitSize: false });

let dir: string;
let store: RevisionedStore;
let ipAddresses: ResourceStore;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'capstan-clusterip-'));
  store = await openSqliteStore({ path: join(dir, 'state.db') });
  ipAddresses = new ResourceStore({ store, keyPrefix: '/registry/ipaddresses', qualifiedResource: { group: 'networking.k8s.io', resource: 'ipaddresses' }, namespaced: false });
});

afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

function service(name: string, spec: Record<string, unknown> = {}): KubeObject {
  return { metadata: { name, namespace: 'default' }, spec: { type: 'ClusterIP', ...spec } };
}

/** Picks the values in order, then repeats the last: forces two allocators onto the same address. */
function scripted(...values: number[]): (n: number) => number {
  let i = 0;
  return () => values[Math.min(i++, values.length - 1)];
}

describe('ClusterIPAllocator over IPAddress objects in a real SQLite store', () => {
  test('allocates inside 10.96.0.0/12 and records the owner', async () => {
    const allocator = new ClusterIPAllocator({ ranges: KUBEADM_RANGE, reservations: ipAddressReservations(ipAddresses), random: scripted(0) });
    const svc = service('web');
    expect(await allocator.allocate(svc)).toEqual([]);
    expect(svc.spec).toMatchObject({ clusterIP: '10.96.0.2', clusterIPs: ['10.96.0.2'] });
    const ipAddress = await ipAddresses.get({ name: '10.96.0.2' });
    expect(ipAddress.spec).toEqual({ parentRef: { group: '', resource: 'services', namespace: 'default', name: 'web' } });
  });

  test('two allocators (two replicas) racing for one address: exactly one wins, the other retries', async () => {
    const first = new ClusterIPAllocator({ ranges: KUBEADM_RANGE, reservations: ipAddressReservations(ipAddresses), random: scripted(5) });
    const second = new ClusterIPAllocator({ ranges: KUBEADM_RANGE, reservations: ipAddressReservations(ipAddresses), random: scripted(5, 6) });
    const [a, b] = [service('a'), service('b')];
    await Promise.all([first.allocate(a), second.allocate(b)]);
    const ips = [(a.spec as { clusterIP: string }).clusterIP, (b.spec as { clusterIP: string }).clusterIP];
    expect(new Set(ips).size).toBe(2);
    expect(ips.sort()).toEqual(['10.96.0.7', '10.96.0.8']);
  });

  test('a requested address is reserved, refused when taken or out of range, and released', async () => {
    const allocator = new ClusterIPAllocator({ ranges: KUBEADM_RANGE, reservations: ipAddressReservations(ipAddresses) });
    const first = service('a', { clusterIP: '10.96.0.10' });
    expect(await allocator.allocate(first)).toEqual([]);
    const taken = await allocator.allocate(service('b', { clusterIP: '10.96.0.10' }));
    expect(taken.map((e) => `${e.field}: ${e.detail}`)).toEqual(['spec.clusterIPs[0]: Invalid value: []string{"10.96.0.10"}: failed to allocate IP 10.96.0.10: provided IP is already allocated']);
    const outside = await allocator.allocate(service('c', { clusterIP: '192.168.0.1' }));
    expect(outside.map((e) => `${e.field}: ${e.detail}`)).toEqual([
      'spec.clusterIPs[0]: Invalid value: "192.168.0.1": failed to allocate IP 192.168.0.1: the provided IP (192.168.0.1) is not in the valid range. The range of valid IPs is 10.96.0.0/12',
    ]);
    await allocator.release(first);
    expect(await allocator.allocate(service('d', { clusterIP: '10.96.0.10' }))).toEqual([]);
  });

  test('headless and ExternalName services get no address', async () => {
    const allocator = new ClusterIPAllocator({ ranges: KUBEADM_RANGE, reservations: ipAddressReservations(ipAddresses) });
    const headless = service('h', { clusterIP: 'None' });
    await allocator.allocate(headless);
    expect(headless.spec).toMatchObject({ clusterIP: 'None', clusterIPs: ['None'] });
    const external = service('e', { type: 'ExternalName', externalName: 'example.com' });
    await allocator.allocate(external);
    expect((external.spec as { clusterIP?: string }).clusterIP).toBeUndefined();
    expect(allocator.firstAddress()).toBe('10.96.0.1');
  });
});

describe('ClusterIPAllocator over the ranges of --service-cluster-ip-range', () => {
  test('without the flag: the reference default 10.0.0.0/24, the kubernetes Service at 10.0.0.1', async () => {
    const allocator = new ClusterIPAllocator({ reservations: ipAddressReservations(ipAddresses), random: scripted(0) });
    expect(allocator.firstAddress()).toBe('10.0.0.1');
    const svc = service('web');
    await allocator.allocate(svc);
    expect(svc.spec).toMatchObject({ clusterIP: '10.0.0.2' });
    // The last usable address of an IPv4 range is below its broadcast address.
    const last = service('last', { clusterIP: '10.0.0.255' });
    expect((await allocator.allocate(last)).map((e) => e.detail)).toEqual([
      'Invalid value: "10.0.0.255": failed to allocate IP 10.0.0.255: the provided IP (10.0.0.255) is not in the valid range. The range of valid IPs is 10.0.0.0/24',
    ]);
  });

  test('an IPv6 range: IPv6 addresses and family, its last address usable, IPAddress objects labelled IPv6', async () => {
    const ranges = parseServiceIPRanges('fd00:10:96::/112', { limitSize: false });
    const allocator = new ClusterIPAllocator({ reservations: ipAddressReservations(ipAddresses), ranges, random: scripted(7) });
    expect(allocator.firstAddress()).toBe('fd00:10:96::1');
    const svc = service('v6', { ipFamilies: ['IPv4'] });
    expect(await allocator.allocate(svc)).toEqual([]);
    expect(svc.spec).toMatchObject({ clusterIP: 'fd00:10:96::9', clusterIPs: ['fd00:10:96::9'], ipFamilies: ['IPv6'] });
    const ipAddress = await ipAddresses.get({ name: 'fd00:10:96::9' });
    expect(ipAddress.metadata.labels).toMatchObject({ 'ipaddress.kubernetes.io/ip-family': 'IPv6' });
    expect(await allocator.allocate(service('last', { clusterIP: 'fd00:10:96::ffff' }))).toEqual([]);
  });

  test('dual-stack ranges: IPv4 by default, the IPv6 range for an IPv6 family or address', async () => {
    const ranges = parseServiceIPRanges('10.96.0.0/12,fd00:10:96::/112', { limitSize: false });
    const allocator = new ClusterIPAllocator({ reservations: ipAddressReservations(ipAddresses), ranges, random: scripted(0) });
    const v4 = service('a', { ipFamilies: ['IPv4'] });
    await allocator.allocate(v4);
    expect(v4.spec).toMatchObject({ clusterIP: '10.96.0.2', ipFamilies: ['IPv4'] });
    const v6 = service('b', { ipFamilies: ['IPv6'] });
    await allocator.allocate(v6);
    expect(v6.spec).toMatchObject({ clusterIP: 'fd00:10:96::2', ipFamilies: ['IPv6'] });
    const asked = service('c', { clusterIP: 'fd00:10:96::50' });
    expect(await allocator.allocate(asked)).toEqual([]);
    expect(asked.spec).toMatchObject({ clusterIPs: ['fd00:10:96::50'], ipFamilies: ['IPv6'] });
  });
});

describe('families a cluster has no range for, refused as the reference refuses them', () => {
  const details = (errors: { field: string; detail: string }[]) => errors.map((e) => `${e.field}: ${e.detail}`);

  test('on a single-stack IPv4 cluster', async () => {
    const allocator = new ClusterIPAllocator({ ranges: KUBEADM_RANGE, reservations: ipAddressReservations(ipAddresses) });
    expect(details(await allocator.allocate(service('a', { ipFamilyPolicy: 'RequireDualStack', ipFamilies: ['IPv4', 'IPv6'] })))).toEqual([
      'spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services',
      'spec.ipFamilies[1]: Invalid value: "IPv6": not configured on this cluster',
    ]);
    expect(details(await allocator.allocate(service('b', { clusterIP: 'fd00::5', clusterIPs: ['fd00::5'] })))).toEqual([
      'spec.clusterIPs[0]: Invalid value: []string{"fd00::5"}: IPv6 is not configured on this cluster',
    ]);
    expect(details(await allocator.allocate(service('c', { ipFamilies: ['IPv6'] })))).toEqual(['spec.ipFamilies[0]: Invalid value: "IPv6": not configured on this cluster']);
    // Nothing was reserved for the refused Services.
    expect((await ipAddresses.list({}, { predicate: EVERYTHING })).items).toEqual([]);
  });
});
