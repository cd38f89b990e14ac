/**
 * The reference's main API Priority and Fairness metrics, in the server's registry. Every
 * request updates several of them, and prom-client's labelled updates cost microseconds each
 * on a loaded machine (label hashing), so the counts are kept here as plain numbers per flow
 * schema and priority level, and turned into samples only when `/metrics` is scraped: each
 * metric is registered as an object with prom-client's `get()` shape.
 */
import type { Metric, MetricObjectWithValues, MetricValue, MetricValueWithName, Registry } from 'prom-client';
import type { RejectReason } from './level-queues';
import { deprecatedHelp, metricShown } from '../metrics/hidden-metrics';

/** The reference's wait-duration buckets (seconds). */
const WAIT_BUCKETS = [0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30];

export interface FlowMetrics {
  dispatched(waitSeconds: number): void;
  rejected(reason: RejectReason, waitSeconds: number): void;
  inQueue(delta: 1 | -1): void;
  executing(delta: 1 | -1): void;
}

interface WaitHistogram {
  /** Observations per bucket (not cumulative), the last for +Inf. */
  readonly buckets: number[];
  sum: number;
  count: number;
}

interface Counts {
  readonly labels: { readonly flow_schema: string; readonly priority_level: string };
  dispatched: number;
  executing: number;
  inQueue: number;
  readonly rejected: Map<RejectReason, number>;
  readonly executedWait: WaitHistogram;
  readonly refusedWait: WaitHistogram;
}

function histogram(): WaitHistogram {
  return { buckets: new Array<number>(WAIT_BUCKETS.length + 1).fill(0), sum: 0, count: 0 };
}

function observe(into: WaitHistogram, seconds: number): void {
  let bucket = 0;
  while (bucket < WAIT_BUCKETS.length && seconds > WAIT_BUCKETS[bucket]) bucket++;
  into.buckets[bucket]++;
  into.sum += seconds;
  into.count++;
}

type Sample = MetricValue<string> | MetricValueWithName<string>;

/** Registers one scrape-time metric; prom-client formats what `get()` answers (series appear once they have something to say). */
function register(
  registry: Registry,
  name: string,
  help: string,
  type: 'counter' | 'gauge' | 'histogram',
  samples: () => Sample[],
): void {
  const metric = {
    name,
    help,
    type,
    aggregator: 'sum',
    get: async (): Promise<MetricObjectWithValues<Sample>> =>
      ({ name, help, type, aggregator: 'sum', values: samples() }) as unknown as MetricObjectWithValues<Sample>,
  };
  registry.registerMetric(metric as unknown as Metric);
}

function waitSamples(counts: Counts, execute: 'true' | 'false', into: WaitHistogram): Sample[] {
  const labels = { ...counts.labels, execute };
  const name = 'apiserver_flowcontrol_request_wait_duration_seconds';
  let cumulative = 0;
  const samples: Sample[] = WAIT_BUCKETS.map((bound, i) => {
    cumulative += into.buckets[i];
    return { metricName: `${name}_bucket`, labels: { ...labels, le: bound }, value: cumulative };
  });
  samples.push({ metricName: `${name}_bucket`, labels: { ...labels, le: '+Inf' }, value: into.count });
  samples.push({ metricName: `${name}_sum`, labels, value: into.sum });
  samples.push({ metricName: `${name}_count`, labels, value: into.count });
  return samples;
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
  register(
    registry,
    'apiserver_flowcontrol_nominal_limit_seats',
    'Nominal number of execution seats configured for each priority level',
    'gauge',
    limitSamples,
  );
  const each = <T>(pick: (counts: Counts) => T[]): T[] => [...all.values()].flatMap(pick);
  if (metricShown('1.30.0', showHidden)) {
    register(
      registry,
      'apiserver_flowcontrol_request_concurrency_limit',
      deprecatedHelp('1.30.0', 'Nominal number of execution seats configured for each priority level'),
      'gauge',
      limitSamples,
    );
  }
  if (metricShown('1.31.0', showHidden)) {
    register(
      registry,
      'apiserver_flowcontrol_request_concurrency_in_use',
      deprecatedHelp(
        '1.31.0',
        'Concurrency (number of seats) occupied by the currently executing (initial stage for a WATCH, any stage otherwise) requests in the API Priority and Fairness subsystem',
      ),
      'gauge',
      () => each((counts) => [{ labels: counts.labels, value: counts.executing }]),
    );
  }
  register(
    registry,
    'apiserver_flowcontrol_dispatched_requests_total',
    'Number of requests executed by API Priority and Fairness subsystem',
    'counter',
    () => each((counts) => (counts.dispatched > 0 ? [{ labels: counts.labels, value: counts.dispatched }] : [])),
  );
  register(
    registry,
    'apiserver_flowcontrol_rejected_requests_total',
    'Number of requests rejected by API Priority and Fairness subsystem',
    'counter',
    () =>
      each((counts) =>
        [...counts.rejected].map(([reason, value]) => ({ labels: { ...counts.labels, reason }, value })),
      ),
  );
  register(
    registry,
    'apiserver_flowcontrol_current_inqueue_requests',
    'Number of requests currently pending in queues of the API Priority and Fairness subsystem',
    'gauge',
    () => each((counts) => [{ labels: counts.labels, value: counts.inQueue }]),
  );
  register(
    registry,
    'apiserver_flowcontrol_current_executing_requests',
    'Number of requests in initial (for a WATCH) or any (for a non-WATCH) execution stage in the API Priority and Fairness subsystem',
    'gauge',
    () => each((counts) => [{ labels: counts.labels, value: counts.executing }]),
  );
  register(
    registry,
    'apiserver_flowcontrol_request_wait_duration_seconds',
    'Length of time a request spent waiting in its queue',
    'histogram',
    () =>
      each((counts) => [
        ...(counts.executedWait.count > 0 ? waitSamples(counts, 'true', counts.executedWait) : []),
        ...(counts.refusedWait.count > 0 ? waitSamples(counts, 'false', counts.refusedWait) : []),
      ]),
  );

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
        executedWait: histogram(),
        refusedWait: histogram(),
      };
      all.set(key, counts);
      recorder = {
        dispatched(seconds) {
          counts.dispatched++;
          observe(counts.executedWait, seconds);
        },
        rejected(reason, seconds) {
          counts.rejected.set(reason, (counts.rejected.get(reason) ?? 0) + 1);
          observe(counts.refusedWait, seconds);
        },
        inQueue: (delta) => void (counts.inQueue += delta),
        executing: (delta) => void (counts.executing += delta),
      };
      recorders.set(key, recorder);
    }
    return recorder;
  };
}
