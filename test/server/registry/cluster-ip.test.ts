import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EVERYTHING } from '../../../storage/objects/types';
import type { RevisionedStore } from '../../../storage/store';
import { openSqliteStore } from '../../../storage/sqlite/sqlite-store';
import { ResourceStore } from '../../../storage/objects/resource-store';
import { ClusterIPAllocator, ipAddressReservations } from '../../../server/registry/allocators/cluster-ip';
import { parseServiceIPRanges } from '../../../server/net/service-ip-ranges';

import type { KubeObject } from '../../../api/objects';
/** kubeadm's default service subnet. */
const KUBEADM_RANGE = parseServiceIPRanges('10.96.0.0/12', { limitSize: false });

let dir: string;
let store: RevisionedStore;
let ipAddresses: ResourceStore;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'capstan-clusterip-'));
  store = await openSqliteStore({ path: join(dir, 'state.db') });
  ipAddresses = new ResourceStore({
    store,
    keyPrefix: '/registry/ipaddresses',
    qualifiedResource: { group: 'networking.k8s.io', resource: 'ipaddresses' },
    namespaced: false,
  });
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

const details = (change: { errors: { field: string; detail: string }[] }) =>
  change.errors.map((e) => `${e.field}: ${e.detail}`);

describe('ClusterIPAllocator over IPAddress objects in a real SQLite store', () => {
  test('allocates inside 10.96.0.0/12 and records the owner', async () => {
    const allocator = new ClusterIPAllocator({
      ranges: KUBEADM_RANGE,
      reservations: ipAddressReservations(ipAddresses),
      random: scripted(0),
    });
    const svc = service('web');
    expect(await allocator.allocate(svc)).toEqual({ errors: [], allocated: ['10.96.0.2'], released: [] });
    expect(svc.spec).toMatchObject({
      clusterIP: '10.96.0.2',
      clusterIPs: ['10.96.0.2'],
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
    });
    const ipAddress = await ipAddresses.get({ name: '10.96.0.2' });
    expect(ipAddress.spec).toEqual({
      parentRef: { resource: 'services', namespace: 'default', name: 'web' },
    });
  });

  test('two allocators (two replicas) racing for one address: exactly one wins, the other retries', async () => {
    const first = new ClusterIPAllocator({
      ranges: KUBEADM_RANGE,
      reservations: ipAddressReservations(ipAddresses),
      random: scripted(5),
    });
    const second = new ClusterIPAllocator({
      ranges: KUBEADM_RANGE,
      reservations: ipAddressReservations(ipAddresses),
      random: scripted(5, 6),
    });
    const [a, b] = [service('a'), service('b')];
    await Promise.all([first.allocate(a), second.allocate(b)]);
    const ips = [(a.spec as { clusterIP: string }).clusterIP, (b.spec as { clusterIP: string }).clusterIP];
    expect(new Set(ips).size).toBe(2);
    expect(ips.sort()).toEqual(['10.96.0.7', '10.96.0.8']);
  });

  test('a requested address is reserved, refused when taken or out of range, and released', async () => {
    const allocator = new ClusterIPAllocator({
      ranges: KUBEADM_RANGE,
      reservations: ipAddressReservations(ipAddresses),
    });
    const first = service('a', { clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10'] });
    expect((await allocator.allocate(first)).errors).toEqual([]);
    expect(
      details(await allocator.allocate(service('b', { clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10'] }))),
    ).toEqual([
      'spec.clusterIPs: Invalid value: ["10.96.0.10"]: failed to allocate IP 10.96.0.10: provided IP is already allocated',
    ]);
    // Outside the range, its network address and its broadcast address alike.
    for (const ip of ['192.168.0.1', '10.96.0.0', '10.111.255.255']) {
      expect(details(await allocator.allocate(service('c', { clusterIP: ip, clusterIPs: [ip] })))).toEqual([
        `spec.clusterIPs: Invalid value: ["${ip}"]: failed to allocate IP ${ip}: the provided network does not match the current range`,
      ]);
    }
    await allocator.release(first);
    expect(
      (await allocator.allocate(service('d', { clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10'] }))).errors,
    ).toEqual([]);
  });

  test('headless and ExternalName services get no address', async () => {
    const allocator = new ClusterIPAllocator({
      ranges: KUBEADM_RANGE,
      reservations: ipAddressReservations(ipAddresses),
    });
    const headless = service('h', { clusterIP: 'None', clusterIPs: ['None'], selector: { app: 'x' } });
    await allocator.allocate(headless);
    expect(headless.spec).toMatchObject({
      clusterIP: 'None',
      clusterIPs: ['None'],
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
    });
    const external = service('e', { type: 'ExternalName', externalName: 'example.com' });
    await allocator.allocate(external);
    expect(external.spec).not.toHaveProperty('clusterIP');
    expect(external.spec).not.toHaveProperty('ipFamilies');
    expect(allocator.firstAddress()).toBe('10.96.0.1');
    expect((await ipAddresses.list({}, { predicate: EVERYTHING })).items).toEqual([]);
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
    expect(
      details(await allocator.allocate(service('last', { clusterIP: '10.0.0.255', clusterIPs: ['10.0.0.255'] }))),
    ).toEqual([
      'spec.clusterIPs: Invalid value: ["10.0.0.255"]: failed to allocate IP 10.0.0.255: the provided network does not match the current range',
    ]);
  });

  test('an IPv6 range: IPv6 addresses and family, its last address usable, IPAddress objects labelled IPv6', async () => {
    const ranges = parseServiceIPRanges('fd00:10:96::/112', { limitSize: false });
    const allocator = new ClusterIPAllocator({
      reservations: ipAddressReservations(ipAddresses),
      ranges,
      random: scripted(7),
    });
    expect(allocator.firstAddress()).toBe('fd00:10:96::1');
    const svc = service('v6');
    expect((await allocator.allocate(svc)).errors).toEqual([]);
    expect(svc.spec).toMatchObject({ clusterIP: 'fd00:10:96::9', clusterIPs: ['fd00:10:96::9'], ipFamilies: ['IPv6'] });
    const ipAddress = await ipAddresses.get({ name: 'fd00:10:96::9' });
    expect(ipAddress.metadata.labels).toMatchObject({ 'ipaddress.kubernetes.io/ip-family': 'IPv6' });
    expect(
      (await allocator.allocate(service('last', { clusterIP: 'fd00:10:96::ffff', clusterIPs: ['fd00:10:96::ffff'] })))
        .errors,
    ).toEqual([]);
  });
});

describe('dual-stack: IPv4 and IPv6 ranges', () => {
  const DUAL = parseServiceIPRanges('10.96.0.0/12,fd00:10:96::/112', { limitSize: false });
  const dual = () =>
    new ClusterIPAllocator({
      reservations: ipAddressReservations(ipAddresses),
      ranges: DUAL,
      random: scripted(0, 1, 2, 3, 4, 5, 6, 7, 8),
    });
  const spec = (svc: KubeObject) =>
    svc.spec as { clusterIPs?: string[]; ipFamilies?: string[]; ipFamilyPolicy?: string };

  test.each([
    ['no policy: SingleStack of the primary family', {}, ['IPv4'], 'SingleStack'],
    ['SingleStack IPv6', { ipFamilies: ['IPv6'] }, ['IPv6'], 'SingleStack'],
    [
      'PreferDualStack: both, primary first',
      { ipFamilyPolicy: 'PreferDualStack' },
      ['IPv4', 'IPv6'],
      'PreferDualStack',
    ],
    ['RequireDualStack: both', { ipFamilyPolicy: 'RequireDualStack' }, ['IPv4', 'IPv6'], 'RequireDualStack'],
    [
      'RequireDualStack, IPv6 first',
      { ipFamilyPolicy: 'RequireDualStack', ipFamilies: ['IPv6', 'IPv4'] },
      ['IPv6', 'IPv4'],
      'RequireDualStack',
    ],
  ])('%s', async (_name, asked, families, policy) => {
    const svc = service('s', asked);
    const change = await dual().allocate(svc);
    expect(change.errors).toEqual([]);
    expect(spec(svc).ipFamilies).toEqual(families);
    expect(spec(svc).ipFamilyPolicy).toBe(policy);
    expect(spec(svc).clusterIPs!.map((ip) => (ip.includes(':') ? 'IPv6' : 'IPv4'))).toEqual(families);
    // Each address is an IPAddress object of its family.
    for (const ip of change.allocated)
      expect((await ipAddresses.get({ name: ip })).metadata.labels?.['ipaddress.kubernetes.io/ip-family']).toBe(
        ip.includes(':') ? 'IPv6' : 'IPv4',
      );
  });

  test('clusterIPs given: both reserved; one taken: refused, and the other given back', async () => {
    const given = service('given', {
      ipFamilyPolicy: 'RequireDualStack',
      clusterIP: '10.96.100.7',
      clusterIPs: ['10.96.100.7', 'fd00:10:96::7'],
    });
    expect((await dual().allocate(given)).allocated).toEqual(['10.96.100.7', 'fd00:10:96::7']);
    expect(spec(given).ipFamilies).toEqual(['IPv4', 'IPv6']);
    const half = service('half', {
      ipFamilyPolicy: 'RequireDualStack',
      clusterIP: '10.96.100.8',
      clusterIPs: ['10.96.100.8', 'fd00:10:96::7'],
    });
    expect(details(await dual().allocate(half))).toEqual([
      'spec.clusterIPs: Invalid value: ["10.96.100.8","fd00:10:96::7"]: failed to allocate IP fd00:10:96::7: provided IP is already allocated',
    ]);
    await expect(ipAddresses.get({ name: '10.96.100.8' })).rejects.toThrow('not found');
  });

  test('the reference refusals of families and policies', async () => {
    expect(details(await dual().allocate(service('a', { ipFamilies: ['IPv4', 'IPv6'] })))).toEqual([
      "spec.ipFamilyPolicy: Invalid value: \"SingleStack\": must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified",
    ]);
    expect(
      details(
        await dual().allocate(
          service('b', {
            ipFamilyPolicy: 'SingleStack',
            clusterIP: '10.96.100.10',
            clusterIPs: ['10.96.100.10', 'fd00:10:96::10'],
          }),
        ),
      ),
    ).toEqual([
      "spec.ipFamilyPolicy: Invalid value: \"SingleStack\": must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified",
    ]);
    expect((await ipAddresses.list({}, { predicate: EVERYTHING })).items).toEqual([]);
  });

  test('headless without a selector is RequireDualStack with both families; with one, SingleStack', async () => {
    const bare = service('bare', { clusterIP: 'None', clusterIPs: ['None'] });
    await dual().allocate(bare);
    expect(spec(bare)).toMatchObject({
      clusterIPs: ['None'],
      ipFamilies: ['IPv4', 'IPv6'],
      ipFamilyPolicy: 'RequireDualStack',
    });
    const selected = service('selected', { clusterIP: 'None', clusterIPs: ['None'], selector: { app: 'a' } });
    await dual().allocate(selected);
    expect(spec(selected)).toMatchObject({ ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack' });
  });

  test('updates: an upgrade to dual-stack takes the second address, a downgrade gives it back once stored', async () => {
    const allocator = dual();
    const old = service('u');
    await allocator.allocate(old);
    const upgraded = service('u', { ...(old.spec as object), ipFamilyPolicy: 'PreferDualStack' });
    const up = await allocator.update(upgraded, old);
    expect(up.allocated).toHaveLength(1);
    expect(spec(upgraded).clusterIPs).toEqual([spec(old).clusterIPs![0], up.allocated[0]]);
    expect(spec(upgraded).ipFamilies).toEqual(['IPv4', 'IPv6']);

    // Dropping the secondary address needs SingleStack.
    const dropped = service('u', { ...(upgraded.spec as object), clusterIPs: [spec(old).clusterIPs![0]] });
    expect(details(await allocator.update(dropped, upgraded))).toEqual([
      'spec.ipFamilyPolicy: Invalid value: "PreferDualStack": must be \'SingleStack\' to release the secondary cluster IP',
    ]);
    const single = service('u', { ...(upgraded.spec as object), ipFamilyPolicy: 'SingleStack' });
    const down = await allocator.update(single, upgraded);
    expect(down).toEqual({ errors: [], allocated: [], released: [up.allocated[0]] });
    expect(spec(single)).toMatchObject({ clusterIPs: [spec(old).clusterIPs![0]], ipFamilies: ['IPv4'] });
  });

  test('updates: ExternalName to ClusterIP takes addresses; ClusterIP to ExternalName gives them back', async () => {
    const allocator = dual();
    const external = service('x', { type: 'ExternalName', externalName: 'example.com' });
    const toClusterIP = service('x', { ipFamilyPolicy: 'RequireDualStack' });
    const taken = await allocator.update(toClusterIP, external);
    expect(taken.allocated).toHaveLength(2);
    expect(spec(toClusterIP).clusterIPs).toEqual(taken.allocated);
    const back = await allocator.update(
      service('x', { type: 'ExternalName', externalName: 'example.com' }),
      toClusterIP,
    );
    expect(back.released).toEqual(taken.allocated);
  });
});

describe('families a cluster has no range for, refused as the reference refuses them', () => {
  test('on a single-stack IPv4 cluster', async () => {
    const allocator = new ClusterIPAllocator({
      ranges: KUBEADM_RANGE,
      reservations: ipAddressReservations(ipAddresses),
    });
    expect(
      details(
        await allocator.allocate(service('a', { ipFamilyPolicy: 'RequireDualStack', ipFamilies: ['IPv4', 'IPv6'] })),
      ),
    ).toEqual([
      'spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services',
      'spec.ipFamilies[1]: Invalid value: "IPv6": not configured on this cluster',
    ]);
    expect(details(await allocator.allocate(service('b', { clusterIP: 'fd00::5', clusterIPs: ['fd00::5'] })))).toEqual([
      'spec.clusterIPs[0]: Invalid value: ["fd00::5"]: IPv6 is not configured on this cluster',
    ]);
    expect(details(await allocator.allocate(service('c', { ipFamilies: ['IPv6'] })))).toEqual([
      'spec.ipFamilies[0]: Invalid value: "IPv6": not configured on this cluster',
    ]);
    // PreferDualStack on a single-stack cluster is single-stack, and stays PreferDualStack.
    const prefer = service('d', { ipFamilyPolicy: 'PreferDualStack' });
    expect((await allocator.allocate(prefer)).errors).toEqual([]);
    expect(prefer.spec).toMatchObject({ ipFamilies: ['IPv4'], ipFamilyPolicy: 'PreferDualStack' });
    // Nothing was reserved for the refused Services.
    expect((await ipAddresses.list({}, { predicate: EVERYTHING })).items.map((item) => item.metadata.name)).toEqual([
      (prefer.spec as { clusterIP: string }).clusterIP,
    ]);
  });
});
