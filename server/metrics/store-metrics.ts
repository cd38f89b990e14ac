/**
 * `etcd_request_duration_seconds` for every call a replica makes to its store: a
 * `RevisionedStore` wrapper, so the watch cache, the object layer and the compactor are all
 * measured without knowing it. The reference labels a call by the resource it touches; keys
 * say that (`/registry/deployments/...`), so the caller gives the lookup from key to resource.
 */
import type { RevisionedStore } from '../../storage/store';
import type { ApiserverMetrics } from './apiserver-metrics';

export interface StoredResource {
  readonly group: string;
  readonly resource: string;
}

/** No resource: keys outside any resource's prefix (`compact_rev_key`) and whole-store calls. */
const NO_RESOURCE: StoredResource = { group: '', resource: '' };

export interface InstrumentStoreOptions {
  readonly store: RevisionedStore;
  readonly metrics: ApiserverMetrics;
  /** The resource a key or key prefix belongs to; undefined for keys of no resource. */
  readonly resourceOfKey: (key: string) => StoredResource | undefined;
}

export function instrumentStore(options: InstrumentStoreOptions): RevisionedStore {
  const { store, metrics, resourceOfKey } = options;
  async function timed<T>(operation: string, key: string | undefined, call: () => Promise<T>): Promise<T> {
    const startedAt = performance.now();
    try {
      return await call();
    } finally {
      const { group, resource } = (key === undefined ? undefined : resourceOfKey(key)) ?? NO_RESOURCE;
      metrics.etcdRequestDuration.observe({ operation, group, resource }, (performance.now() - startedAt) / 1000);
    }
  }
  return {
    currentRevision: () => timed('getCurrentResourceVersion', undefined, () => store.currentRevision()),
    get: (key, getOptions) => timed('get', key, () => store.get(key, getOptions)),
    range: (request) => timed('list', request.prefix, () => store.range(request)),
    create: (key, value, writeOptions) => timed('create', key, () => store.create(key, value, writeOptions)),
    update: (key, value, expected, writeOptions) =>
      timed('update', key, () => store.update(key, value, expected, writeOptions)),
    delete: (key, expected) => timed('delete', key, () => store.delete(key, expected)),
    // A watch is a stream, not a request with a latency.
    watch: (request) => store.watch(request),
    compact: (revision) => timed('compact', undefined, () => store.compact(revision)),
    compactedRevision: () => timed('compactedRevision', undefined, () => store.compactedRevision()),
    close: () => store.close(),
  };
}

/** A `resourceOfKey` over resource key prefixes (`/registry/deployments` → apps deployments). */
export function resourceByKeyPrefix(
  prefixes: ReadonlyMap<string, StoredResource>,
): (key: string) => StoredResource | undefined {
  // Every store call asks: look up the key and its parents at each `/`, a handful of map reads,
  // instead of trying every resource's prefix in turn.
  return (key) => {
    for (let end = key.length; end > 0; end = key.lastIndexOf('/', end - 1)) {
      const resource = prefixes.get(end === key.length ? key : key.slice(0, end));
      if (resource !== undefined) return resource;
    }
    return undefined;
  };
}
