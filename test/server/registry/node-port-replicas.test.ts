/**
 * Two capstan processes on one etcd hand out node ports from one bitmap: 200 NodePort Services
 * created through both at once (20 requests in flight) never share a port, and the bitmap in
 * etcd holds exactly their ports. A replica started after the bitmap was lost rebuilds it from
 * the Services before it says it is ready, so a held port stays refused.
 */
import { randomUUID } from 'node:crypto';
import { openEtcdStore } from '../../../storage/etcd/etcd-store';
import { SharedPortBitmap } from '../../../server/registry/allocators/port-bitmap';
import { DEFAULT_NODE_PORT_RANGE, parsePortRange } from '../../../server/config/port-range';
import { startEtcd, type EtcdServer } from '../../helpers/etcd';
import { startServer, type TestServer } from '../../helpers/server';

const SERVICES = 200;
const IN_FLIGHT = 20;

let etcd: EtcdServer;
const replicas: TestServer[] = [];

beforeAll(async () => {
  etcd = await startEtcd();
});
afterAll(async () => {
  await Promise.all(replicas.map((replica) => replica.stop()));
  await etcd.stop();
});

/** Runs `task(i)` for i in [0, count) with at most `limit` at once. */
async function bounded(count: number, limit: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

function createService(replica: TestServer, name: string, nodePort?: number) {
  const body = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name },
    spec: { type: 'NodePort', ports: [{ port: 80, ...(nodePort ? { nodePort } : {}) }] },
  };
  return replica.request('POST', '/api/v1/namespaces/default/services', {
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
}

test('two replicas creating 200 NodePort Services at once never give one port twice; a restart repairs a lost bitmap', async () => {
  const prefix = `/np-${randomUUID()}`;
  replicas.push(
    ...(await Promise.all([0, 1].map(() => startServer({ etcdServers: etcd.endpoints, etcdPrefix: prefix })))),
  );

  const ports = new Map<string, number>();
  await bounded(SERVICES, IN_FLIGHT, async (i) => {
    const name = `svc-${i}`;
    const answer = await createService(replicas[i % 2], name);
    expect(answer.status).toBe(201);
    ports.set(name, answer.json<{ spec: { ports: { nodePort: number }[] } }>().spec.ports[0].nodePort);
  });
  const given = [...ports.values()];
  expect(given).toHaveLength(SERVICES);
  expect(new Set(given).size).toBe(SERVICES);

  const store = await openEtcdStore({ endpoints: etcd.endpoints });
  try {
    const shared = new SharedPortBitmap({
      store,
      key: `${prefix}/ranges/servicenodeports`,
      range: parsePortRange(DEFAULT_NODE_PORT_RANGE),
    });
    const stored = await shared.read();
    expect(stored.bitmap.taken()).toEqual([...given].sort((a, b) => a - b));

    // Both replicas gone, and the bitmap with them: a new replica rebuilds it before it is ready.
    await Promise.all(replicas.splice(0).map((replica) => replica.stop()));
    expect(await shared.write(shared.empty(), stored.modRevision)).toBe(true);
    replicas.push(await startServer({ etcdServers: etcd.endpoints, etcdPrefix: prefix }));
    expect((await shared.read()).bitmap.taken()).toEqual([...given].sort((a, b) => a - b));
    const again = await createService(replicas[0], 'again', ports.get('svc-7'));
    expect(again.status).toBe(422);
    expect(again.json<{ message: string }>().message).toBe(
      `Service "again" is invalid: spec.ports[0].nodePort: Invalid value: ${ports.get('svc-7')}: provided port is already allocated`,
    );
  } finally {
    await store.close();
  }
});
