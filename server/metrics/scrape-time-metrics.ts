/**
 * Counters and histograms kept as plain numbers and turned into samples only when `/metrics` is
 * scraped, for the series updated on hot paths: every request, every etcd call, every event sent
 * to every watcher. prom-client's labelled `inc` and `observe` check each label name and hash
 * the label object, its keys sorted, on every call; here a label set is found by its values,
 * one map a label, or, through a series taken once, not looked up at all.
 *
 * Each metric is registered in a prom-client `Registry` as an object of prom-client's `get()`
 * shape, so the registry formats it with the others, with a `reset()` that `resetMetrics` calls
 * (DELETE `/metrics` with `--profiling`), which forgets every label set as prom-client's does.
 *
 *   const total = scrapeTimeCounter(registry, { name, help, labelNames: ['verb', 'code'] });
 *   total.inc({ verb: 'GET', code: '200' });
 *   const sizes = scrapeTimeHistogram(registry, { name, help, labelNames: ['resource'], buckets });
 *   const pods = sizes.series({ resource: 'pods' }); // once, then per event:
 *   pods.observe(1234);
 */
import type { Metric, MetricObjectWithValues, MetricValue, MetricValueWithName, Registry } from 'prom-client';

export type Sample = MetricValue<string> | MetricValueWithName<string>;

export interface ScrapeTimeMetric {
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'gauge' | 'histogram';
  /** The samples now; a series appears once it has something to say. */
  readonly samples: () => Sample[];
  /** Forgets what was counted; absent for metrics read from their owner at scrape time. */
  readonly reset?: () => void;
}

export function registerScrapeTimeMetric(registry: Registry, metric: ScrapeTimeMetric): void {
  const { name, help, type, samples, reset } = metric;
  const registered = {
    name,
    help,
    type,
    aggregator: 'sum',
    get: async (): Promise<MetricObjectWithValues<Sample>> =>
      ({ name, help, type, aggregator: 'sum', values: samples() }) as unknown as MetricObjectWithValues<Sample>,
    ...(reset === undefined ? {} : { reset }),
  };
  registry.registerMetric(registered as unknown as Metric);
}

/** A histogram's observations: per bucket, not cumulative, the last for +Inf. */
export interface BucketCounts {
  readonly perBucket: number[];
  sum: number;
  count: number;
}

export function bucketCounts(bounds: readonly number[]): BucketCounts {
  return { perBucket: new Array<number>(bounds.length + 1).fill(0), sum: 0, count: 0 };
}

/** Counts `value` in the first bucket whose upper bound (`le`) it does not pass. */
export function observeInto(bounds: readonly number[], into: BucketCounts, value: number): void {
  let bucket = 0;
  while (bucket < bounds.length && value > bounds[bucket]) bucket++;
  into.perBucket[bucket]++;
  into.sum += value;
  into.count++;
}

/**
 * One label set's `_bucket` samples (cumulative, `+Inf` last), `_sum` and `_count`. `le` comes
 * after the metric's own labels, where the reference's Prometheus library writes it (prom-client's
 * histogram puts it first; label order means nothing to a scraper).
 */
export function histogramSamples(
  name: string,
  labels: Readonly<Record<string, string>>,
  bounds: readonly number[],
  counts: BucketCounts,
): Sample[] {
  let cumulative = 0;
  const samples: Sample[] = bounds.map((bound, i) => {
    cumulative += counts.perBucket[i];
    return { metricName: `${name}_bucket`, labels: { ...labels, le: bound }, value: cumulative };
  });
  samples.push({ metricName: `${name}_bucket`, labels: { ...labels, le: '+Inf' }, value: counts.count });
  samples.push({ metricName: `${name}_sum`, labels, value: counts.sum });
  samples.push({ metricName: `${name}_count`, labels, value: counts.count });
  return samples;
}

export type Labels<L extends string> = Readonly<Record<L, string>>;

export interface CounterSeries {
  inc(by?: number): void;
}

export interface HistogramSeries {
  observe(value: number): void;
}

export interface ScrapeTimeCounter<L extends string> {
  inc(labels: Labels<L>, by?: number): void;
  /** The series of one label set, for a caller that counts in it many times (valid across resets). */
  series(labels: Labels<L>): CounterSeries;
}

export interface ScrapeTimeHistogram<L extends string> {
  observe(labels: Labels<L>, value: number): void;
  /** The series of one label set, for a caller that observes in it many times (valid across resets). */
  series(labels: Labels<L>): HistogramSeries;
}

interface MetricOptions<L extends string> {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly L[];
}

export function scrapeTimeCounter<L extends string>(
  registry: Registry,
  options: MetricOptions<L>,
): ScrapeTimeCounter<L> {
  const sets = labelSets(options.labelNames, () => ({ count: 0 }));
  registerScrapeTimeMetric(registry, {
    name: options.name,
    help: options.help,
    type: 'counter',
    samples: () => sets.all().map(({ labels, value }) => ({ labels, value: value.count })),
    reset: sets.clear,
  });
  return {
    inc: (labels, by = 1) => void (sets.find(labels).value.count += by),
    series: (labels) => {
      const held = sets.held(labels);
      return { inc: (by = 1) => void (held().value.count += by) };
    },
  };
}

export function scrapeTimeHistogram<L extends string>(
  registry: Registry,
  options: MetricOptions<L> & { readonly buckets: readonly number[] },
): ScrapeTimeHistogram<L> {
  const { name, buckets } = options;
  const sets = labelSets(options.labelNames, () => bucketCounts(buckets));
  registerScrapeTimeMetric(registry, {
    name,
    help: options.help,
    type: 'histogram',
    samples: () => sets.all().flatMap(({ labels, value }) => histogramSamples(name, labels, buckets, value)),
    reset: sets.clear,
  });
  return {
    observe: (labels, value) => observeInto(buckets, sets.find(labels).value, value),
    series: (labels) => {
      const held = sets.held(labels);
      return { observe: (value) => observeInto(buckets, held().value, value) };
    },
  };
}

interface LabelSet<V> {
  readonly labels: Readonly<Record<string, string>>;
  readonly value: V;
  /** Set when a reset forgot it: a held series then finds its label set again. */
  forgotten: boolean;
}

/** A level of the label sets' tree: the next label's values, or at the last label, the sets. */
type Level<V> = Map<string, Level<V> | LabelSet<V>>;

/**
 * A metric's label sets and their values, found through a tree of maps with one level per label
 * name, in the metric's label order: about a quarter of the time of joining the values into one
 * key (the values are mostly strings whose hashes V8 already holds), and no two label sets can
 * meet whatever their values hold.
 */
function labelSets<L extends string, V>(labelNames: readonly L[], create: () => V) {
  const root: Level<V> = new Map();
  const sets: LabelSet<V>[] = [];
  const find = (labels: Labels<L>): LabelSet<V> => {
    let level = root;
    for (let at = 0; at < labelNames.length - 1; at++) {
      const value = labels[labelNames[at]];
      let next = level.get(value) as Level<V> | undefined;
      if (next === undefined) level.set(value, (next = new Map()));
      level = next;
    }
    const last = labelNames.length === 0 ? '' : labels[labelNames[labelNames.length - 1]];
    let set = level.get(last) as LabelSet<V> | undefined;
    if (set === undefined) {
      // Its own copy, in label order: the caller's object may change or carry other keys.
      const own: Record<string, string> = {};
      for (const name of labelNames) own[name] = labels[name];
      set = { labels: own, value: create(), forgotten: false };
      level.set(last, set);
      sets.push(set);
    }
    return set;
  };
  return {
    find,
    all: (): readonly LabelSet<V>[] => sets,
    /** The label set of `labels` at each call: made at the first, found again after a reset. */
    held: (labels: Labels<L>): (() => LabelSet<V>) => {
      let set: LabelSet<V> | undefined;
      return () => (set === undefined || set.forgotten ? (set = find(labels)) : set);
    },
    clear: (): void => {
      for (const set of sets) set.forgotten = true;
      sets.length = 0;
      root.clear();
    },
  };
}
