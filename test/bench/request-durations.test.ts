/**
 * The scale run's reading of the servers' latency histograms: quantiles as Prometheus's
 * histogram_quantile estimates them, and the difference of two readings.
 */
import { histogramQuantileMs, histogramSince, type Histogram } from '../../bench/request-durations';

// Cumulative counts: 10 requests under 5 ms, 90 under 25 ms, 100 under 50 ms, none slower.
const histogram: Histogram = new Map([
  [0.005, 10],
  [0.025, 90],
  [0.05, 100],
  [0.1, 100],
  [Infinity, 100],
]);

describe('histogramQuantileMs', () => {
  it.each([
    // rank 5 of the first bucket's 10, from 0 to 5 ms
    { q: 0.05, ms: 2.5 },
    // rank 50: 40 of the 80 between 5 and 25 ms
    { q: 0.5, ms: 15 },
    // rank 99: 9 of the 10 between 25 and 50 ms
    { q: 0.99, ms: 47.5 },
  ])('interpolates within the bucket the rank falls in: q=$q → $ms ms', ({ q, ms }) => {
    expect(histogramQuantileMs(histogram, q)).toBeCloseTo(ms, 9);
  });

  it('answers the last finite bound when the rank falls in +Inf', () => {
    const slow: Histogram = new Map([
      [0.005, 1],
      [0.025, 1],
      [Infinity, 10],
    ]);
    expect(histogramQuantileMs(slow, 0.99)).toBeCloseTo(25, 9);
  });

  it('is NaN for an empty histogram', () => {
    expect(histogramQuantileMs(new Map([[Infinity, 0]]), 0.5)).toBeNaN();
  });
});

describe('histogramSince', () => {
  it('counts what was observed between two readings, a bucket new since the first counting whole', () => {
    const before: Histogram = new Map([
      [0.005, 4],
      [Infinity, 6],
    ]);
    expect([...histogramSince(histogram, before)]).toEqual([
      [0.005, 6],
      [0.025, 90],
      [0.05, 100],
      [0.1, 100],
      [Infinity, 94],
    ]);
  });
});
