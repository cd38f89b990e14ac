/**
 * `--service-cluster-ip-range` through a whole replica: the `kubernetes` Service takes the
 * primary range's first address, the default ServiceCIDR holds the flag's ranges and is Ready
 * (as the reference's default-servicecidr controller leaves it), and Services get addresses of
 * their family's range: single- and dual-stack as a 1.34 server on the same ranges answers, on
 * create and update, as IPAddress objects kubectl lists, repaired when lost or leaked.
 */
import { ServiceIPRepair } from '../../server/controllers/service-ip-repair';
import { ClusterIPAllocator, ipAddressReservations } from '../../server/registry/allocators/cluster-ip';
import { parseServiceIPRanges } from '../../server/net/service-ip-ranges';
import { inProcessServerForSuite } from '../helpers/in-process-server';

const server = inProcessServerForSuite(['--service-cluster-ip-range=10.96.0.0/12,fd00:10:96::/112']);

async function getJson<T>(path: string): Promise<T> {
  const answer = await server.request('GET', path, {});
  expect(answer.status).toBe(200);
  return answer.json<T>();
}

test("the kubernetes Service has the primary range's first address", async () => {
  const service = await getJson<{ spec: Record<string, unknown> }>('/api/v1/namespaces/default/services/kubernetes');
  expect(service.spec).toMatchObject({
    clusterIP: '10.96.0.1',
    clusterIPs: ['10.96.0.1'],
    ipFamilies: ['IPv4'],
    ipFamilyPolicy: 'SingleStack',
  });
});

test('the default ServiceCIDR holds both ranges and is Ready', async () => {
  const serviceCIDR = await getJson<{
    spec: unknown;
    status: { conditions: Record<string, unknown>[] };
    metadata: { managedFields: { manager: string; subresource?: string }[] };
  }>('/apis/networking.k8s.io/v1/servicecidrs/kubernetes');
  expect(serviceCIDR.spec).toEqual({ cidrs: ['10.96.0.0/12', 'fd00:10:96::/112'] });
  expect(serviceCIDR.status.conditions).toEqual([
    {
      type: 'Ready',
      status: 'True',
      reason: '',
      message: 'Kubernetes default Service CIDR is ready',
      lastTransitionTime: expect.any(String),
    },
  ]);
  expect(
    serviceCIDR.metadata.managedFields.map(
      ({ manager, subresource }) => `${manager}${subresource ? `/${subresource}` : ''}`,
    ),
  ).toContain('kubernetes-service-cidr-controller/status');
});

test('a Service asking for IPv6 gets an address of the IPv6 range', async () => {
  const body = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'v6' },
    spec: { ipFamilies: ['IPv6'], ports: [{ port: 80 }] },
  };
  const created = await server.request('POST', '/api/v1/namespaces/default/services', {
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
  expect(created.status).toBe(201);
  const spec = created.json<{ spec: { clusterIP: string; ipFamilies: string[] } }>().spec;
  expect(spec.clusterIP).toMatch(/^fd00:10:96::[0-9a-f]{1,4}$/);
  expect(spec.ipFamilies).toEqual(['IPv6']);
  const address = await getJson<{ metadata: { labels: Record<string, string> } }>(
    `/apis/networking.k8s.io/v1/ipaddresses/${spec.clusterIP}`,
  );
  expect(address.metadata.labels).toMatchObject({ 'ipaddress.kubernetes.io/ip-family': 'IPv6' });
});

interface ServiceShape {
  metadata: { name: string };
  spec: { clusterIP?: string; clusterIPs?: string[]; ipFamilies?: string[]; ipFamilyPolicy?: string; type?: string };
}

async function createService(
  name: string,
  spec: Record<string, unknown>,
): Promise<{ status: number; body: ServiceShape & { message: string } }> {
  const body = { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { ports: [{ port: 80 }], ...spec } };
  const answer = await server.request('POST', '/api/v1/namespaces/default/services', {
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
  return { status: answer.status, body: answer.json() };
}

async function patchService(
  name: string,
  patch: unknown,
): Promise<{ status: number; body: ServiceShape & { message: string } }> {
  const answer = await server.request('PATCH', `/api/v1/namespaces/default/services/${name}`, {
    body: JSON.stringify(patch),
    headers: { 'content-type': 'application/merge-patch+json' },
  });
  return { status: answer.status, body: answer.json() };
}

const familyOf = (ip: string) => (ip.includes(':') ? 'IPv6' : 'IPv4');

describe('dual-stack Services, as a 1.34 server on the same two ranges answers', () => {
  test.each([
    ['single', {}, ['IPv4'], 'SingleStack'],
    ['prefer', { ipFamilyPolicy: 'PreferDualStack' }, ['IPv4', 'IPv6'], 'PreferDualStack'],
    ['require', { ipFamilyPolicy: 'RequireDualStack' }, ['IPv4', 'IPv6'], 'RequireDualStack'],
    [
      'require-v6-first',
      { ipFamilyPolicy: 'RequireDualStack', ipFamilies: ['IPv6', 'IPv4'] },
      ['IPv6', 'IPv4'],
      'RequireDualStack',
    ],
    [
      'given',
      { ipFamilyPolicy: 'RequireDualStack', clusterIP: '10.96.100.7', clusterIPs: ['10.96.100.7', 'fd00:10:96::7'] },
      ['IPv4', 'IPv6'],
      'RequireDualStack',
    ],
    ['v6-asked', { clusterIP: 'fd00:10:96::9' }, ['IPv6'], 'SingleStack'],
  ])('%s', async (name, spec, families, policy) => {
    const { status, body } = await createService(name, spec);
    expect(status).toBe(201);
    expect(body.spec.ipFamilies).toEqual(families);
    expect(body.spec.ipFamilyPolicy).toBe(policy);
    expect(body.spec.clusterIPs!.map(familyOf)).toEqual(families);
    expect(body.spec.clusterIP).toBe(body.spec.clusterIPs![0]);
    for (const ip of body.spec.clusterIPs!) {
      const address = await getJson<{ spec: { parentRef: Record<string, string> } }>(
        `/apis/networking.k8s.io/v1/ipaddresses/${ip}`,
      );
      expect(address.spec.parentRef).toEqual({ resource: 'services', namespace: 'default', name });
    }
  });

  test.each([
    [
      'families-no-policy',
      { ipFamilies: ['IPv4', 'IPv6'] },
      `spec.ipFamilyPolicy: Invalid value: "SingleStack": must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified`,
    ],
    [
      'taken',
      { ipFamilyPolicy: 'RequireDualStack', clusterIP: '10.96.100.8', clusterIPs: ['10.96.100.8', 'fd00:10:96::7'] },
      'spec.clusterIPs: Invalid value: ["10.96.100.8","fd00:10:96::7"]: failed to allocate IP fd00:10:96::7: provided IP is already allocated',
    ],
    [
      'outside',
      { clusterIP: '192.168.0.1' },
      'spec.clusterIPs: Invalid value: ["192.168.0.1"]: failed to allocate IP 192.168.0.1: the provided network does not match the current range',
    ],
    [
      'two-single',
      { ipFamilyPolicy: 'SingleStack', clusterIP: '10.96.100.10', clusterIPs: ['10.96.100.10', 'fd00:10:96::10'] },
      `spec.ipFamilyPolicy: Invalid value: "SingleStack": must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified`,
    ],
    [
      'two-v4',
      { ipFamilyPolicy: 'RequireDualStack', clusterIP: '10.96.100.10', clusterIPs: ['10.96.100.10', '10.96.100.11'] },
      'spec.clusterIPs: Invalid value: ["10.96.100.10","10.96.100.11"]: may specify no more than one IP for each IP family',
    ],
    [
      'family-mismatch',
      { ipFamilies: ['IPv6'], clusterIP: '10.96.100.10', clusterIPs: ['10.96.100.10'] },
      'spec.clusterIPs[0]: Invalid value: "10.96.100.10": expected an IPv6 value as indicated by `ipFamilies[0]`',
    ],
    [
      'ips-without-ip',
      { clusterIPs: ['10.96.100.10'] },
      'spec.clusterIPs: Invalid value: ["10.96.100.10"]: must be empty when `clusterIP` is not specified',
    ],
    [
      'bad-policy',
      { ipFamilyPolicy: 'Both' },
      'spec.ipFamilyPolicy: Unsupported value: "Both": supported values: "PreferDualStack", "RequireDualStack", "SingleStack"',
    ],
    [
      'bad-family',
      { ipFamilies: ['IPv5'] },
      'spec.ipFamilies[0]: Unsupported value: "IPv5": supported values: "IPv4", "IPv6"',
    ],
  ])('%s is refused with the reference message', async (name, spec, message) => {
    const { status, body } = await createService(name, spec);
    expect(status).toBe(422);
    expect(body.message).toBe(`Service "${name}" is invalid: ${message}`);
  });

  test('headless: without a selector RequireDualStack with both families, with one SingleStack', async () => {
    expect((await createService('headless-bare', { clusterIP: 'None' })).body.spec).toMatchObject({
      clusterIPs: ['None'],
      ipFamilies: ['IPv4', 'IPv6'],
      ipFamilyPolicy: 'RequireDualStack',
    });
    expect(
      (await createService('headless-selected', { clusterIP: 'None', selector: { a: 'b' } })).body.spec,
    ).toMatchObject({ clusterIPs: ['None'], ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack' });
  });

  test('upgrade to dual-stack and back; the primary address and family never change', async () => {
    const created = (await createService('updown', {})).body.spec;
    const up = await patchService('updown', { spec: { ipFamilyPolicy: 'PreferDualStack' } });
    expect(up.body.spec.ipFamilies).toEqual(['IPv4', 'IPv6']);
    expect(up.body.spec.clusterIPs![0]).toBe(created.clusterIP);
    const secondary = up.body.spec.clusterIPs![1];
    expect((await server.request('GET', `/apis/networking.k8s.io/v1/ipaddresses/${secondary}`, {})).status).toBe(200);
    const wrong = await patchService('updown', { spec: { clusterIPs: [created.clusterIP] } });
    expect(wrong.body.message).toBe(
      `Service "updown" is invalid: spec.ipFamilyPolicy: Invalid value: "PreferDualStack": must be 'SingleStack' to release the secondary cluster IP`,
    );
    const down = await patchService('updown', { spec: { ipFamilyPolicy: 'SingleStack' } });
    expect(down.body.spec).toMatchObject({
      clusterIPs: [created.clusterIP],
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
    });
    expect((await server.request('GET', `/apis/networking.k8s.io/v1/ipaddresses/${secondary}`, {})).status).toBe(404);
    expect(
      (await patchService('updown', { spec: { clusterIP: '10.96.100.99', clusterIPs: ['10.96.100.99'] } })).body
        .message,
    ).toBe('Service "updown" is invalid: spec.clusterIPs[0]: Invalid value: ["10.96.100.99"]: may not change once set');
    expect((await patchService('updown', { spec: { ipFamilies: ['IPv6'] } })).body.message).toBe(
      `Service "updown" is invalid: spec.clusterIPs[0]: Invalid value: "${created.clusterIP}": expected an IPv6 value as indicated by \`ipFamilies[0]\``,
    );
    // A PUT of the spec as first sent (no addresses, no families) keeps them.
    const current = await getJson<ServiceShape & { metadata: Record<string, unknown> }>(
      '/api/v1/namespaces/default/services/updown',
    );
    for (const field of ['clusterIP', 'clusterIPs', 'ipFamilies', 'ipFamilyPolicy'] as const)
      delete current.spec[field];
    const put = await server.request('PUT', '/api/v1/namespaces/default/services/updown', {
      body: JSON.stringify(current),
      headers: { 'content-type': 'application/json' },
    });
    expect(put.status).toBe(200);
    expect(put.json<ServiceShape>().spec).toMatchObject({
      clusterIPs: [created.clusterIP],
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
    });
  });

  test('ExternalName to ClusterIP gets addresses; back to ExternalName gives them back; delete gives them back', async () => {
    const external = await createService('ext', {
      type: 'ExternalName',
      externalName: 'x.example.com',
      ports: undefined,
    });
    expect(external.body.spec).not.toHaveProperty('clusterIPs');
    const toClusterIP = await patchService('ext', {
      spec: { type: 'ClusterIP', externalName: null, ipFamilyPolicy: 'RequireDualStack', ports: [{ port: 80 }] },
    });
    expect(toClusterIP.status).toBe(200);
    const ips = toClusterIP.body.spec.clusterIPs!;
    expect(ips.map(familyOf)).toEqual(['IPv4', 'IPv6']);
    const back = await patchService('ext', { spec: { type: 'ExternalName', externalName: 'x.example.com' } });
    expect(back.body.spec).not.toHaveProperty('clusterIPs');
    expect(back.body.spec).not.toHaveProperty('ipFamilies');
    for (const ip of ips)
      expect((await server.request('GET', `/apis/networking.k8s.io/v1/ipaddresses/${ip}`, {})).status).toBe(404);

    const gone = (await createService('gone', { ipFamilyPolicy: 'RequireDualStack' })).body.spec.clusterIPs!;
    expect((await server.request('DELETE', '/api/v1/namespaces/default/services/gone', {})).status).toBe(200);
    for (const ip of gone)
      expect((await server.request('GET', `/apis/networking.k8s.io/v1/ipaddresses/${ip}`, {})).status).toBe(404);
  });

  test('kubectl lists the IPAddress objects with their parents', async () => {
    const { body } = await createService('listed', { ipFamilyPolicy: 'PreferDualStack' });
    const listed = await server.kubectl([
      'get',
      'ipaddresses',
      '-o',
      'custom-columns=NAME:.metadata.name,PARENT:.spec.parentRef.name,FAMILY:.metadata.labels.ipaddress\\.kubernetes\\.io/ip-family',
      '--no-headers',
    ]);
    expect(listed.code).toBe(0);
    const rows = listed.stdout
      .trim()
      .split('\n')
      .map((line) => line.trim().split(/\s+/));
    for (const ip of body.spec.clusterIPs!) expect(rows).toContainEqual([ip, 'listed', familyOf(ip)]);
  });
});

test('the repair gives a Service back its lost IPAddress and removes one no Service holds, on its second sight', async () => {
  const find = (group: string, resource: string) => server.plane.registry.find({ group, version: 'v1' }, resource)!;
  const ipAddresses = server.plane.storageFor(find('networking.k8s.io', 'ipaddresses'));
  const { body } = await createService('repaired', { ipFamilyPolicy: 'RequireDualStack' });
  const [v4, v6] = body.spec.clusterIPs!;
  // Lost: the Service's IPv6 address object. Leaked: an address no Service holds.
  await ipAddresses.delete({ name: v6 });
  const leaked = 'fd00:10:96::abc';
  await ipAddresses.create(
    { name: leaked },
    {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'IPAddress',
      metadata: {
        name: leaked,
        labels: {
          'ipaddress.kubernetes.io/ip-family': 'IPv6',
          'ipaddress.kubernetes.io/managed-by': 'ipallocator.k8s.io',
        },
      },
      spec: { parentRef: { group: '', resource: 'services', namespace: 'default', name: 'never-stored' } },
    },
  );
  const allocator = new ClusterIPAllocator({
    reservations: ipAddressReservations(ipAddresses),
    ranges: parseServiceIPRanges('10.96.0.0/12,fd00:10:96::/112', { limitSize: false }),
  });
  const logged: string[] = [];
  const repair = new ServiceIPRepair({
    services: server.plane.storageFor(find('', 'services')),
    ipAddresses,
    allocator,
    removeAddress: async (name) => void (await ipAddresses.delete({ name })),
    log: (line) => logged.push(line),
  });
  await repair.runOnce();
  expect((await ipAddresses.get({ name: v6 })).spec).toEqual({
    parentRef: { resource: 'services', namespace: 'default', name: 'repaired' },
  });
  expect((await ipAddresses.get({ name: leaked })).metadata.name).toBe(leaked);
  await repair.runOnce();
  await expect(ipAddresses.get({ name: leaked })).rejects.toThrow('not found');
  expect((await ipAddresses.get({ name: v4 })).metadata.name).toBe(v4);
  expect(logged).toEqual([
    `the ClusterIP ${v6} for Service default/repaired is not allocated; repairing`,
    `the IPAddress ${leaked} has no Service holding it: removing it`,
  ]);
});

test("a dry run shows the ranges' network addresses for the addresses to pick, and takes none", async () => {
  const before = (await getJson<{ items: unknown[] }>('/apis/networking.k8s.io/v1/ipaddresses')).items.length;
  const body = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'dry' },
    spec: { ipFamilyPolicy: 'PreferDualStack', ports: [{ port: 80 }] },
  };
  const answer = await server.request('POST', '/api/v1/namespaces/default/services?dryRun=All', {
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
  expect(answer.status).toBe(201);
  expect(answer.json<ServiceShape>().spec).toMatchObject({
    clusterIP: '10.96.0.0',
    clusterIPs: ['10.96.0.0', 'fd00:10:96::'],
    ipFamilies: ['IPv4', 'IPv6'],
    ipFamilyPolicy: 'PreferDualStack',
  });
  expect((await getJson<{ items: unknown[] }>('/apis/networking.k8s.io/v1/ipaddresses')).items.length).toBe(before);
});
