/**
 * Two replicas (each its own etcd client, feed and caches) on one real etcd: what one writes the
 * other reads consistently and watches; conflicts are the store's; compaction done by one
 * expires old watches on the other; a watch resumed on another replica after its first replica
 * stopped neither misses nor repeats an event, also when that replica started after the events
 * the client missed (served from etcd's history); a feed survives an etcd restart.
 */
import { Compactor } from '../../../storage/compactor';
import { openEtcdStore } from '../../../storage/etcd/etcd-store';
import { ObjectError } from '../../../storage/errors';
import { ResourceStore } from '../../../storage/objects/resource-store';
import { EVERYTHING, type ObjectWatch, type ObjectWatchEvent } from '../../../storage/objects/types';
import type { RevisionedStore } from '../../../storage/store';
import { type EtcdServer, startEtcd } from '../../helpers/etcd';
import { freshPrefix } from '../objects/backends';
import { readWatch } from '../objects/watch-reader';
import { podsResource, type Replica, startReplica } from './replica';
import { waitUntil } from '../../helpers/wait-for';

import type { KubeObject } from '../../../api/objects';
function pod(name: string, n = 0): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'ns' }, spec: { n } };
}

const rvOf = (object: KubeObject): number => Number(object.metadata.resourceVersion);

// These tests are about what replicas share, not about dropping slow readers (watch-cache.test.ts
// covers that): a buffer no test can fill keeps a reader starved by a loaded machine in the game.
const REPLICA_TUNING = { tooLargeWaitMs: 500, watcherBufferSize: 10_000 };

describe('watch caches of two replicas on one etcd', () => {
  let etcd: EtcdServer;
  const clients: RevisionedStore[] = [];
  const replicas: Replica[] = [];

  beforeAll(async () => {
    etcd = await startEtcd();
  });
  afterEach(() => {
    for (const replica of replicas.splice(0)) replica.stop();
  });
  afterAll(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await etcd.stop();
  });

  async function connect(): Promise<RevisionedStore> {
    const client = await openEtcdStore({ endpoints: etcd.endpoints });
    clients.push(client);
    return client;
  }

  async function oneReplica(keyPrefix: string): Promise<Replica> {
    const replica = await startReplica({
      store: await connect(),
      resources: [podsResource(keyPrefix)],
      tuning: REPLICA_TUNING,
    });
    replicas.push(replica);
    return replica;
  }

  async function twoReplicas(keyPrefix: string) {
    const started = await Promise.all(
      [0, 1].map(async () =>
        startReplica({ store: await connect(), resources: [podsResource(keyPrefix)], tuning: REPLICA_TUNING }),
      ),
    );
    replicas.push(...started); // in start order: replicas[0] serves the first cache
    return started.map((replica) => replica.cacheFor(keyPrefix));
  }

  /** Creates, updates and now and then deletes pods, one after another; records each write's revision. */
  function startWrites(writer: ResourceStore): { written: number[]; done: Promise<void> } {
    const written: number[] = [];
    const done = (async () => {
      for (let i = 0; i < 120; i++) {
        const name = `p${i % 7}`;
        const result = await writer.update(
          { namespace: 'ns', name },
          (current) => ({ ...(current ?? pod(name)), spec: { n: i } }),
          { allowCreate: true },
        );
        written.push(rvOf(result.object));
        if (i % 5 === 4) written.push(rvOf(await writer.delete({ namespace: 'ns', name })));
      }
    })();
    return { written, done };
  }

  /** Reads `count` events, stops `replica`, then reads what it still delivers before its watch ends. */
  async function readUntilStopped(
    watch: ObjectWatch,
    options: { count: number; replica: Replica },
  ): Promise<ObjectWatchEvent[]> {
    const reader = readWatch(watch);
    const seen = await reader.take(options.count);
    options.replica.stop();
    for (let i = 0; i < 1_000; i++) {
      const event = await reader.next();
      if (event === 'end') break;
      seen.push(event);
    }
    return seen;
  }

  /** Follows `watch` until it has delivered the last write, then checks `seen` against the store's own history. */
  async function expectWholeHistory(check: {
    seen: ObjectWatchEvent[];
    resumed: ObjectWatch;
    writes: { written: number[]; done: Promise<void> };
    writer: ResourceStore;
    start: KubeObject;
  }) {
    const { seen, writes, writer } = check;
    const resumed = readWatch(check.resumed);
    expect(writes.written.length).toBeLessThan(140); // still writing: the resumed watch catches up, then follows live
    await writes.done;
    const finalRevision = writes.written[writes.written.length - 1];
    for (let i = 0; i < 2_000 && rvOfEvent(seen[seen.length - 1]) < finalRevision; i++)
      seen.push(...(await resumed.take(1)));
    check.resumed.stop();

    // The store's own history of the prefix, watched directly from the same start.
    const historyWatch = await writer.watch(
      {},
      { resourceVersion: check.start.metadata.resourceVersion, predicate: EVERYTHING },
    );
    const expected = await readWatch(historyWatch).take(writes.written.length);
    historyWatch.stop();
    expect(seen.map(describeEvent)).toEqual(expected.map(describeEvent));
    expect(seen.map(rvOfEvent)).toEqual(writes.written);
  }

  it('reads and watches on one what the other wrote; a stale update is 409 on either', async () => {
    const keyPrefix = freshPrefix('pods');
    const [one, two] = await twoReplicas(keyPrefix);
    const watch = await two.watch({ namespace: 'ns' }, { resourceVersion: '0', predicate: EVERYTHING });
    const reader = readWatch(watch);

    const created = await one.create({ namespace: 'ns', name: 'a' }, pod('a'));
    const list = await two.list({ namespace: 'ns' }, { predicate: EVERYTHING });
    expect(list.items).toEqual([created]);
    expect(await reader.take(1)).toEqual([{ type: 'ADDED', object: created }]);

    const updated = await two.update({ namespace: 'ns', name: 'a' }, (current) => ({
      ...(current as KubeObject),
      spec: { n: 1 },
    }));
    for (const cache of [one, two]) {
      const stale = cache.update(
        { namespace: 'ns', name: 'a' },
        (current) => ({ ...(current as KubeObject), spec: { n: 2 } }),
        { preconditions: { resourceVersion: created.metadata.resourceVersion } },
      );
      await expect(stale).rejects.toMatchObject({ reason: 'Conflict' });
    }
    // A modification carries the state before it, as the cache holds it.
    expect(await reader.take(1)).toEqual([{ type: 'MODIFIED', object: updated.object, previous: created }]);
    const fromOne = await one.list({ namespace: 'ns' }, { predicate: EVERYTHING });
    expect(fromOne.items).toEqual([updated.object]);
    watch.stop();
  });

  it('expires a watch from before the compaction on the replica that did not compact', async () => {
    const keyPrefix = freshPrefix('pods');
    const [one, two] = await twoReplicas(keyPrefix);
    const first = await one.create({ namespace: 'ns', name: 'a' }, pod('a'));
    await one.create({ namespace: 'ns', name: 'b' }, pod('b'));

    // The first replica's compactor: its first tick records a revision, its second compacts to it.
    const compacted: number[] = [];
    const compactor = new Compactor({
      store: replicas[0].store,
      intervalMs: 100,
      onCompacted: (revision) => compacted.push(revision),
    });
    compactor.start();
    try {
      await waitUntil('a compaction', () => compacted.length > 0, 3_000, 10);
    } finally {
      await compactor.stop();
    }
    const target = compacted[0];
    expect(target).toBeGreaterThan(rvOf(first));
    await waitUntil('the compaction in the cache window', () => two.stats().windowStart >= target - 1, 3_000, 10);

    const watch = await two.watch({}, { resourceVersion: String(rvOf(first) - 1), predicate: EVERYTHING });
    const event = await readWatch(watch).next();
    expect(event !== 'end' && event.type).toBe('ERROR');
    const error = (event as { error: Error }).error as ObjectError;
    expect([error.reason, error.message]).toEqual([
      'Expired',
      `too old resource version: ${rvOf(first) - 1} (${target - 1})`,
    ]);
    const exact = two.list(
      {},
      { resourceVersion: String(rvOf(first)), resourceVersionMatch: 'Exact', predicate: EVERYTHING },
    );
    await expect(exact).rejects.toMatchObject({ reason: 'Expired' });
  });

  it('resumes a watch on another replica after the first stopped, missing and repeating nothing', async () => {
    const keyPrefix = freshPrefix('pods');
    const [one, two] = await twoReplicas(keyPrefix);
    const writer = new ResourceStore({ store: replicas[1].store, ...podsResource(keyPrefix) });
    const start = await writer.create({ namespace: 'ns', name: 'seed' }, pod('seed'));

    // Writes go on, concurrently, while the first replica serves the watch and then stops.
    const writes = startWrites(writer);
    const firstWatch = await one.watch({}, { resourceVersion: start.metadata.resourceVersion, predicate: EVERYTHING });
    const seen = await readUntilStopped(firstWatch, { count: 20, replica: replicas[0] });
    expect(one.stats().watchers).toBe(0);

    const lastSeen = (seen[seen.length - 1] as { object: KubeObject }).object.metadata.resourceVersion;
    const resumed = await two.watch({}, { resourceVersion: lastSeen, predicate: EVERYTHING });
    expect(two.stats().historyWatches).toBe(0); // from the ring
    await expectWholeHistory({ seen, resumed, writes, writer, start });
  });

  it('resumes a watch on a replica that started after the events the client missed, from etcd history', async () => {
    const keyPrefix = freshPrefix('pods');
    const first = await oneReplica(keyPrefix);
    const writer = new ResourceStore({ store: await connect(), ...podsResource(keyPrefix) });
    const start = await writer.create({ namespace: 'ns', name: 'seed' }, pod('seed'));

    const writes = startWrites(writer);
    const firstWatch = await first
      .cacheFor(keyPrefix)
      .watch({}, { resourceVersion: start.metadata.resourceVersion, predicate: EVERYTHING });
    const seen = await readUntilStopped(firstWatch, { count: 20, replica: first });
    const lastSeen = rvOfEvent(seen[seen.length - 1]);

    // A rolling restart: the second replica starts only now, its first list after writes the client has not seen.
    await waitUntil('a write the client has not seen', () => (writes.written.at(-1) ?? 0) > lastSeen, 3_000, 10);
    const second = (await oneReplica(keyPrefix)).cacheFor(keyPrefix);
    expect(second.stats().windowStart).toBeGreaterThan(lastSeen);
    const resumed = await second.watch({}, { resourceVersion: String(lastSeen), predicate: EVERYTHING });
    expect(second.stats().historyWatches).toBe(1);
    await expectWholeHistory({ seen, resumed, writes, writer, start });
  });

  it('keeps serving watches across an etcd restart without losing events', async () => {
    const keyPrefix = freshPrefix('pods');
    const [one] = await twoReplicas(keyPrefix);
    const watch = await one.watch({}, { resourceVersion: '0', predicate: EVERYTHING });
    const reader = readWatch(watch);
    await etcd.kill();
    await etcd.restart();
    const writer = new ResourceStore({ store: await connect(), ...podsResource(keyPrefix) });
    const created = await writer.create({ namespace: 'ns', name: 'after' }, pod('after'));
    expect(await reader.take(1, 15_000)).toEqual([{ type: 'ADDED', object: created }]);
    const list = await one.list({}, { predicate: EVERYTHING });
    expect(list.items).toEqual([created]);
    watch.stop();
  }, 30_000);
});

function rvOfEvent(event: ObjectWatchEvent): number {
  return event.type === 'ERROR' ? -1 : rvOf(event.object);
}

function describeEvent(event: ObjectWatchEvent): string {
  return event.type === 'ERROR'
    ? `ERROR ${event.error.message}`
    : `${event.type} ${event.object.metadata.name}@${event.object.metadata.resourceVersion} ${JSON.stringify(event.object.spec)}`;
}
