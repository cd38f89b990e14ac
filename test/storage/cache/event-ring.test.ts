/** The ring's sizing policy and window, with event times chosen by the test. */
import { type CacheEvent, EventRing } from '../../../storage/cache/event-ring';

function eventAt(revision: number, recordedAt: number): CacheEvent {
  const object = { metadata: { name: `p${revision}`, resourceVersion: String(revision) } };
  return {
    type: 'ADDED',
    key: `/r/ns/p${revision}`,
    namespace: 'ns',
    name: `p${revision}`,
    revision,
    object,
    prevObject: undefined,
    recordedAt,
    size: 0,
  };
}

describe('EventRing', () => {
  it('doubles while its oldest event is fresh, up to the maximum', () => {
    const ring = new EventRing({ initialCapacity: 4, minCapacity: 4, maxCapacity: 16, freshWindowMs: 1_000 }, 10);
    for (let revision = 11; revision <= 40; revision++) ring.push(eventAt(revision, 0));
    expect(ring.capacity).toBe(16);
    expect(ring.size).toBe(16);
    expect(ring.windowStart).toBe(24);
    expect(ring.eventsAfter(24).map((event) => event.revision)).toEqual(Array.from({ length: 16 }, (_, i) => 25 + i));
  });

  it('keeps its size while the oldest event is stale, and halves once the newest quarter is stale too', () => {
    const ring = new EventRing({ initialCapacity: 8, minCapacity: 2, maxCapacity: 64, freshWindowMs: 1_000 }, 0);
    for (let revision = 1; revision <= 8; revision++) ring.push(eventAt(revision, revision * 100));
    ring.push(eventAt(9, 1_150)); // oldest (100) is older than the window, the newest quarter is not
    expect(ring.capacity).toBe(8);
    expect(ring.windowStart).toBe(1);
    ring.push(eventAt(10, 5_000)); // every event is stale: halve
    expect(ring.capacity).toBe(4);
    expect(ring.eventsAfter(0).map((event) => event.revision)).toEqual([7, 8, 9, 10]);
    expect(ring.windowStart).toBe(6);
  });

  it('starts its window at the list revision and drops compacted history', () => {
    const ring = new EventRing({}, 100);
    expect(ring.windowStart).toBe(100);
    for (let revision = 101; revision <= 110; revision++) ring.push(eventAt(revision, 0));
    ring.dropBefore(105);
    expect(ring.windowStart).toBe(104);
    expect(ring.eventsAfter(0)[0].revision).toBe(105);
    const newestFirst: number[] = [];
    ring.forEachAfterNewestFirst(107, (event) => newestFirst.push(event.revision));
    expect(newestFirst).toEqual([110, 109, 108]);
  });
});
