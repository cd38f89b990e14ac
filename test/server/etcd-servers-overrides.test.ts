/**
 * `--etcd-servers-overrides`: a resource named there is stored on its own etcd, the rest on
 * `--etcd-servers`. Two real etcd processes, a whole replica in process, and each etcd read
 * directly to see where the objects went.
 */
import { startEtcd, type EtcdServer } from '../helpers/etcd';
import { startInProcessServer, type InProcessServer } from '../helpers/in-process-server';
import { openEtcdStore } from '../../storage/etcd/etcd-store';
import type { RevisionedStore } from '../../storage/store';
import { waitUntil } from '../helpers/wait-for';

let main: EtcdServer;
let events: EtcdServer;
let server: InProcessServer;
let mainStore: RevisionedStore;
let eventsStore: RevisionedStore;

beforeAll(async () => {
  [main, events] = await Promise.all([startEtcd(), startEtcd()]);
  server = await startInProcessServer([
    '--etcd-servers',
    main.endpoints[0],
    '--etcd-servers-overrides',
    `/events#${events.endpoints[0]}`,
    // Short, so that the test sees both stores compacted.
    '--etcd-compaction-interval=1s',
  ]);
  mainStore = await openEtcdStore({ endpoints: main.endpoints });
  eventsStore = await openEtcdStore({ endpoints: events.endpoints });
});

afterAll(async () => {
  await server?.stop();
  await Promise.all([mainStore?.close(), eventsStore?.close()]);
  await Promise.all([main?.stop(), events?.stop()]);
});

async function keysUnder(store: RevisionedStore, prefix: string): Promise<string[]> {
  const { kvs } = await store.range({ prefix });
  return kvs.map(({ key }) => key);
}

function event(name: string) {
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, namespace: 'default' },
    involvedObject: { kind: 'ConfigMap', namespace: 'default', name: 'c1' },
    reason: 'Tested',
    message: 'stored on the events etcd',
    type: 'Normal',
  };
}

test('Events (both core and events.k8s.io) go to the override etcd; everything else stays on --etcd-servers', async () => {
  const created = await server.request('POST', '/api/v1/namespaces/default/events', {
    body: JSON.stringify(event('e1')),
    headers: { 'content-type': 'application/json' },
  });
  expect(created.status).toBe(201);
  const viaEventsGroup = {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: { name: 'e2', namespace: 'default' },
    eventTime: '2026-01-01T00:00:00.000000Z',
    reportingController: 'capstan.test/tester',
    reportingInstance: 'tester-1',
    action: 'Testing',
    reason: 'Tested',
    regarding: { kind: 'ConfigMap', namespace: 'default', name: 'c1' },
    type: 'Normal',
  };
  const createdInGroup = await server.request('POST', '/apis/events.k8s.io/v1/namespaces/default/events', {
    body: JSON.stringify(viaEventsGroup),
    headers: { 'content-type': 'application/json' },
  });
  expect(createdInGroup.status).toBe(201);
  const configMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'c1', namespace: 'default' },
    data: { a: 'b' },
  };
  expect(
    (
      await server.request('POST', '/api/v1/namespaces/default/configmaps', {
        body: JSON.stringify(configMap),
        headers: { 'content-type': 'application/json' },
      })
    ).status,
  ).toBe(201);

  expect(await keysUnder(eventsStore, '/registry/events/')).toEqual([
    '/registry/events/default/e1',
    '/registry/events/default/e2',
  ]);
  expect(await keysUnder(mainStore, '/registry/events/')).toEqual([]);
  expect(await keysUnder(mainStore, '/registry/configmaps/default/')).toEqual(['/registry/configmaps/default/c1']);
  expect(await keysUnder(eventsStore, '/registry/configmaps/')).toEqual([]);

  // An Event's resourceVersion is a revision of the events etcd: its mod revision there.
  const { kv } = await eventsStore.get('/registry/events/default/e1');
  expect(created.json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion).toBe(
    String(kv?.modRevision),
  );
  // Reads and lists are served from that etcd's watch cache, whatever the version asked.
  const listed = await server.request('GET', '/api/v1/namespaces/default/events?resourceVersion=0', {});
  expect(listed.json<{ items: { metadata: { name: string } }[] }>().items.map((item) => item.metadata.name)).toEqual([
    'e1',
    'e2',
  ]);
  const consistent = await server.request('GET', '/apis/events.k8s.io/v1/namespaces/default/events', {});
  expect(consistent.status).toBe(200);
  expect(
    consistent.json<{ items: { metadata: { name: string } }[] }>().items.map((item) => item.metadata.name),
  ).toEqual(['e1', 'e2']);
});

test('each location is checked by /readyz and /healthz, named as the reference names them', async () => {
  const ready = await server.request('GET', '/readyz?verbose', {});
  expect(ready.body).toContain('[+]etcd ok');
  expect(ready.body).toContain('[+]etcd-override-0 ok');
  expect(ready.body).toContain('[+]etcd-override-readiness-0 ok');
  const healthy = await server.request('GET', '/healthz?verbose', {});
  expect(healthy.body).toContain('[+]etcd-override-0 ok');
  expect(healthy.body).not.toContain('etcd-override-readiness-0');
});

test('each etcd is compacted, each through its own compact_rev_key', async () => {
  const compacted = async (store: RevisionedStore) =>
    (await store.compactedRevision()) > 0 && (await store.get('compact_rev_key')).kv !== undefined;
  await waitUntil(
    'both etcds compacted',
    async () => (await compacted(mainStore)) && (await compacted(eventsStore)),
    15_000,
    200,
  );
});
