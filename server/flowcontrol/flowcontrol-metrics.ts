/**
 * The reference's main API Priority and Fairness metrics, in the server's registry. Every
 * request updates several of them, and prom-client's labelled updates cost microseconds each
 * on a loaded machine (label hashing), so the counts are kept here as plain numbers per flow
 * schema and priority level, and turned into samples only when `/metrics` is scraped
 * (`scrape-time-metrics.ts`).
 */
import type { Registry } from 'prom-client';
import type { RejectReason } from './level-queues';
import { deprecatedHelp, metricShown } from '../metrics/hidden-metrics';
import {
  bucketCounts,
  histogramSamples,
  observeInto,
  registerScrapeTimeMetric,
  type BucketCounts,
  type Sample,
} from '../metrics/scrape-time-metrics';

/** The reference's wait-duration buckets (seconds). */
const WAIT_BUCKETS = [0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30];

export interface FlowMetrics {
  dispatched(waitSeconds: number): void;
  rejected(reason: RejectReason, waitSeconds: number): void;
  inQueue(delta: 1 | -1): void;
  executing(delta: 1 | -1): void;
}

interface Counts {
  readonly labels: { readonly flow_schema: string; readonly priority_level: string };
  dispatched: number;
  executing: number;
  inQueue: number;
  readonly rejected: Map<RejectReason, number>;
  readonly executedWait: BucketCounts;
  readonly refusedWait: BucketCounts;
}

function waitSamples(counts: Counts, execute: 'true' | 'false', into: BucketCounts): Sample[] {
  return histogramSamples(
    'apiserver_flowcontrol_request_wait_duration_seconds',
    { ...counts.labels, execute },
    WAIT_BUCKETS,
    into,
  );
}

/**
 * `nominalLimits`: each priority level's nominal seats, read at scrape time. `showHidden`
 * (`--show-hidden-metrics-for-version`) registers the two metrics the reference deprecated in
 * 1.30 and 1.31 for the seat gauges: with one seat a request, as here, seats in use are the
 * requests executing.
 */
export function flowcontrolMetrics(
  registry: Registry,
  nominalLimits: () => ReadonlyMap<string, number>,
  showHidden = false,
): (schema: string, level: string) => FlowMetrics {
  const all = new Map<string, Counts>();
  const limitSamples = () =>
    [...nominalLimits()].map(([level, seats]) => ({ labels: { priority_level: level }, value: seats }));
  registerScrapeTimeMetric(registry, {
    name: 'apiserver_flowcontrol_nominal_limit_seats',
    help: 'Nominal number of execution seats configured for each priority level',
    type: 'gauge',
    samples: limitSamples,
  });
  const each = <T>(pick: (counts: Counts) => T[]): T[] => [...all.values()].flatMap(pick);
  if (metricShown('1.30.0', showHidden)) {
    registerScrapeTimeMetric(registry, {
      name: 'apiserver_flowcontrol_request_concurrency_limit',
      help: deprecatedHelp('1.30.0', 'Nominal number of execution seats configured for each priority level'),
      type: 'gauge',
      samples: limitSamples,
    });
  }
  if (metricShown('1.31.0', showHidden)) {
    registerScrapeTimeMetric(registry, {
      name: 'apiserver_flowcontrol_request_concurrency_in_use',
      help: deprecatedHelp(
        '1.31.0',
        'Concurrency (number of seats) occupied by the currently executing (initial stage for a WATCH, any stage otherwise) requests in the API Priority and Fairness subsystem',
      ),
      type: 'gauge',
      samples: () => each((counts) => [{ labels: counts.labels, value: counts.executing }]),
    });
  }
  registerScrapeTimeMetric(registry, {
    name: 'apiserver_flowcontrol_dispatched_requests_total',
    help: 'Number of requests executed by API Priority and Fairness subsystem',
    type: 'counter',
    samples: () =>
      each((counts) => (counts.dispatched > 0 ? [{ labels: counts.labels, value: counts.dispatched }] : [])),
  });
  registerScrapeTimeMetric(registry, {
    name: 'apiserver_flowcontrol_rejected_requests_total',
    help: 'Number of requests rejected by API Priority and Fairness subsystem',
    type: 'counter',
    samples: () =>
      each((counts) =>
        [...counts.rejected].map(([reason, value]) => ({ labels: { ...counts.labels, reason }, value })),
      ),
  });
  registerScrapeTimeMetric(registry, {
    name: 'apiserver_flowcontrol_current_inqueue_requests',
    help: 'Number of requests currently pending in queues of the API Priority and Fairness subsystem',
    type: 'gauge',
    samples: () => each((counts) => [{ labels: counts.labels, value: counts.inQueue }]),
  });
  registerScrapeTimeMetric(registry, {
    name: 'apiserver_flowcontrol_current_executing_requests',
    help: 'Number of requests in initial (for a WATCH) or any (for a non-WATCH) execution stage in the API Priority and Fairness subsystem',
    type: 'gauge',
    samples: () => each((counts) => [{ labels: counts.labels, value: counts.executing }]),
  });
  registerScrapeTimeMetric(registry, {
    name: 'apiserver_flowcontrol_request_wait_duration_seconds',
    help: 'Length of time a request spent waiting in its queue',
    type: 'histogram',
    samples: () =>
      each((counts) => [
        ...(counts.executedWait.count > 0 ? waitSamples(counts, 'true', counts.executedWait) : []),
        ...(counts.refusedWait.count > 0 ? waitSamples(counts, 'false', counts.refusedWait) : []),
      ]),
  });

  const recorders = new Map<string, FlowMetrics>();
  return (schema, level) => {
    const key = `${schema}\u0000${level}`;
    let recorder = recorders.get(key);
    if (recorder === undefined) {
      const counts: Counts = {
        labels: { flow_schema: schema, priority_level: level },
        dispatched: 0,
        executing: 0,
        inQueue: 0,
        rejected: new Map(),
        executedWait: bucketCounts(WAIT_BUCKETS),
        refusedWait: bucketCounts(WAIT_BUCKETS),
      };
      all.set(key, counts);
      recorder = {
        dispatched(seconds) {
          counts.dispatched++;
          observeInto(WAIT_BUCKETS, counts.executedWait, seconds);
        },
        rejected(reason, seconds) {
          counts.rejected.set(reason, (counts.rejected.get(reason) ?? 0) + 1);
          observeInto(WAIT_BUCKETS, counts.refusedWait, seconds);
        },
        inQueue: (delta) => void (counts.inQueue += delta),
        executing: (delta) => void (counts.executing += delta),
      };
      recorders.set(key, recorder);
    }
    return recorder;
  };
}
