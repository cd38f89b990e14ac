/**
 * Watch fan-out latency: many watchers on one cache, one write at a time, and for each write
 * the time from issuing it until the first and until the last watcher has read its event.
 * Watchers read through the async iterator, as the HTTP watch handler does, so the figure
 * includes waking every reader, not only the cache's dispatch.
 */
import { performance } from 'node:perf_hooks';
import type { WatchCache } from '../storage/cache/watch-cache';
import { EVERYTHING, type ObjectWatch } from '../storage/objects/types';
import { percentile } from './measure';
import { benchPod } from './pod';

export interface WatchLatency {
  readonly watchers: number;
  readonly writes: number;
  /** Writes whose event did not reach every watcher within the per-write wait. */
  readonly undelivered: number;
  readonly writeAckP50Ms: number;
  readonly firstWatcherP50Ms: number;
  readonly allWatchersP50Ms: number;
  readonly allWatchersP99Ms: number;
  /** Watchers the cache closed as too slow during the run. */
  readonly watchersDropped: number;
}

interface Delivery {
  received: number;
  firstAt: number;
  lastAt: number;
}

/** Counts, per revision, how many watchers have read its event, and wakes whoever waits for all. */
class DeliveryTracker {
  private readonly deliveries = new Map<number, Delivery>();
  private waiter: { revision: number; resolve: (delivery: Delivery) => void } | undefined;

  constructor(private readonly watchers: number) {}

  received(revision: number): void {
    const now = performance.now();
    let delivery = this.deliveries.get(revision);
    if (!delivery) {
      delivery = { received: 0, firstAt: now, lastAt: now };
      this.deliveries.set(revision, delivery);
    }
    delivery.received++;
    delivery.lastAt = now;
    if (delivery.received === this.watchers && this.waiter?.revision === revision) this.waiter.resolve(delivery);
  }

  /** Every watcher's delivery of `revision`, or undefined when some did not arrive in time. */
  async allDelivered(revision: number, timeoutMs: number): Promise<Delivery | undefined> {
    const done = this.deliveries.get(revision);
    if (done && done.received === this.watchers) return this.forget(revision, done);
    let timer: NodeJS.Timeout | undefined;
    const delivery = await new Promise<Delivery | undefined>((resolve) => {
      this.waiter = { revision, resolve };
      timer = setTimeout(() => resolve(undefined), timeoutMs);
    });
    clearTimeout(timer);
    this.waiter = undefined;
    return delivery && this.forget(revision, delivery);
  }

  private forget(revision: number, delivery: Delivery): Delivery {
    this.deliveries.delete(revision);
    return delivery;
  }
}

export async function measureWatchLatency(options: {
  cache: WatchCache;
  watchers: number;
  writes: number;
  maxMs: number;
  /** How long one write's event may take to reach every watcher before it counts as undelivered. */
  perWriteWaitMs: number;
}): Promise<WatchLatency> {
  const { cache, watchers, writes, maxMs, perWriteWaitMs } = options;
  const key = { namespace: 'watched', name: 'pod-0' };
  const created = await cache.create(key, benchPod({ ...key, index: 0 }));
  const tracker = new DeliveryTracker(watchers);
  const droppedBefore = cache.stats().terminatedWatchers;

  const watches: ObjectWatch[] = [];
  for (let i = 0; i < watchers; i++) {
    watches.push(await cache.watch({}, { resourceVersion: created.metadata.resourceVersion, predicate: EVERYTHING }));
  }
  const readers = watches.map(async (watch) => {
    for await (const event of watch) {
      if (event.type === 'MODIFIED') tracker.received(Number(event.object.metadata.resourceVersion));
    }
  });

  const ackMs: number[] = [];
  const firstMs: number[] = [];
  const allMs: number[] = [];
  let undelivered = 0;
  const deadline = performance.now() + maxMs;
  try {
    for (let i = 1; i <= writes && performance.now() < deadline; i++) {
      const begin = performance.now();
      const { object } = await cache.update(key, (pod) => {
        if (pod === undefined) throw new Error(`the watched pod ${key.namespace}/${key.name} is gone`);
        pod.metadata.labels = { ...pod.metadata.labels, write: String(i) };
        return pod;
      });
      ackMs.push(performance.now() - begin);
      const delivery = await tracker.allDelivered(Number(object.metadata.resourceVersion), perWriteWaitMs);
      if (!delivery) {
        undelivered++;
        continue;
      }
      firstMs.push(delivery.firstAt - begin);
      allMs.push(delivery.lastAt - begin);
    }
  } finally {
    for (const watch of watches) watch.stop();
    await Promise.all(readers);
  }
  return {
    watchers,
    writes: ackMs.length,
    undelivered,
    writeAckP50Ms: percentile(ackMs, 50),
    firstWatcherP50Ms: percentile(firstMs, 50),
    allWatchersP50Ms: percentile(allMs, 50),
    allWatchersP99Ms: percentile(allMs, 99),
    watchersDropped: cache.stats().terminatedWatchers - droppedBefore,
  };
}
