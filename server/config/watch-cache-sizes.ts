/**
 * `--watch-cache-sizes`: `resource[.group]#size`, as kube-apiserver 1.34 reads it. Watch caches
 * have sized themselves since 1.19, so the size only says whether a resource has a cache: 0
 * serves it straight from the store, any other size keeps the cache (the reference logs that it
 * drops the number). Like the reference, events of both groups have no cache unless a size asks
 * for one.
 */

/** kube-apiserver's DefaultWatchCacheSizes: the resources served without a watch cache by default. */
export const DEFAULT_WATCH_CACHE_SIZES: Readonly<Record<string, number>> = { events: 0, 'events.events.k8s.io': 0 };

/** `resource` or `resource.group`, as the flag names a group-resource (group split at the first dot). */
export function watchCacheKey(group: string, resource: string): string {
  return group === '' ? resource : `${resource}.${group}`;
}

/** One `resource[.group]#size` entry, with the reference's messages. */
export function parseWatchCacheSize(entry: string): [string, number] {
  const tokens = entry.split('#');
  if (tokens.length !== 2) throw new Error(`invalid value of watch cache size: ${entry}`);
  // Go's strconv.Atoi: an optional sign and decimal digits, within int64.
  if (!/^[+-]?\d+$/.test(tokens[1]) || !Number.isSafeInteger(Number(tokens[1])))
    throw new Error(`invalid size of watch cache size: ${entry}`);
  const size = Number(tokens[1]);
  if (size < 0) throw new Error(`watch cache size cannot be negative: ${entry}`);
  const dot = tokens[0].indexOf('.');
  const key = dot < 0 ? tokens[0] : watchCacheKey(tokens[0].slice(dot + 1), tokens[0].slice(0, dot));
  return [key, size];
}

/** Whether the group-resource is served without a watch cache, given the flag's sizes over the defaults. */
export function watchCacheDisabled(sizes: Readonly<Record<string, number>>, group: string, resource: string): boolean {
  const key = watchCacheKey(group, resource);
  return (sizes[key] ?? DEFAULT_WATCH_CACHE_SIZES[key]) === 0;
}
