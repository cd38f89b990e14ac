/**
 * Several cache sets, one per store, behind one `CacheSet`: each key prefix's cache lives in
 * the set of the store that holds the resource (per-resource etcd servers). Each set keeps its
 * own feed, so a cache's revisions, freshness checks and compaction are its own store's.
 */
import type { CacheSet } from './cache-set';

export interface RoutedCacheSetOptions {
  /** The first is the default set; its feed is the routed set's `feed`. */
  readonly sets: readonly CacheSet[];
  /** Index into `sets` of the set that holds `keyPrefix`. */
  readonly setOf: (keyPrefix: string) => number;
}

export function routedCacheSet({ sets, setOf }: RoutedCacheSetOptions): CacheSet {
  if (sets.length === 1) return sets[0];
  const setFor = (keyPrefix: string) => sets[setOf(keyPrefix)];
  return {
    feed: sets[0].feed,
    cacheFor: (keyPrefix) => setFor(keyPrefix).cacheFor(keyPrefix),
    has: (keyPrefix) => setFor(keyPrefix).has(keyPrefix),
    add: (resource) => setFor(resource.keyPrefix).add(resource),
    remove: (keyPrefix) => setFor(keyPrefix).remove(keyPrefix),
    async whenReady(timeoutMs) {
      const ready = await Promise.all(sets.map((set) => set.whenReady(timeoutMs)));
      return ready.every(Boolean);
    },
    terminatedWatchers: () => sets.reduce((total, set) => total + set.terminatedWatchers(), 0),
    stop() {
      for (const set of sets) set.stop();
    },
  };
}
