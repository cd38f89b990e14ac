import { Counter, Histogram, Registry } from 'prom-client';
import { resetMetrics } from '../../../server/metrics/metrics-handler';
import { scrapeTimeCounter, scrapeTimeHistogram } from '../../../server/metrics/scrape-time-metrics';

const BUCKETS = [0.005, 0.025, 0.1, 1];

describe('scrape-time metrics', () => {
  it('write the exposition prom-client writes for the same counts, le last', async () => {
    const ours = new Registry();
    const theirs = new Registry();
    const options = { name: 'requests_total', help: 'Requests.', labelNames: ['verb', 'code'] as const };
    const counter = scrapeTimeCounter(ours, { ...options, labelNames: [...options.labelNames] });
    const promCounter = new Counter({ ...options, labelNames: [...options.labelNames], registers: [theirs] });
    const histogram = scrapeTimeHistogram(ours, {
      name: 'request_seconds',
      help: 'Latency.',
      labelNames: ['verb'],
      buckets: BUCKETS,
    });
    const promHistogram = new Histogram({
      name: 'request_seconds',
      help: 'Latency.',
      labelNames: ['verb'],
      buckets: BUCKETS,
      registers: [theirs],
    });

    for (const [verb, code, seconds] of [
      ['GET', '200', 0.001],
      ['GET', '200', 0.005],
      ['GET', '404', 0.03],
      ['POST', '201', 2.5],
      ['GET', '200', 0.5],
    ] as const) {
      counter.inc({ verb, code });
      promCounter.inc({ verb, code });
      histogram.observe({ verb }, seconds);
      promHistogram.observe({ verb }, seconds);
    }
    counter.inc({ code: '200', verb: 'GET' }, 3);
    promCounter.inc({ code: '200', verb: 'GET' }, 3);

    const text = await ours.metrics();
    expect(text).toContain('requests_total{verb="GET",code="200"} 6');
    expect(text).toContain('request_seconds_bucket{verb="GET",le="0.025"} 2');
    // The same text but for where `le` stands: after the metric's labels, as the reference writes it.
    const leLast = (exposition: string) => exposition.replace(/\{(le="[^"]*"),([^}]*)\}/g, '{$2,$1}');
    expect(text).toBe(leLast(await theirs.metrics()));
  });

  it('keep label sets apart whatever their values hold', async () => {
    const registry = new Registry();
    const counter = scrapeTimeCounter(registry, { name: 'pairs_total', help: 'Pairs.', labelNames: ['a', 'b'] });
    // Joined with NUL, both would be the key "x" NUL NUL NUL.
    counter.inc({ a: 'x\u0000', b: '' });
    counter.inc({ a: 'x', b: '\u0000' }, 2);
    const samples = (await registry.getSingleMetric('pairs_total')!.get()).values;
    expect(samples).toEqual([
      { labels: { a: 'x\u0000', b: '' }, value: 1 },
      { labels: { a: 'x', b: '\u0000' }, value: 2 },
    ]);
  });

  it('keep only the label names of the metric, copied at the first count', async () => {
    const registry = new Registry();
    const counter = scrapeTimeCounter(registry, { name: 'verbs_total', help: 'Verbs.', labelNames: ['verb'] });
    const labels = { verb: 'GET', other: 'ignored' };
    counter.inc(labels);
    labels.verb = 'PUT';
    expect(await registry.metrics()).toContain('verbs_total{verb="GET"} 1\n');
  });

  it('make a held series at its first count, and count in it again after a reset', async () => {
    const registry = new Registry();
    const counter = scrapeTimeCounter(registry, { name: 'events_total', help: 'Events.', labelNames: ['resource'] });
    const histogram = scrapeTimeHistogram(registry, {
      name: 'event_bytes',
      help: 'Sizes.',
      labelNames: ['resource'],
      buckets: [1024, 2048],
    });
    const events = counter.series({ resource: 'pods' });
    const sizes = histogram.series({ resource: 'pods' });
    expect(await registry.metrics()).not.toMatch(/^events_total|^event_bytes/m);

    events.inc();
    events.inc(2);
    sizes.observe(1500);
    let text = await registry.metrics();
    expect(text).toContain('events_total{resource="pods"} 3\n');
    expect(text).toContain('event_bytes_bucket{resource="pods",le="2048"} 1\n');

    resetMetrics(registry);
    expect(await registry.metrics()).not.toMatch(/^events_total|^event_bytes/m);

    events.inc();
    sizes.observe(100);
    counter.inc({ resource: 'pods' });
    text = await registry.metrics();
    expect(text).toContain('events_total{resource="pods"} 2\n');
    expect(text).toContain('event_bytes_bucket{resource="pods",le="1024"} 1\n');
    expect(text).toContain('event_bytes_sum{resource="pods"} 100\n');
  });
});
