/**
 * What a watch cache of N objects costs in memory, measured in a fresh child process: the
 * benchmark process has held other caches and load before, and a heap that grew once keeps its
 * pages, so its RSS says nothing about one cache. The child opens the same store, starts a
 * feed, settles (GC), lists the objects into a WatchCache, settles again, and reports the
 * growth of heapUsed and RSS.
 *
 * This file is both the parent's function and the child's entry point (run with --expose-gc).
 */
import { fork } from 'node:child_process';
import { StoreFeed } from '../storage/cache/feed';
import { WatchCache } from '../storage/cache/watch-cache';
import { ResourceStore, type ResourceStoreOptions } from '../storage/objects/resource-store';
import { settledMemory } from './measure';
import { killOnExit } from './scratch';
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

type ChildAnswer = { readonly memory: CacheMemory } | { readonly error: string };

const CHILD_TIMEOUT_MS = 90_000;

export function measureCacheMemory(request: CacheMemoryRequest): Promise<CacheMemory> {
  const child = fork(__filename, [], { execArgv: ['--expose-gc'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  killOnExit(child);
  return new Promise((resolve, reject) => {
    let answered = false;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the cache memory probe did not answer in ${CHILD_TIMEOUT_MS} ms`));
    }, CHILD_TIMEOUT_MS);
    child.once('message', (answer: ChildAnswer) => {
      answered = true;
      clearTimeout(timer);
      if ('memory' in answer) resolve(answer.memory);
      else reject(new Error(`cache memory probe: ${answer.error}`));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (!answered) reject(new Error(`the cache memory probe exited with ${code} before answering`));
    });
    child.send(request);
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
    if (cached !== request.expectedObjects) throw new Error(`the cache holds ${cached} objects, expected ${request.expectedObjects}`);
    return { objects: cached, heapUsedBytes: after.heapUsedBytes - before.heapUsedBytes, rssBytes: after.rssBytes - before.rssBytes };
  } finally {
    feed.stop();
    await store.close();
  }
}

if (require.main === module) {
  process.once('message', (request: CacheMemoryRequest) => {
    const answer = (result: ChildAnswer) => process.send?.(result, () => process.exit(0));
    probe(request).then(
      (memory) => answer({ memory }),
      (error: unknown) => answer({ error: error instanceof Error ? error.message : String(error) }),
    );
  });
}
