/**
 * A "replica" for cache tests: one StoreFeed over a store client and a WatchCache per
 * resource, as the server builds them. Stopping it stops the feed and every cache.
 */
import { StoreFeed } from '../../../storage/cache/feed';
import { COMPACT_REVISION_KEY } from '../../../storage/compactor';
import { WatchCache, type WatchCacheTuning } from '../../../storage/cache/watch-cache';
import { ResourceStore, type ResourceStoreOptions } from '../../../storage/objects/resource-store';
import type { RevisionedStore } from '../../../storage/store';

export type ResourceSpec = Omit<ResourceStoreOptions, 'store'>;

export interface Replica {
  readonly feed: StoreFeed;
  readonly store: RevisionedStore;
  cache(keyPrefix: string): WatchCache;
  stop(): void;
}

export async function startReplica(options: {
  store: RevisionedStore;
  resources: ResourceSpec[];
  tuning?: WatchCacheTuning;
}): Promise<Replica> {
  const feed = new StoreFeed({ store: options.store });
  await feed.start();
  const caches = new Map<string, WatchCache>();
  for (const resource of options.resources) {
    const objects = new ResourceStore({ ...resource, store: options.store });
    caches.set(
      resource.keyPrefix,
      new WatchCache({ ...resource, store: options.store, feed, objects, tuning: options.tuning }),
    );
  }
  await Promise.all([...caches.values()].map((cache) => cache.whenReady(10_000)));
  return {
    feed,
    store: options.store,
    cache(keyPrefix) {
      const cache = caches.get(keyPrefix);
      if (!cache) throw new Error(`no cache for ${keyPrefix}`);
      return cache;
    },
    stop() {
      for (const cache of caches.values()) cache.stop();
      feed.stop();
    },
  };
}

export function podsResource(keyPrefix: string): ResourceSpec {
  return { keyPrefix, qualifiedResource: { group: '', resource: 'pods' }, namespaced: true };
}

/** What storage/compactor.ts does before compacting: record the target where every replica's feed sees it. */
export async function writeCompactRevision(store: RevisionedStore, revision: number): Promise<void> {
  const current = await store.get(COMPACT_REVISION_KEY);
  const value = Buffer.from(String(revision));
  const result = current.kv
    ? await store.update(COMPACT_REVISION_KEY, value, current.kv.modRevision)
    : await store.create(COMPACT_REVISION_KEY, value);
  if (!result.succeeded) throw new Error('lost the compact_rev_key race');
}

/** Polls `condition` every 10 ms; throws after `timeoutMs`. */
export async function waitUntil(condition: () => boolean, timeoutMs = 3_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
