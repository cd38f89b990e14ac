/**
 * The server's Prometheus metrics, named, typed, labelled and bucketed as the reference
 * API server's (1.34), so that existing dashboards and alerts work unchanged. One
 * `ApiserverMetrics` per server, with its own prom-client `Registry`: several servers in one
 * test process never share counters.
 *
 *   const metrics = createApiserverMetrics();
 *   metrics.requestTotal.inc({ ...labels, code: '200' });
 *   res.end(await metrics.registry.metrics());
 *
 * Where the reference relabelled a metric in recent releases, the newer label set is used
 * (`etcd_request_duration_seconds{operation,group,resource}`, the watch cache's
 * `{group,resource}`); `apiserver_storage_objects{resource}` keeps its deprecated name because
 * dashboards still read it.
 */
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import {
  scrapeTimeCounter,
  scrapeTimeHistogram,
  type ScrapeTimeCounter,
  type ScrapeTimeHistogram,
} from './scrape-time-metrics';

/** The reference's request latency buckets (seconds), up to its 60 s request timeout. */
export const REQUEST_DURATION_BUCKETS: readonly number[] = [
  0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60,
];

/** The reference's etcd latency buckets (seconds). */
export const ETCD_REQUEST_DURATION_BUCKETS: readonly number[] = [
  0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60,
];

/** Watch event sizes (bytes): 1 KiB doubling up to 128 KiB, as the reference. */
export const WATCH_EVENT_SIZE_BUCKETS: readonly number[] = [1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072];

const REQUEST_LABELS = [
  'verb',
  'dry_run',
  'group',
  'version',
  'resource',
  'subresource',
  'scope',
  'component',
] as const;
const GROUP_RESOURCE = ['group', 'resource'] as const;

export type RequestLabel = (typeof REQUEST_LABELS)[number];
export type RequestLabels = Record<RequestLabel, string>;

export interface ApiserverMetrics {
  readonly registry: Registry;
  readonly requestTotal: ScrapeTimeCounter<RequestLabel | 'code'>;
  readonly requestDuration: ScrapeTimeHistogram<RequestLabel>;
  readonly currentInflightRequests: Gauge<'request_kind'>;
  readonly longrunningRequests: Gauge<Exclude<RequestLabel, 'dry_run'>>;
  readonly requestTerminations: Counter<RequestLabel | 'code'>;
  readonly requestPostTimeouts: Counter<'source' | 'status'>;
  readonly watchEventsTotal: ScrapeTimeCounter<'group' | 'version' | 'resource'>;
  readonly watchEventsSizes: ScrapeTimeHistogram<'group' | 'version' | 'resource'>;
  readonly watchCacheEventsDispatched: Counter<'group' | 'resource'>;
  readonly watchCacheInitializations: Counter<'group' | 'resource'>;
  readonly watchCacheResourceVersion: Gauge<'group' | 'resource'>;
  readonly terminatedWatchers: Counter<'group' | 'resource'>;
  readonly storageObjects: Gauge<'resource'>;
  readonly etcdRequestDuration: ScrapeTimeHistogram<'operation' | 'group' | 'resource'>;
  readonly requestedDeprecatedApis: Gauge<'group' | 'version' | 'resource' | 'subresource' | 'removed_release'>;
  readonly auditEvents: Counter;
  readonly auditErrors: Counter<'plugin'>;
  readonly auditLevels: Counter<'level'>;
  readonly auditRequestsRejected: Counter;
  /** capstan's own: compactions this replica ran (one replica per interval wins the round). */
  readonly compactions: Counter;
  /** The revision this replica last compacted the store to. */
  readonly compactedRevision: Gauge;
  /**
   * Adds a function run before each scrape, for values read from their owner when asked
   * (watch cache revisions, object counts) rather than pushed on every change.
   */
  addCollector(collect: () => void): void;
  /** Runs the collectors: before a scrape, and before a reset so that what they hold back is reset too. */
  collect(): void;
  /** The text exposition of every metric, after running the collectors. */
  scrape(): Promise<string>;
}

export interface ApiserverMetricsOptions {
  /** Process and Node.js runtime metrics (`process_*`, `nodejs_*`); default true. */
  readonly processMetrics?: boolean;
}

/**
 * How often `nodejs_eventloop_lag_*` samples the event loop (prom-client's default, named here
 * because readers need it): each sample is the time between two timer turns, so an idle loop
 * reads this much and a stall reads its own length plus up to this much.
 */
export const EVENT_LOOP_SAMPLING_MS = 10;

export function createApiserverMetrics(options: ApiserverMetricsOptions = {}): ApiserverMetrics {
  const registry = new Registry();
  if (options.processMetrics ?? true)
    collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLING_MS });
  const registers = [registry];
  const collectors: (() => void)[] = [];
  const collect = (): void => {
    for (const collector of collectors) collector();
  };
  return {
    registry,
    addCollector: (collector) => collectors.push(collector),
    collect,
    scrape: () => {
      collect();
      return registry.metrics();
    },
    requestTotal: scrapeTimeCounter(registry, {
      name: 'apiserver_request_total',
      help: 'Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
      labelNames: [...REQUEST_LABELS, 'code'],
    }),
    requestDuration: scrapeTimeHistogram(registry, {
      name: 'apiserver_request_duration_seconds',
      help: 'Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
      labelNames: REQUEST_LABELS,
      buckets: REQUEST_DURATION_BUCKETS,
    }),
    currentInflightRequests: new Gauge({
      name: 'apiserver_current_inflight_requests',
      help: 'Maximal number of currently used inflight request limit of this apiserver per request kind in last second.',
      labelNames: ['request_kind'],
      registers,
    }),
    longrunningRequests: new Gauge({
      name: 'apiserver_longrunning_requests',
      help: 'Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.',
      labelNames: ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'],
      registers,
    }),
    requestTerminations: new Counter({
      name: 'apiserver_request_terminations_total',
      help: 'Number of requests which apiserver terminated in self-defense.',
      labelNames: [...REQUEST_LABELS, 'code'],
      registers,
    }),
    requestPostTimeouts: new Counter({
      name: 'apiserver_request_post_timeout_total',
      help: 'Tracks the activity of the request handlers after the associated requests have been timed out by the apiserver',
      labelNames: ['source', 'status'],
      registers,
    }),
    watchEventsTotal: scrapeTimeCounter(registry, {
      name: 'apiserver_watch_events_total',
      help: 'Number of events sent in watch clients',
      labelNames: ['group', 'version', 'resource'],
    }),
    watchEventsSizes: scrapeTimeHistogram(registry, {
      name: 'apiserver_watch_events_sizes',
      help: 'Watch event size distribution in bytes',
      labelNames: ['group', 'version', 'resource'],
      buckets: WATCH_EVENT_SIZE_BUCKETS,
    }),
    watchCacheEventsDispatched: new Counter({
      name: 'apiserver_watch_cache_events_dispatched_total',
      help: 'Counter of events dispatched in watch cache broken by resource type.',
      labelNames: GROUP_RESOURCE,
      registers,
    }),
    watchCacheInitializations: new Counter({
      name: 'apiserver_watch_cache_initializations_total',
      help: 'Counter of watch cache initializations broken by resource type.',
      labelNames: GROUP_RESOURCE,
      registers,
    }),
    watchCacheResourceVersion: new Gauge({
      name: 'apiserver_watch_cache_resource_version',
      help: 'Current resource version of watch cache broken by resource type.',
      labelNames: GROUP_RESOURCE,
      registers,
    }),
    terminatedWatchers: new Counter({
      name: 'apiserver_terminated_watchers_total',
      help: 'Counter of watchers closed due to unresponsiveness broken by resource type.',
      labelNames: GROUP_RESOURCE,
      registers,
    }),
    storageObjects: new Gauge({
      name: 'apiserver_storage_objects',
      help: 'Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.',
      labelNames: ['resource'],
      registers,
    }),
    etcdRequestDuration: scrapeTimeHistogram(registry, {
      name: 'etcd_request_duration_seconds',
      help: 'Etcd request latency in seconds for each operation and object type.',
      labelNames: ['operation', 'group', 'resource'],
      buckets: ETCD_REQUEST_DURATION_BUCKETS,
    }),
    requestedDeprecatedApis: new Gauge({
      name: 'apiserver_requested_deprecated_apis',
      help: 'Gauge of deprecated APIs that have been requested, broken out by API group, version, resource, subresource, and removed_release.',
      labelNames: ['group', 'version', 'resource', 'subresource', 'removed_release'],
      registers,
    }),
    auditEvents: new Counter({
      name: 'apiserver_audit_event_total',
      help: 'Counter of audit events generated and sent to the audit backend.',
      registers,
    }),
    auditErrors: new Counter({
      name: 'apiserver_audit_error_total',
      help: 'Counter of audit events that failed to be audited properly. Plugin identifies the plugin affected by the error.',
      labelNames: ['plugin'],
      registers,
    }),
    auditLevels: new Counter({
      name: 'apiserver_audit_level_total',
      help: 'Counter of policy levels for audit events (1 per request).',
      labelNames: ['level'],
      registers,
    }),
    auditRequestsRejected: new Counter({
      name: 'apiserver_audit_requests_rejected_total',
      help: 'Counter of apiserver requests rejected due to an error in audit logging backend.',
      registers,
    }),
    compactions: new Counter({
      name: 'capstan_compactions_total',
      help: 'Compactions of the store run by this replica (replicas take turns through compact_rev_key).',
      registers,
    }),
    compactedRevision: new Gauge({
      name: 'capstan_compacted_revision',
      help: 'The store revision this replica last compacted to.',
      registers,
    }),
  };
}
