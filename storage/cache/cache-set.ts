/**
 * The watch caches of one replica: one StoreFeed over the store and a WatchCache per resource
 * type, each wrapping the ResourceStore of that type. This is how the server builds its object
 * layer when the watch cache is on.
 *
 *   const caches = await startCacheSet({ store, resources: [{ keyPrefix: '/registry/pods',
 *     qualifiedResource: { group: '', resource: 'pods' }, namespaced: true }] });
 *   const pods = caches.cacheFor('/registry/pods');   // an ObjectStorage
 *   ...
 *   caches.stop();
 *
 * It resolves once the feed has started; the caches list in the background and serve from
 * the store until they are ready (`whenReady` waits for that, e.g. for a readiness check).
 */
import { ResourceStore, type ResourceStoreOptions } from '../objects/resource-store';
import type { RevisionedStore } from '../store';
import { StoreFeed, type StoreFeedOptions } from './feed';
import { WatchCache, type WatchCacheTuning } from './watch-cache';

export type CachedResource = Omit<ResourceStoreOptions, 'store'>;

export interface CacheSetOptions {
  readonly store: RevisionedStore;
  readonly resources: readonly CachedResource[];
  readonly tuning?: WatchCacheTuning;
  readonly feed?: Omit<StoreFeedOptions, 'store'>;
}

export interface CacheSet {
  readonly feed: StoreFeed;
  /** The cache of the resource stored under `keyPrefix`; throws when there is none. */
  cacheFor(keyPrefix: string): WatchCache;
  readonly caches: readonly WatchCache[];
  /** True once every cache has listed, false when `timeoutMs` passes first. */
  whenReady(timeoutMs: number): Promise<boolean>;
  /** Watchers closed for being too slow, over every cache (for the `terminated_watchers` metric). */
  terminatedWatchers(): number;
  /** Closes every watcher and the feed's store watch; the store itself stays open. */
  stop(): void;
}

export async function startCacheSet(options: CacheSetOptions): Promise<CacheSet> {
  const feed = new StoreFeed({ ...options.feed, store: options.store });
  await feed.start();
  const byPrefix = new Map<string, WatchCache>();
  for (const resource of options.resources) {
    const objects = new ResourceStore({ ...resource, store: options.store });
    byPrefix.set(resource.keyPrefix, new WatchCache({ ...resource, store: options.store, feed, objects, tuning: options.tuning }));
  }
  const caches = [...byPrefix.values()];
  return {
    feed,
    caches,
    cacheFor(keyPrefix) {
      const cache = byPrefix.get(keyPrefix);
      if (!cache) throw new Error(`no watch cache for ${keyPrefix}`);
      return cache;
    },
    async whenReady(timeoutMs) {
      const ready = await Promise.all(caches.map((cache) => cache.whenReady(timeoutMs)));
      return ready.every(Boolean);
    },
    terminatedWatchers: () => caches.reduce((total, cache) => total + cache.stats().terminatedWatchers, 0),
    stop() {
      for (const cache of caches) cache.stop();
      feed.stop();
    },
  };
}
