/**
 * Each server's own account of its requests' latency: the `apiserver_request_duration_seconds`
 * histogram of its /metrics (the reference's and capstan's have the same buckets and labels),
 * read from every replica before and after a phase, summed over the replicas and the chosen
 * resources, by verb. Quantiles are estimated as Prometheus's `histogram_quantile` does them:
 * linearly within the bucket the rank falls in, so they are only as fine as the buckets.
 */
import { httpsTarget, type ClientCredentials } from './https-client';

const METRIC = 'apiserver_request_duration_seconds_bucket';

/** Cumulative counts by upper bound (seconds; Infinity for `+Inf`). */
export type Histogram = Map<number, number>;

/** The histograms of `verbs` on `resources` (no subresource), summed over the replicas at `urls`. */
export async function readRequestDurations(options: {
  readonly urls: readonly string[];
  readonly credentials: ClientCredentials;
  readonly requestTimeoutMs: number;
  readonly verbs: readonly string[];
  readonly resources: readonly string[];
}): Promise<Map<string, Histogram>> {
  const byVerb = new Map<string, Histogram>(options.verbs.map((verb) => [verb, new Map()]));
  for (const url of options.urls) {
    const target = httpsTarget({
      url,
      credentials: options.credentials,
      maxSockets: 1,
      requestTimeoutMs: options.requestTimeoutMs,
    });
    try {
      const answer = await target.request({ method: 'GET', path: '/metrics' });
      if (answer.status !== 200) throw new Error(`GET ${url}/metrics: ${answer.status}`);
      for (const line of answer.body.toString('utf8').split('\n')) {
        if (!line.startsWith(`${METRIC}{`)) continue;
        const labels = labelsOf(line);
        const histogram = byVerb.get(labels.get('verb') ?? '');
        if (histogram === undefined || labels.get('subresource') !== '') continue;
        if (!options.resources.includes(labels.get('resource') ?? '')) continue;
        const le = labels.get('le');
        const bound = le === '+Inf' ? Infinity : Number(le);
        const count = Number(line.slice(line.lastIndexOf(' ') + 1));
        histogram.set(bound, (histogram.get(bound) ?? 0) + count);
      }
    } finally {
      target.close();
    }
  }
  return byVerb;
}

function labelsOf(line: string): Map<string, string> {
  const labels = new Map<string, string>();
  const text = line.slice(line.indexOf('{') + 1, line.lastIndexOf('}'));
  for (const match of text.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels.set(match[1], match[2]);
  return labels;
}

/** What was counted between two readings of the same histogram. */
export function histogramSince(after: Histogram, before: Histogram | undefined): Histogram {
  return new Map([...after].map(([bound, count]) => [bound, count - (before?.get(bound) ?? 0)]));
}

/** The `q` quantile (0 < q ≤ 1) in ms; NaN when nothing was counted. */
export function histogramQuantileMs(histogram: Histogram, q: number): number {
  const buckets = [...histogram].sort(([a], [b]) => a - b);
  const total = buckets.at(-1)?.[1] ?? 0;
  if (total === 0) return Number.NaN;
  const rank = q * total;
  let lowerBound = 0;
  let countBelow = 0;
  for (const [bound, count] of buckets) {
    if (count >= rank) {
      // Beyond the last finite bucket there is no upper bound: Prometheus answers that bucket's lower one.
      if (bound === Infinity) return lowerBound * 1000;
      return (lowerBound + ((bound - lowerBound) * (rank - countBelow)) / (count - countBelow)) * 1000;
    }
    lowerBound = bound;
    countBelow = count;
  }
  return lowerBound * 1000;
}
