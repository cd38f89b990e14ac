/**
 * The storage benchmark: what the object layer and the watch cache cost on each backend.
 *
 * Per backend, in this order (each figure bounded in count and time):
 * 1. creates/s through ResourceStore, one at a time and 16 in flight (a replica's StoreFeed
 *    runs meanwhile, as in the server, but no cache holds these objects), with JSON values;
 *    then the same with values as the server stores them (protobuf in the `k8s\0` envelope,
 *    server/codec/storage-value.ts) and the bytes each encoding stores per Pod;
 * 2. 10,000 Pods are stored; a fresh process lists them into a WatchCache, and its heap and
 *    RSS growth after a collection is the memory of 10,000 cached objects (cache-memory.ts);
 * 3. gets/s from that cache at resourceVersion "0" and consistent (unset: one store revision
 *    check, shared by the gets in flight, then memory);
 * 4. a full list of the 10,000 at resourceVersion "0" and consistent, median of several;
 * 5. watch fan-out: 1,000 watchers on another resource, sequential updates, time until the
 *    event reached the first and the last watcher;
 * 6. the store client alone, in a fresh process: its idle RSS, and CPU per single-key read
 *    (an etcd Range) and per update (an etcd Txn), see store-client-costs.ts.
 * Each resource has its own key prefix so no step's objects leak into another's figures.
 */
import { StoreFeed } from '../storage/cache/feed';
import { WatchCache } from '../storage/cache/watch-cache';
import { PROTOBUF_MEDIA_TYPE } from '../server/codec/media-type';
import { storageValueCodec } from '../server/codec/storage-value';
import { encodeObject, type ValueCodec } from '../storage/objects/codec';
import { ResourceStore, type ResourceStoreOptions } from '../storage/objects/resource-store';
import { EVERYTHING } from '../storage/objects/types';
import type { RevisionedStore } from '../storage/store';
import type { Benchmark, BenchmarkContext, ResultRow } from './benchmark';
import { type CacheMemory, measureCacheMemory } from './cache-memory';
import { measureThroughput, median, timeRuns, type Throughput } from './measure';
import { benchPod } from './pod';
import { type Backend, ETCD_BACKEND, SQLITE_BACKEND } from './storage-backends';
import { measureStoreClientCosts, type StoreClientCosts } from './store-client-costs';
import { measureWatchLatency } from './watch-latency';
import { BUILTIN_TYPES } from '../server/builtin-types';

const CACHED_OBJECTS = 10_000;
const NAMESPACES = 10;
const WATCHERS = 1_000;
const MB = 1024 * 1024;

type ResourceSpec = Omit<ResourceStoreOptions, 'store'>;

function podsAt(keyPrefix: string): ResourceSpec {
  return { keyPrefix, qualifiedResource: { group: '', resource: 'pods' }, namespaced: true };
}

const CREATED_PODS = podsAt('/registry/bench-created/pods');
const PROTOBUF_PODS = podsAt('/registry/bench-protobuf/pods');
const CACHED_PODS = podsAt('/registry/bench-cached/pods');
const WATCHED_PODS = podsAt('/registry/bench-watched/pods');

export const storageBenchmark: Benchmark = {
  name: 'storage',
  description: 'object layer and watch cache on SQLite and etcd',
  run: async (context) => {
    for (const backend of [SQLITE_BACKEND, ETCD_BACKEND]) {
      context.log(`${backend.name}: starting`);
      const rows = await benchBackend(backend, context);
      context.report({ title: `Storage on ${backend.describe()}`, rows });
    }
  },
};

async function benchBackend(backend: Backend, context: BenchmarkContext): Promise<ResultRow[]> {
  const opened = await backend.open();
  const { store } = opened;
  const feed = new StoreFeed({ store });
  const caches: WatchCache[] = [];
  const startCache = async (spec: ResourceSpec): Promise<WatchCache> => {
    const objects = new ResourceStore({ ...spec, store });
    const cache = new WatchCache({ ...spec, store, feed, objects });
    caches.push(cache);
    if (!(await cache.whenReady(60_000)))
      throw new Error(`the cache of ${spec.keyPrefix} did not become ready in 60 s`);
    return cache;
  };
  const rows: ResultRow[] = [];
  try {
    await feed.start();

    context.log(`${backend.name}: creates`);
    rows.push(...(await createRows(store)));
    await feedCaughtUp(feed);
    context.log(`${backend.name}: creates of protobuf values`);
    rows.push(...(await valueEncodingRows(store)));
    await feedCaughtUp(feed);

    context.log(`${backend.name}: storing ${CACHED_OBJECTS} pods`);
    await storePods(store, CACHED_OBJECTS);
    await feedCaughtUp(feed);
    context.log(`${backend.name}: memory of a cache of them`);
    const memory = await measureCacheMemory({
      address: opened.address,
      resource: CACHED_PODS,
      expectedObjects: CACHED_OBJECTS,
    });
    rows.push(...memoryRows(memory));
    const cache = await startCache(CACHED_PODS);

    context.log(`${backend.name}: gets`);
    rows.push(...(await getRows(cache)));

    context.log(`${backend.name}: lists`);
    rows.push(...(await listRows(cache)));

    context.log(`${backend.name}: watch fan-out to ${WATCHERS} watchers`);
    const watched = await startCache(WATCHED_PODS);
    rows.push(...(await watchRows(watched)));

    context.log(`${backend.name}: the store client alone`);
    rows.push(...clientRows(await measureStoreClientCosts(opened.address)));
  } finally {
    for (const cache of caches) cache.stop();
    feed.stop();
    await opened.close();
  }
  return rows;
}

/**
 * Waits until the feed has delivered every write made so far. Writes to SQLite complete
 * synchronously, so a tight loop of them gives the event loop no turn, and the feed's replay
 * (which runs in turns) falls behind; a cache started or read then would measure that backlog.
 */
async function feedCaughtUp(feed: StoreFeed): Promise<void> {
  const revision = await feed.store.currentRevision();
  if (!(await feed.waitForRevision(revision, 60_000)))
    throw new Error(`the feed did not reach revision ${revision} in 60 s`);
}

/** Pod creates through `objects`: one at a time, then 16 in flight, each in a namespace of its own. */
async function createPods(objects: ResourceStore) {
  const createAll = (namespace: string, concurrency: number, maxOperations: number) =>
    measureThroughput({
      operation: (index) =>
        objects.create({ namespace, name: `pod-${index}` }, benchPod({ namespace, name: `pod-${index}`, index })),
      concurrency,
      maxOperations,
      maxMs: 8_000,
    });
  return { sequential: await createAll('sequential', 1, 4_000), concurrent: await createAll('concurrent', 16, 8_000) };
}

async function createRows(store: RevisionedStore): Promise<ResultRow[]> {
  const objects = new ResourceStore({ ...CREATED_PODS, store });
  const { sequential, concurrent } = await createPods(objects);
  return [
    { metric: 'creates, sequential', value: sequential.perSecond, unit: '/s', note: sampleOf(sequential, 'creates') },
    { metric: 'creates, 16 in flight', value: concurrent.perSecond, unit: '/s', note: sampleOf(concurrent, 'creates') },
  ];
}

/** The server's values (protobuf) against JSON: creates/s of each, and the bytes each stores per Pod. */
export async function valueEncodingRows(store: RevisionedStore): Promise<ResultRow[]> {
  const pods = BUILTIN_TYPES.find((type) => type.group === '' && type.resource === 'pods');
  if (pods === undefined) throw new Error('no pods type');
  const protobuf = storageValueCodec(pods, PROTOBUF_MEDIA_TYPE);
  const objects = new ResourceStore({ ...PROTOBUF_PODS, store, codec: protobuf });
  const { sequential, concurrent } = await createPods(objects);
  const storedBytes = (codec: ValueCodec | undefined) =>
    encodeObject(benchPod({ ...cachedPodKey(0), index: 0 }), codec).length;
  return [
    {
      metric: 'creates, sequential, protobuf values',
      value: sequential.perSecond,
      unit: '/s',
      note: sampleOf(sequential, 'creates'),
    },
    {
      metric: 'creates, 16 in flight, protobuf values',
      value: concurrent.perSecond,
      unit: '/s',
      note: sampleOf(concurrent, 'creates'),
    },
    {
      metric: 'bytes stored per Pod, JSON',
      value: storedBytes(undefined),
      unit: 'bytes',
      note: 'the bench Pod, resourceVersion left out',
    },
    {
      metric: 'bytes stored per Pod, protobuf',
      value: storedBytes(protobuf),
      unit: 'bytes',
      note: 'the same Pod as the server stores it (k8s\\0 envelope)',
    },
  ];
}

/** Stores `count` Pods spread over a few namespaces, 32 writes in flight (not measured). */
async function storePods(store: RevisionedStore, count: number): Promise<void> {
  const objects = new ResourceStore({ ...CACHED_PODS, store });
  const stored = await measureThroughput({
    operation: (index) => {
      const key = cachedPodKey(index);
      return objects.create(key, benchPod({ ...key, index }));
    },
    concurrency: 32,
    maxOperations: count,
    maxMs: 60_000,
  });
  if (stored.operations < count) throw new Error(`stored only ${stored.operations} of ${count} pods in 60 s`);
}

function cachedPodKey(index: number): { namespace: string; name: string } {
  return { namespace: `ns-${index % NAMESPACES}`, name: `pod-${String(index).padStart(5, '0')}` };
}

function memoryRows(memory: CacheMemory): ResultRow[] {
  const perTenThousand = (bytes: number) => ((bytes / memory.objects) * 10_000) / MB;
  const note = `growth in a fresh process listing ${memory.objects.toLocaleString('en-US')} pods into a cache, after GC`;
  return [
    { metric: 'heapUsed per 10,000 cached pods', value: perTenThousand(memory.heapUsedBytes), unit: 'MB', note },
    { metric: 'RSS per 10,000 cached pods', value: perTenThousand(memory.rssBytes), unit: 'MB', note },
    {
      metric: 'heapUsed per cached pod',
      value: memory.heapUsedBytes / memory.objects,
      unit: 'bytes',
      note: `stored JSON: ${storedPodBytes()} bytes`,
    },
  ];
}

function storedPodBytes(): number {
  return Buffer.byteLength(JSON.stringify(benchPod({ ...cachedPodKey(0), index: 0 })));
}

async function getRows(cache: WatchCache): Promise<ResultRow[]> {
  const getAll = (resourceVersion: string | undefined, concurrency: number, maxOperations: number) =>
    measureThroughput({
      operation: (index) => cache.get(cachedPodKey(index % CACHED_OBJECTS), { resourceVersion }),
      concurrency,
      maxOperations,
      maxMs: 3_000,
    });
  const cached = await getAll('0', 1, 1_000_000);
  const consistent = await getAll(undefined, 1, 20_000);
  const consistentConcurrent = await getAll(undefined, 16, 40_000);
  return [
    {
      metric: 'gets from cache, resourceVersion "0"',
      value: cached.perSecond,
      unit: '/s',
      note: sampleOf(cached, 'gets'),
    },
    {
      metric: 'gets, consistent (resourceVersion unset)',
      value: consistent.perSecond,
      unit: '/s',
      note: `${sampleOf(consistent, 'gets')}; a store revision check each, then memory`,
    },
    {
      metric: 'gets, consistent, 16 in flight',
      value: consistentConcurrent.perSecond,
      unit: '/s',
      note: `${sampleOf(consistentConcurrent, 'gets')}; the gets in flight share a store revision check`,
    },
  ];
}

async function listRows(cache: WatchCache): Promise<ResultRow[]> {
  const listAll = async (resourceVersion: string | undefined) => {
    const durations = await timeRuns({
      run: async () => {
        const list = await cache.list({}, { resourceVersion, predicate: EVERYTHING });
        if (list.items.length !== CACHED_OBJECTS)
          throw new Error(`listed ${list.items.length} pods, expected ${CACHED_OBJECTS}`);
      },
      runs: 21,
      maxMs: 10_000,
    });
    return { medianMs: median(durations), runs: durations.length };
  };
  const cached = await listAll('0');
  const consistent = await listAll(undefined);
  return [
    {
      metric: 'list 10,000 from cache, resourceVersion "0"',
      value: cached.medianMs,
      unit: 'ms',
      note: `median of ${cached.runs}`,
    },
    {
      metric: 'list 10,000 from cache, consistent',
      value: consistent.medianMs,
      unit: 'ms',
      note: `median of ${consistent.runs}; one revision read from the store first`,
    },
  ];
}

async function watchRows(cache: WatchCache): Promise<ResultRow[]> {
  const latency = await measureWatchLatency({
    cache,
    watchers: WATCHERS,
    writes: 200,
    maxMs: 30_000,
    perWriteWaitMs: 5_000,
  });
  const sample = `${latency.writes} updates, ${latency.watchers.toLocaleString('en-US')} watchers`;
  return [
    {
      metric: 'update acknowledged, p50',
      value: latency.writeAckP50Ms,
      unit: 'ms',
      note: 'read + compare-and-swap in the store',
    },
    { metric: 'update → first watcher, p50', value: latency.firstWatcherP50Ms, unit: 'ms', note: sample },
    { metric: 'update → all watchers, p50', value: latency.allWatchersP50Ms, unit: 'ms', note: sample },
    { metric: 'update → all watchers, p99', value: latency.allWatchersP99Ms, unit: 'ms', note: sample },
    {
      metric: 'updates not delivered to all in 5 s',
      value: latency.undelivered,
      unit: 'updates',
      note: `${latency.watchersDropped} watchers dropped as too slow`,
    },
  ];
}

function clientRows(costs: StoreClientCosts): ResultRow[] {
  const note = 'a fresh process, its own CPU (user + system), sequential calls on one key';
  return [
    {
      metric: 'client CPU per single-key read',
      value: costs.cpuMicrosPerRead,
      unit: 'µs',
      note: `${costs.reads.toLocaleString('en-US')} reads; ${note}`,
    },
    {
      metric: 'client CPU per update',
      value: costs.cpuMicrosPerUpdate,
      unit: 'µs',
      note: `${costs.updates.toLocaleString('en-US')} updates; ${note}`,
    },
    {
      metric: 'RSS idle, store open',
      value: costs.idleRssBytes / MB,
      unit: 'MB',
      note: `heapUsed ${(costs.idleHeapUsedBytes / MB).toFixed(1)} MB; a fresh process that only opened the store, after GC`,
    },
  ];
}

function sampleOf(throughput: Throughput, what: string): string {
  return `${throughput.operations.toLocaleString('en-US')} ${what} in ${(throughput.elapsedMs / 1000).toFixed(1)} s`;
}
