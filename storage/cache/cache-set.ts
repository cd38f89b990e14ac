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
 * Caches can be added and removed while serving, as resource types come and go.
 */
import { ResourceStore, type ResourceStoreOptions } from '../objects/resource-store';
import { WriteDecodes } from '../objects/write-decodes';
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
  /** Whether a cache of `keyPrefix` exists. */
  has(keyPrefix: string): boolean;
  /**
   * A cache for a resource added while serving (a custom resource). Like those made at start,
   * it lists from the store in the background and serves from the store until it has.
   */
  add(resource: CachedResource): WatchCache;
  /** Stops and forgets the cache of `keyPrefix`: its watchers end, the feed stops routing its keys. */
  remove(keyPrefix: string): void;
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
  const add = (resource: CachedResource): WatchCache => {
    if (byPrefix.has(resource.keyPrefix)) throw new Error(`a watch cache for ${resource.keyPrefix} exists`);
    const writeDecodes = new WriteDecodes();
    const objects = new ResourceStore({ ...resource, store: options.store, writeDecodes });
    const cache = new WatchCache({
      ...resource,
      store: options.store,
      feed,
      objects,
      writeDecodes,
      tuning: options.tuning,
    });
    byPrefix.set(resource.keyPrefix, cache);
    return cache;
  };
  for (const resource of options.resources) add(resource);
  return {
    feed,
    cacheFor(keyPrefix) {
      const cache = byPrefix.get(keyPrefix);
      if (!cache) throw new Error(`no watch cache for ${keyPrefix}`);
      return cache;
    },
    has: (keyPrefix) => byPrefix.has(keyPrefix),
    add,
    remove(keyPrefix) {
      byPrefix.get(keyPrefix)?.stop();
      byPrefix.delete(keyPrefix);
    },
    async whenReady(timeoutMs) {
      const ready = await Promise.all([...byPrefix.values()].map((cache) => cache.whenReady(timeoutMs)));
      return ready.every(Boolean);
    },
    terminatedWatchers: () =>
      [...byPrefix.values()].reduce((total, cache) => total + cache.stats().terminatedWatchers, 0),
    stop() {
      for (const cache of byPrefix.values()) cache.stop();
      feed.stop();
    },
  };
}
