/**
 * Watches from before the cache's ring, over both real backends: a cache that started (or
 * re-listed) after the writes a client last saw serves the client's resume from the store's
 * history, every event in order and then live ones, with the client's selector and timeout; it
 * answers 410 only once that history is compacted, or when too many such watches are open.
 * Lists at such revisions go to the store too.
 */
import { ObjectError } from '../../../storage/errors';
import { LIST_EXPIRED_MESSAGE, ResourceStore } from '../../../storage/objects/resource-store';
import { EVERYTHING, type ObjectWatchEvent, type Predicate } from '../../../storage/objects/types';
import type { RevisionedStore } from '../../../storage/store';
import { BACKENDS, freshPrefix, type RunningBackend } from '../objects/backends';
import { readWatch } from '../objects/watch-reader';
import { podsResource, type Replica, startReplica, writeCompactRevision } from './replica';
import type { WatchCacheTuning } from '../../../storage/cache/watch-cache';
import { waitUntil } from '../../helpers/wait-for';

import type { KubeObject } from '../../../api/objects';
function pod(name: string, options: { labels?: Record<string, string>; n?: number } = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'ns', labels: options.labels ?? {} },
    spec: { n: options.n ?? 0 },
  };
}

const rvOf = (object: KubeObject): number => Number(object.metadata.resourceVersion);
const summary = (events: ObjectWatchEvent[]): string[] =>
  events.map((event) =>
    event.type === 'ERROR'
      ? `ERROR ${event.error.message}`
      : `${event.type} ${event.object.metadata.name ?? ''}@${event.object.metadata.resourceVersion} ${JSON.stringify(event.object.spec ?? null)}`,
  );
const labelled = (app: string): Predicate => ({
  everything: false,
  matches: (object) => object.metadata.labels?.app === app,
});

async function firstError(watch: Parameters<typeof readWatch>[0]): Promise<ObjectError> {
  const reader = readWatch(watch);
  const event = await reader.next();
  if (event === 'end' || event.type !== 'ERROR' || !(event.error instanceof ObjectError))
    throw new Error(`expected an ERROR event, got ${JSON.stringify(event)}`);
  expect(await reader.next()).toBe('end');
  return event.error;
}

describe.each(BACKENDS)('watch cache history on $name', (backend) => {
  let running: RunningBackend;
  let store: RevisionedStore;
  const replicas: Replica[] = [];

  beforeAll(async () => {
    running = await backend.start();
    store = await running.connect();
  });
  afterEach(() => {
    for (const replica of replicas.splice(0)) replica.stop();
  });
  afterAll(() => running.stop());

  /**
   * Writes under a fresh prefix straight to the store (creates, updates, deletes), then starts
   * a replica: its cache's first list is after all of them.
   */
  async function cacheAfterWrites(tuning: WatchCacheTuning = {}) {
    const keyPrefix = freshPrefix('pods');
    const direct = new ResourceStore({ store, ...podsResource(keyPrefix) });
    const seed = await direct.create({ namespace: 'ns', name: 'seed' }, pod('seed'));
    for (let i = 0; i < 12; i++) {
      const name = `p${i % 4}`;
      const labels = { app: i % 3 === 0 ? 'web' : 'db' };
      await direct.update(
        { namespace: 'ns', name },
        (current) => ({
          ...(current ?? pod(name)),
          metadata: { ...(current ?? pod(name)).metadata, labels },
          spec: { n: i },
        }),
        { allowCreate: true },
      );
      if (i % 5 === 4) await direct.delete({ namespace: 'ns', name });
    }
    const replica = await startReplica({
      store,
      resources: [podsResource(keyPrefix)],
      tuning: { tooLargeWaitMs: 300, ...tuning },
    });
    replicas.push(replica);
    const cache = replica.cacheFor(keyPrefix);
    expect(cache.stats().windowStart).toBeGreaterThan(rvOf(seed) + 12);
    return { keyPrefix, direct, seed, replica, cache };
  }

  it('serves a watch from before its first list with every event since, in order, then live ones', async () => {
    const { direct, seed, cache } = await cacheAfterWrites();
    const directWatch = await direct.watch(
      {},
      { resourceVersion: seed.metadata.resourceVersion, predicate: EVERYTHING },
    );
    const history = await readWatch(directWatch).take(14); // 12 writes and 2 deletions
    directWatch.stop();

    const watch = await cache.watch({}, { resourceVersion: seed.metadata.resourceVersion, predicate: EVERYTHING });
    const reader = readWatch(watch);
    expect(summary(await reader.take(history.length))).toEqual(summary(history));
    expect(cache.stats().historyWatches).toBe(1);
    expect(await reader.quietFor(50)).toBe(true);

    const live = await cache.create({ namespace: 'ns', name: 'live' }, pod('live'));
    expect(summary(await reader.take(1))).toEqual(summary([{ type: 'ADDED', object: live }]));
    watch.stop();
    expect(await reader.next()).toBe('end');
    expect(cache.stats().historyWatches).toBe(0);
  });

  it('keeps the selector and the timeout of the watch it serves from the store', async () => {
    const { direct, seed, cache } = await cacheAfterWrites();
    const web = labelled('web');
    const options = {
      resourceVersion: seed.metadata.resourceVersion,
      predicate: web,
      allowWatchBookmarks: true,
      timeoutSeconds: 1,
    };
    const directWatch = await direct.watch({}, { ...options, timeoutSeconds: undefined });
    const history = await readWatch(directWatch).take(8); // 4 entering the selection, 4 leaving it
    directWatch.stop();
    const started = Date.now();
    const reader = readWatch(await cache.watch({ namespace: 'ns' }, options));
    expect(summary(await reader.take(history.length))).toEqual(summary(history));
    expect(history.some((event) => event.type === 'DELETED')).toBe(true);
    expect(await reader.next(3_000)).toBe('end');
    expect(Date.now() - started).toBeGreaterThanOrEqual(990);
    await waitUntil('the history watch to end', () => cache.stats().historyWatches === 0, 3_000, 10);
  });

  it('answers 410 once the revision is compacted, and serves it up to the compacted revision', async () => {
    const { direct, seed, cache } = await cacheAfterWrites();
    // Compact as the compactor does: announce the revision, then compact.
    const compactTo = async (revision: number) => {
      await writeCompactRevision(store, revision);
      await store.compact(revision);
      await waitUntil('the compaction in the cache window', () => cache.stats().windowStart >= revision - 1, 3_000, 10);
    };
    const from = rvOf(seed) + 3;
    await compactTo(from + 1); // a watch from N reads from N + 1: still there
    const directWatch = await direct.watch({}, { resourceVersion: String(from), predicate: EVERYTHING });
    const history = await readWatch(directWatch).take(3);
    directWatch.stop();
    const watch = await cache.watch({}, { resourceVersion: String(from), predicate: EVERYTHING });
    expect(summary(await readWatch(watch).take(3))).toEqual(summary(history));
    watch.stop();

    await compactTo(from + 2);
    const error = await firstError(await cache.watch({}, { resourceVersion: String(from), predicate: EVERYTHING }));
    expect([error.reason, error.message]).toEqual([
      'Expired',
      `too old resource version: ${from} (${cache.stats().windowStart})`,
    ]);
    expect(cache.stats().historyWatches).toBe(0);
  });

  it('answers 410 past maxHistoryWatches open at once, and serves again once one ends', async () => {
    const { seed, cache } = await cacheAfterWrites({ maxHistoryWatches: 1 });
    const options = { resourceVersion: seed.metadata.resourceVersion, predicate: EVERYTHING };
    const [first, second] = await Promise.all([cache.watch({}, options), cache.watch({}, options)]);
    const answers = await Promise.all(
      [first, second].map(async (watch) => {
        const event = await readWatch(watch).next();
        return event !== 'end' && event.type;
      }),
    );
    expect([...answers].sort()).toEqual(['ADDED', 'ERROR']);
    expect(cache.stats().historyWatches).toBe(1);
    first.stop();
    second.stop();
    expect(cache.stats().historyWatches).toBe(0);
    const third = await cache.watch({}, options);
    expect((await readWatch(third).next()) as ObjectWatchEvent).toMatchObject({
      type: 'ADDED',
      object: { metadata: { name: 'p0' } },
    });
    third.stop();
  });

  it('ends its store-served watches when it stops', async () => {
    const { seed, cache } = await cacheAfterWrites();
    const reader = readWatch(
      await cache.watch({}, { resourceVersion: seed.metadata.resourceVersion, predicate: EVERYTHING }),
    );
    await reader.take(1);
    cache.stop();
    for (let i = 0; i < 20; i++) if ((await reader.next()) === 'end') break;
    expect(cache.stats().historyWatches).toBe(0);
  });

  it('serves exact and paged lists from before its first list from the store, 410 once compacted', async () => {
    const { direct, seed, cache } = await cacheAfterWrites();
    const at = String(rvOf(seed) + 5);
    for (const options of [
      { resourceVersion: at, resourceVersionMatch: 'Exact' as const, predicate: EVERYTHING },
      { resourceVersion: at, limit: 1, predicate: EVERYTHING },
    ]) {
      const fromCache = await cache.list({}, options);
      expect(fromCache).toEqual(await direct.list({}, options));
      expect(fromCache.resourceVersion).toBe(at);
    }
    const firstPage = await direct.list({}, { resourceVersion: at, limit: 1, predicate: EVERYTHING });
    const secondPage = await cache.list({}, { continue: firstPage.continue, limit: 1, predicate: EVERYTHING });
    expect(secondPage).toEqual(
      await direct.list({}, { continue: firstPage.continue, limit: 1, predicate: EVERYTHING }),
    );

    const target = await store.currentRevision();
    await writeCompactRevision(store, target);
    await store.compact(target);
    await waitUntil('the compaction in the cache window', () => cache.stats().windowStart >= target - 1, 3_000, 10);
    const expired = cache.list({}, { resourceVersion: at, resourceVersionMatch: 'Exact', predicate: EVERYTHING });
    await expect(expired).rejects.toMatchObject({ reason: 'Expired', message: LIST_EXPIRED_MESSAGE });
  });

  it('serves a watch from before a re-list (after the feed lost events) from the store', async () => {
    const { direct, cache, replica } = await cacheAfterWrites();
    const before = await direct.create({ namespace: 'ns', name: 'before' }, pod('before'));
    expect(await replica.feed.waitForRevision(rvOf(before), 2_000)).toBe(true);
    cache.onReset(); // what the feed calls when it had to restart past a compacted revision
    expect(await cache.whenReady(2_000)).toBe(true);
    expect(cache.stats().windowStart).toBeGreaterThanOrEqual(rvOf(before));

    const from = String(rvOf(before) - 1);
    const watch = await cache.watch({}, { resourceVersion: from, predicate: EVERYTHING });
    const reader = readWatch(watch);
    expect(summary(await reader.take(1))).toEqual(summary([{ type: 'ADDED', object: before }]));
    const live = await cache.create({ namespace: 'ns', name: 'live' }, pod('live'));
    expect(summary(await reader.take(1))).toEqual(summary([{ type: 'ADDED', object: live }]));
    expect(cache.stats().historyWatches).toBe(1);
    watch.stop();
  });
});
