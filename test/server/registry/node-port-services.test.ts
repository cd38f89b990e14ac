/**
 * NodePort and LoadBalancer Services on a whole replica, over HTTPS: node ports in the range of
 * `--service-node-port-range`, as asked or at random; a taken port or one outside the range is
 * the reference's 422; ports come back on delete and on a change of type; updates take ports
 * too; health check ports; `allocateLoadBalancerNodePorts: false`; and the repair pass that
 * rebuilds the bitmap from the Services. Messages are the ones a 1.34 kube-apiserver answers.
 */
import { NodePortRepair } from '../../../server/controllers/node-port-repair';
import { SharedPortBitmap } from '../../../server/registry/allocators/port-bitmap';
import { parsePortRange } from '../../../server/config/port-range';
import { inProcessServerForSuite, startInProcessServer, type InProcessServer } from '../../helpers/in-process-server';
import { waitFor } from '../../helpers/wait-for';

interface Port {
  name?: string;
  port: number;
  protocol?: string;
  nodePort?: number;
}
interface ServiceSpec {
  type?: string;
  ports?: Port[];
  externalTrafficPolicy?: string;
  healthCheckNodePort?: number;
  allocateLoadBalancerNodePorts?: boolean;
}
interface Service {
  metadata: { name: string; resourceVersion?: string };
  spec: ServiceSpec;
}
interface Status {
  code: number;
  reason: string;
  message: string;
  details?: { causes?: { field: string }[] };
}

const RANGE = '30000-30999';
const BITMAP_KEY = '/registry/ranges/servicenodeports';
const server = inProcessServerForSuite([`--service-node-port-range=${RANGE}`]);

/** Node ports are handed out once the first repair pass wrote the bitmap, which readiness waits for. */
async function ready<Replica extends Pick<InProcessServer, 'request'>>(replica: Replica): Promise<Replica> {
  await waitFor(
    'the replica to be ready',
    async () => ((await replica.request('GET', '/readyz')).status === 200 ? true : undefined),
    30_000,
    50,
  );
  return replica;
}

beforeAll(() => ready(server));

const path = (name = '') => `/api/v1/namespaces/default/services${name ? `/${name}` : ''}`;

async function create(name: string, spec: ServiceSpec): Promise<{ status: number; service: Service & Status }> {
  const answer = await server.request('POST', path(), {
    body: JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name }, spec }),
    headers: { 'content-type': 'application/json' },
  });
  return { status: answer.status, service: answer.json() };
}

async function patch(
  name: string,
  body: unknown,
  type = 'application/merge-patch+json',
): Promise<{ status: number; service: Service & Status }> {
  const answer = await server.request('PATCH', path(name), {
    body: JSON.stringify(body),
    headers: { 'content-type': type },
  });
  return { status: answer.status, service: answer.json() };
}

async function remove(name: string): Promise<void> {
  expect((await server.request('DELETE', path(name))).status).toBe(200);
}

function bitmap(): SharedPortBitmap {
  return new SharedPortBitmap({ store: server.plane.store, key: BITMAP_KEY, range: parsePortRange(RANGE) });
}

async function takenPorts(): Promise<number[]> {
  return (await bitmap().read()).bitmap.taken();
}

const nodePorts = (service: Service) => (service.spec.ports ?? []).map((port) => port.nodePort);

test('a NodePort Service gets a random node port in the range, held in the shared bitmap', async () => {
  const { status, service } = await create('random', { type: 'NodePort', ports: [{ port: 80 }] });
  expect(status).toBe(201);
  const [nodePort] = nodePorts(service);
  expect(nodePort).toBeGreaterThanOrEqual(30000);
  expect(nodePort).toBeLessThanOrEqual(30999);
  expect(await takenPorts()).toContain(nodePort);
  await remove('random');
  expect(await takenPorts()).not.toContain(nodePort);
});

test('ports of one number share a node port across protocols; each number gets its own', async () => {
  const { service } = await create('shared', {
    type: 'NodePort',
    ports: [
      { name: 'a', port: 53 },
      { name: 'b', port: 53, protocol: 'UDP' },
      { name: 'c', port: 54 },
    ],
  });
  const [a, b, c] = nodePorts(service);
  expect(a).toBe(b);
  expect(c).not.toBe(a);
  await remove('shared');
});

test('a port asked for is given; asked again it is the reference 422, as is one outside the range', async () => {
  expect(
    nodePorts((await create('first', { type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }] })).service),
  ).toEqual([30080]);
  const taken = await create('second', { type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }] });
  expect(taken.status).toBe(422);
  expect(taken.service).toMatchObject({
    reason: 'Invalid',
    message:
      'Service "second" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated',
  });
  expect(taken.service.details?.causes?.[0].field).toBe('spec.ports[0].nodePort');
  for (const port of [80, 31000, 70000]) {
    const outside = await create('second', { type: 'NodePort', ports: [{ port: 80, nodePort: port }] });
    expect(outside.status).toBe(422);
    expect(outside.service.message).toBe(
      `Service "second" is invalid: spec.ports[0].nodePort: Invalid value: ${port}: provided port is not in the valid range. The range of valid ports is 30000-30999`,
    );
  }
  // Two ports of one Service asking for one node port: the second is refused, and the first is given back.
  const twice = await create('twice', {
    type: 'NodePort',
    ports: [
      { name: 'a', port: 80, nodePort: 30081 },
      { name: 'b', port: 81, nodePort: 30081 },
    ],
  });
  expect(twice.service.message).toBe(
    'Service "twice" is invalid: spec.ports[1].nodePort: Invalid value: 30081: provided port is already allocated',
  );
  expect(await takenPorts()).not.toContain(30081);
  await remove('first');
});

test('a deleted Service gives its port back: another may take it at once', async () => {
  await create('holder', { type: 'NodePort', ports: [{ port: 80, nodePort: 30100 }] });
  await remove('holder');
  expect((await create('next', { type: 'NodePort', ports: [{ port: 80, nodePort: 30100 }] })).status).toBe(201);
  await remove('next');
});

test('NodePort to ClusterIP drops the node ports and gives them back; ClusterIP to NodePort takes new ones', async () => {
  await create('changes', { type: 'NodePort', ports: [{ port: 80, nodePort: 30200 }] });
  const toClusterIP = await patch('changes', { spec: { type: 'ClusterIP' } });
  expect(toClusterIP.status).toBe(200);
  expect(toClusterIP.service.spec).not.toHaveProperty('externalTrafficPolicy');
  expect(nodePorts(toClusterIP.service)).toEqual([undefined]);
  expect(await takenPorts()).not.toContain(30200);

  const toNodePort = await patch('changes', { spec: { type: 'NodePort' } });
  const [picked] = nodePorts(toNodePort.service);
  expect(picked).toBeGreaterThanOrEqual(30000);
  expect(await takenPorts()).toContain(picked);

  // A nodePort left out of an update keeps the one held; one moved to a taken port is refused.
  const current = (await server.request('GET', path('changes'))).json<Service>();
  delete current.spec.ports![0].nodePort;
  const put = await server.request('PUT', path('changes'), {
    body: JSON.stringify(current),
    headers: { 'content-type': 'application/json' },
  });
  expect(nodePorts(put.json<Service>())).toEqual([picked]);
  await create('other', { type: 'NodePort', ports: [{ port: 80, nodePort: 30201 }] });
  const moved = await patch(
    'changes',
    [{ op: 'replace', path: '/spec/ports/0/nodePort', value: 30201 }],
    'application/json-patch+json',
  );
  expect(moved.service.message).toBe(
    'Service "changes" is invalid: spec.ports[0].nodePort: Invalid value: 30201: provided port is already allocated',
  );
  // Moved to a free one: the new port is taken, the old one given back.
  expect(
    (
      await patch(
        'changes',
        [{ op: 'replace', path: '/spec/ports/0/nodePort', value: 30202 }],
        'application/json-patch+json',
      )
    ).status,
  ).toBe(200);
  const taken = await takenPorts();
  expect(taken).toContain(30202);
  expect(taken).not.toContain(picked);
  await remove('changes');
  await remove('other');
});

test('a nodePort on a ClusterIP Service, and the type-bound fields, are refused with the reference messages', async () => {
  const cases: [ServiceSpec, string][] = [
    [
      { ports: [{ port: 80, nodePort: 30500 }] },
      "spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'",
    ],
    [
      { ports: [{ port: 80 }], healthCheckNodePort: 30500 },
      "spec.healthCheckNodePort: Invalid value: 30500: may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'",
    ],
    [
      { ports: [{ port: 80 }], externalTrafficPolicy: 'Local' },
      'spec.externalTrafficPolicy: Invalid value: "Local": may only be set for externally-accessible services',
    ],
    [
      { ports: [{ port: 80 }], allocateLoadBalancerNodePorts: true },
      "spec.allocateLoadBalancerNodePorts: Forbidden: may only be used when `type` is 'LoadBalancer'",
    ],
  ];
  for (const [spec, message] of cases) {
    const { status, service } = await create('refused', spec);
    expect(status).toBe(422);
    expect(service.message).toBe(`Service "refused" is invalid: ${message}`);
  }
});

test('a LoadBalancer with externalTrafficPolicy Local gets a health check port, kept, changed only through the policy', async () => {
  const { service } = await create('lb', {
    type: 'LoadBalancer',
    externalTrafficPolicy: 'Local',
    ports: [{ port: 80 }],
  });
  const first = service.spec.healthCheckNodePort!;
  expect(await takenPorts()).toEqual(expect.arrayContaining([first, ...nodePorts(service)]));
  // Asked for while held: the reference answers 500 here, not 422.
  const taken = await create('lb2', {
    type: 'LoadBalancer',
    externalTrafficPolicy: 'Local',
    healthCheckNodePort: first,
    ports: [{ port: 80 }],
  });
  expect(taken.status).toBe(500);
  expect(taken.service.message).toBe(
    `Internal error occurred: failed to allocate requested HealthCheck NodePort ${first}: provided port is already allocated`,
  );
  expect((await patch('lb', { spec: { healthCheckNodePort: 30444 } })).service.message).toBe(
    'Service "lb" is invalid: spec.healthCheckNodePort: Forbidden: field is immutable',
  );

  const cluster = await patch('lb', { spec: { externalTrafficPolicy: 'Cluster' } });
  expect(cluster.service.spec).not.toHaveProperty('healthCheckNodePort');
  expect(await takenPorts()).not.toContain(first);
  const local = await patch('lb', { spec: { externalTrafficPolicy: 'Local' } });
  expect(await takenPorts()).toContain(local.service.spec.healthCheckNodePort);
  await remove('lb');
  expect(await takenPorts()).not.toContain(local.service.spec.healthCheckNodePort);
});

test('allocateLoadBalancerNodePorts false: only the node ports asked for', async () => {
  const { service } = await create('nolb', {
    type: 'LoadBalancer',
    allocateLoadBalancerNodePorts: false,
    ports: [
      { name: 'y', port: 80 },
      { name: 'x', port: 81, nodePort: 30090 },
    ],
  });
  expect(nodePorts(service)).toEqual([undefined, 30090]);
  await remove('nolb');
});

test('the repair rebuilds a lost bitmap from the Services and frees a leaked port after three passes', async () => {
  await create('kept', { type: 'NodePort', ports: [{ port: 80, nodePort: 30300 }] });
  const shared = bitmap();
  // Lost state: the bitmap holds only a port no Service has.
  const { modRevision } = await shared.read();
  const lost = shared.empty();
  lost.allocate(30301);
  expect(await shared.write(lost, modRevision)).toBe(true);

  const logged: string[] = [];
  const repair = new NodePortRepair({
    services: server.plane.storageFor(server.plane.registry.find({ group: '', version: 'v1' }, 'services')!),
    bitmap: shared,
    log: (line) => logged.push(line),
  });
  expect(await repair.runOnce()).toBe(true);
  expect(await takenPorts()).toEqual([30300, 30301]);
  expect(logged).toEqual([
    'the node port 30300 for service default/kept is not allocated; repairing',
    'the node port 30301 may have leaked: flagging for later clean up',
  ]);
  expect(await repair.runOnce()).toBe(true);
  expect(await takenPorts()).toEqual([30300, 30301]);
  expect(await repair.runOnce()).toBe(true);
  expect(await takenPorts()).toEqual([30300]);
  expect(logged).toContain('the node port 30301 appears to have leaked: cleaning up');
  // The taken port is refused again, as before the loss.
  expect((await create('again', { type: 'NodePort', ports: [{ port: 80, nodePort: 30300 }] })).status).toBe(422);
  await remove('kept');
});

test('a full range is the reference 500', async () => {
  const small = await ready(await startInProcessServer(['--service-node-port-range=31000+1']));
  try {
    const post = (name: string) =>
      small.request('POST', path(), {
        body: JSON.stringify({
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name },
          spec: { type: 'NodePort', ports: [{ port: 80 }] },
        }),
        headers: { 'content-type': 'application/json' },
      });
    expect((await post('one')).status).toBe(201);
    expect((await post('two')).status).toBe(201);
    const full = await post('three');
    expect(full.status).toBe(500);
    expect(full.json<Status>().message).toBe('Internal error occurred: failed to allocate a nodePort: range is full');
  } finally {
    await small.stop();
  }
});

test('a dry run takes nothing and answers as the reference dry run does', async () => {
  await create('held', { type: 'NodePort', ports: [{ port: 80, nodePort: 30077 }] });
  const before = await takenPorts();
  const dryRun = async (spec: ServiceSpec) => {
    const answer = await server.request('POST', `${path()}?dryRun=All`, {
      body: JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'dry' }, spec }),
      headers: { 'content-type': 'application/json' },
    });
    return { status: answer.status, service: answer.json<Service & Status>() };
  };
  // Picks are made-up ports after 32768, or after the highest asked for.
  const lb = await dryRun({ type: 'LoadBalancer', externalTrafficPolicy: 'Local', ports: [{ port: 80 }] });
  expect(lb.status).toBe(201);
  expect(nodePorts(lb.service)).toEqual([32769]);
  expect(lb.service.spec.healthCheckNodePort).toBe(32770);
  expect(
    nodePorts(
      (
        await dryRun({
          type: 'NodePort',
          ports: [
            { name: 'a', port: 80, nodePort: 30001 },
            { name: 'b', port: 81 },
          ],
        })
      ).service,
    ),
  ).toEqual([30001, 30002]);
  const taken = await dryRun({ type: 'NodePort', ports: [{ port: 80, nodePort: 30077 }] });
  expect(taken.service.message).toBe(
    'Service "dry" is invalid: spec.ports[0].nodePort: Invalid value: 30077: provided port is already allocated',
  );
  expect(await takenPorts()).toEqual(before);
  expect((await server.request('GET', path('dry'))).status).toBe(404);
  await remove('held');
});

test("ports the server fills on an update are no manager's, as the reference records ownership before allocating", async () => {
  await create('owned', { ports: [{ port: 80 }] });
  const toNodePort = await patch('owned', { spec: { type: 'NodePort' } });
  expect(nodePorts(toNodePort.service)[0]).toBeGreaterThanOrEqual(30000);
  const managedFields = (toNodePort.service as unknown as { metadata: { managedFields: unknown[] } }).metadata
    .managedFields;
  expect(JSON.stringify(managedFields)).toContain('f:type');
  expect(JSON.stringify(managedFields)).not.toContain('f:nodePort');
  await remove('owned');
});

test("a deleted Service's Endpoints go with it, as the reference removes them", async () => {
  await create('with-endpoints', { ports: [{ port: 80 }] });
  const endpoints = {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name: 'with-endpoints' },
    subsets: [{ addresses: [{ ip: '10.1.2.3' }], ports: [{ port: 80 }] }],
  };
  const created = await server.request('POST', '/api/v1/namespaces/default/endpoints', {
    body: JSON.stringify(endpoints),
    headers: { 'content-type': 'application/json' },
  });
  expect(created.status).toBe(201);
  await remove('with-endpoints');
  expect((await server.request('GET', '/api/v1/namespaces/default/endpoints/with-endpoints')).status).toBe(404);
  // A Service without Endpoints deletes as well.
  await create('without-endpoints', { ports: [{ port: 80 }] });
  await remove('without-endpoints');
});
