/**
 * The cost of fan-out, in memory (no store): one event offered to 1,000 watchers, each with its
 * own reader. Dispatch reaches only the interested watchers and hands them all one event object
 * instead of a copy each; its time is printed, not bounded (bench/watch-fanout.ts measures it),
 * since a bound loose enough for a loaded 2-core CI machine says nothing.
 */
import { CacheWatcher } from '../../../storage/cache/cache-watcher';
import type { CacheEvent } from '../../../storage/cache/event-ring';
import { WatcherSet } from '../../../storage/cache/watcher-set';
import { EVERYTHING, type ObjectWatchEvent, type Predicate } from '../../../storage/objects/types';

import type { KubeObject } from '../../../api/objects';
function event(i: number, namespace: string, previous?: KubeObject): CacheEvent {
  const object: KubeObject = {
    kind: 'Pod',
    metadata: { name: `p${i % 100}`, namespace, resourceVersion: String(i + 1), labels: { app: i % 2 ? 'web' : 'db' } },
  };
  return {
    type: previous ? 'MODIFIED' : 'ADDED',
    key: `/registry/pods/${namespace}/p${i % 100}`,
    namespace,
    name: `p${i % 100}`,
    revision: i + 1,
    object,
    prevObject: previous,
    recordedAt: Date.now(),
    size: 0,
  };
}

function watcherOf(
  set: WatcherSet,
  options: { namespace?: string; predicate?: Predicate },
): { watcher: CacheWatcher; received: ObjectWatchEvent[] } {
  const received: ObjectWatchEvent[] = [];
  const watcher = new CacheWatcher({
    namespace: options.namespace,
    predicate: options.predicate ?? EVERYTHING,
    bufferSize: 10_000,
    bufferBytes: Infinity,
    startAfter: 0,
    allowBookmarks: false,
    onStop: (stopped) => set.remove(stopped),
  });
  set.add(watcher);
  return { watcher, received };
}

async function drain(
  watchers: { watcher: CacheWatcher; received: ObjectWatchEvent[] }[],
  count: number,
): Promise<void> {
  await Promise.all(
    watchers.map(async ({ watcher, received }) => {
      const iterator = watcher[Symbol.asyncIterator]();
      while (received.length < count) received.push((await iterator.next()).value as ObjectWatchEvent);
    }),
  );
}

describe('dispatch cost', () => {
  it('offers an event to 1,000 watchers cheaply, sharing the object', async () => {
    const set = new WatcherSet({ currentRevision: () => 0 });
    const label: Predicate = { everything: false, matches: (object) => object.metadata.labels?.app === 'web' };
    const watchers = Array.from({ length: 1_000 }, (_, i) => watcherOf(set, { predicate: i % 2 ? label : EVERYTHING }));
    const events = Array.from({ length: 1_000 }, (_, i) => event(i, 'ns'));
    const started = process.hrtime.bigint();
    for (const each of events) set.dispatch(each);
    const dispatchMs = Number(process.hrtime.bigint() - started) / 1e6;
    const drainStarted = process.hrtime.bigint();
    await drain(
      watchers.filter((_, i) => i % 2 === 0),
      1_000,
    );
    const drainMs = Number(process.hrtime.bigint() - drainStarted) / 1e6;
    process.stdout.write(
      `dispatch: ${((dispatchMs * 1000) / events.length).toFixed(1)} µs per event to 1,000 watchers; reading: ${((drainMs * 1e6) / (500 * 1_000)).toFixed(0)} ns per delivered event\n`,
    );
    expect(watchers[0].received[0]).toMatchObject({ object: events[0].object });
    expect((watchers[0].received[0] as { object: KubeObject }).object).toBe(events[0].object);
    // Every watcher that takes an event gets the same event object, not one of its own.
    for (const at of [0, 1, 999]) {
      for (const { received } of watchers.filter((_, i) => i % 2 === 0))
        expect(received[at]).toBe(watchers[0].received[at]);
    }
    for (const { watcher } of watchers) watcher.stop();
  });

  it('reaches only the watchers of the event namespace or name', () => {
    const set = new WatcherSet({ currentRevision: () => 0 });
    const watchers = Array.from({ length: 1_000 }, (_, i) => watcherOf(set, { namespace: `ns${i}` }));
    const byName = watcherOf(set, {
      predicate: { everything: false, name: 'p7', matches: (object) => object.metadata.name === 'p7' },
    });
    const started = process.hrtime.bigint();
    for (let i = 0; i < 10_000; i++) set.dispatch(event(i, `ns${i % 1_000}`));
    const perEventUs = Number(process.hrtime.bigint() - started) / 1e3 / 10_000;
    process.stdout.write(`dispatch to 1 of 1,000 namespace-scoped watchers: ${perEventUs.toFixed(2)} µs per event\n`);
    expect(watchers[3].watcher.queued).toBe(10);
    expect(byName.watcher.queued).toBe(100);
    expect(perEventUs).toBeLessThan(200);
    for (const { watcher } of [...watchers, byName]) watcher.stop();
  });
});
