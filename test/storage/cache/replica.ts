/**
 * A "replica" for cache tests: the watch caches the server builds (startCacheSet), ready.
 */
import { type CachedResource, type CacheSet, startCacheSet } from '../../../storage/cache/cache-set';
import { StoreFeed } from '../../../storage/cache/feed';
import { WatchCache, type WatchCacheTuning } from '../../../storage/cache/watch-cache';
import { ResourceStore } from '../../../storage/objects/resource-store';
import { COMPACT_REVISION_KEY } from '../../../storage/compactor';
import type { RevisionedStore } from '../../../storage/store';
import type { KubeObject } from '../../../api/objects';

export interface Replica extends CacheSet {
  readonly store: RevisionedStore;
}

export async function startReplica(options: {
  store: RevisionedStore;
  resources: CachedResource[];
  tuning?: WatchCacheTuning;
}): Promise<Replica> {
  const caches = await startCacheSet(options);
  if (!(await caches.whenReady(10_000))) throw new Error('caches not ready');
  return { ...caches, store: options.store };
}

export function podsResource(keyPrefix: string): CachedResource {
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

/**
 * A pods cache under `keyPrefix` whose feed is never started, so it never lists: it stays not
 * ready and reads from the store, where `seed` is written first (in its namespace) through
 * `direct`. `stop` ends the cache and its feed.
 */
export async function unlistedPodsCache(options: {
  store: RevisionedStore;
  keyPrefix: string;
  seed: KubeObject;
  tuning?: WatchCacheTuning;
}): Promise<{ cache: WatchCache; direct: ResourceStore; stop(): void }> {
  const { store, keyPrefix, seed, tuning } = options;
  const direct = new ResourceStore({ store, ...podsResource(keyPrefix) });
  await direct.create({ namespace: seed.metadata.namespace, name: String(seed.metadata.name) }, seed);
  const feed = new StoreFeed({ store });
  const cache = new WatchCache({ ...podsResource(keyPrefix), store, feed, objects: direct, tuning });
  return {
    cache,
    direct,
    stop: () => {
      cache.stop();
      feed.stop();
    },
  };
}
