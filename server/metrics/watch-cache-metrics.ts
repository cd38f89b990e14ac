/**
 * Watch cache metrics read from the caches' own statistics at each scrape:
 * `apiserver_watch_cache_resource_version`, `apiserver_storage_objects` (the objects a ready
 * cache holds) and `apiserver_terminated_watchers_total` (watchers closed for being too slow).
 * Events dispatched and (re)initializations are pushed by the cache through
 * `recordWatchCacheDispatch` and `recordWatchCacheInitialization`.
 */
import type { WatchCacheStats } from '../../storage/cache/watch-cache';
import type { ApiserverMetrics } from './apiserver-metrics';
import type { StoredResource } from './store-metrics';

export interface ObservedCache extends StoredResource {
  readonly cache: { stats(): WatchCacheStats };
}

/** `caches` is asked at each scrape: caches come and go with resource types. */
export function observeWatchCaches(metrics: ApiserverMetrics, caches: () => Iterable<ObservedCache>): void {
  const terminatedSeen = new WeakMap<ObservedCache, number>();
  metrics.addCollector(() => {
    for (const observed of caches()) {
      const labels = { group: observed.group, resource: observed.resource };
      const stats = observed.cache.stats();
      metrics.watchCacheResourceVersion.set(labels, stats.revision);
      // The reference labels this deprecated gauge with the qualified resource alone.
      metrics.storageObjects.set({ resource: qualifiedResource(observed) }, stats.ready ? stats.objects : -1);
      const before = terminatedSeen.get(observed) ?? 0;
      if (stats.terminatedWatchers > before) metrics.terminatedWatchers.inc(labels, stats.terminatedWatchers - before);
      terminatedSeen.set(observed, stats.terminatedWatchers);
    }
  });
}

export function recordWatchCacheDispatch(metrics: ApiserverMetrics, resource: StoredResource, events: number): void {
  metrics.watchCacheEventsDispatched.inc({ group: resource.group, resource: resource.resource }, events);
}

export function recordWatchCacheInitialization(metrics: ApiserverMetrics, resource: StoredResource): void {
  metrics.watchCacheInitializations.inc({ group: resource.group, resource: resource.resource });
}

function qualifiedResource({ group, resource }: StoredResource): string {
  return group ? `${resource}.${group}` : resource;
}
