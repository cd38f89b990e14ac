/**
 * What a watch cache of N objects costs in memory, measured in a fresh child process: the
 * benchmark process has held other caches and load before, and a heap that grew once keeps its
 * pages, so its RSS says nothing about one cache. The child opens the same store, starts a
 * feed, settles (GC), lists the objects into a WatchCache, settles again, and reports the
 * growth of heapUsed and RSS.
 *
 * This file is both the parent's function and the child's entry point (run with --expose-gc).
 */
import { StoreFeed } from '../storage/cache/feed';
import { WatchCache } from '../storage/cache/watch-cache';
import { ResourceStore, type ResourceStoreOptions } from '../storage/objects/resource-store';
import { settledMemory } from './measure';
import { answerProbe, runProbe } from './child-probe';
import { openStoreAt, type StoreAddress } from './storage-backends';

export interface CacheMemoryRequest {
  readonly address: StoreAddress;
  readonly resource: Omit<ResourceStoreOptions, 'store'>;
  /** Objects the cache must hold once ready (a check that the figure is for the right state). */
  readonly expectedObjects: number;
}

export interface CacheMemory {
  readonly objects: number;
  readonly heapUsedBytes: number;
  readonly rssBytes: number;
}

const CHILD_TIMEOUT_MS = 90_000;

export function measureCacheMemory(request: CacheMemoryRequest): Promise<CacheMemory> {
  return runProbe<CacheMemoryRequest, CacheMemory>(__filename, request, {
    name: 'the cache memory probe',
    timeoutMs: CHILD_TIMEOUT_MS,
  });
}

async function probe(request: CacheMemoryRequest): Promise<CacheMemory> {
  const store = await openStoreAt(request.address);
  const feed = new StoreFeed({ store });
  try {
    await feed.start();
    const before = settledMemory();
    const objects = new ResourceStore({ ...request.resource, store });
    const cache = new WatchCache({ ...request.resource, store, feed, objects });
    const ready = await cache.whenReady(60_000);
    const after = settledMemory();
    const cached = cache.stats().objects;
    cache.stop();
    if (!ready) throw new Error('the cache did not become ready in 60 s');
    if (before === undefined || after === undefined) throw new Error('no gc(): run with --expose-gc');
    if (cached !== request.expectedObjects)
      throw new Error(`the cache holds ${cached} objects, expected ${request.expectedObjects}`);
    return {
      objects: cached,
      heapUsedBytes: after.heapUsedBytes - before.heapUsedBytes,
      rssBytes: after.rssBytes - before.rssBytes,
    };
  } finally {
    feed.stop();
    await store.close();
  }
}

if (require.main === module) answerProbe(probe);
