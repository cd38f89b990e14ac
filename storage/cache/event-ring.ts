/**
 * The recent events of one resource type, oldest first, in a ring that sizes itself to the
 * write rate: it doubles (up to `maxCapacity`) while its oldest event is younger than the
 * freshness window, so a watch that reconnects within the window can resume; it halves (down
 * to `minCapacity`) when even the newest quarter is older than the window, so a quiet resource
 * does not hold memory it no longer needs. Same policy as the reference server's watch cache.
 */
import type { KubeObject } from '../../api/objects';

export interface CacheEvent {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly key: string;
  /** `metadata.namespace` of the object, "" for cluster-scoped ones (for watcher lookup). */
  readonly namespace: string;
  readonly name: string;
  readonly revision: number;
  /** The new state; for DELETED the last state stamped with the deletion's revision. */
  readonly object: KubeObject;
  /** The state before this event; absent for ADDED. */
  readonly prevObject: KubeObject | undefined;
  /** When the cache recorded it (ms since epoch), for the ring's sizing. */
  readonly recordedAt: number;
  /** Bytes of the stored object, for the watchers' byte budgets. */
  readonly size: number;
}

export interface EventRingOptions {
  readonly initialCapacity?: number;
  readonly minCapacity?: number;
  readonly maxCapacity?: number;
  /** How long events should stay resumable: 75 s in the reference. */
  readonly freshWindowMs?: number;
}

export class EventRing {
  private readonly minCapacity: number;
  private readonly maxCapacity: number;
  private readonly freshWindowMs: number;
  private slots: (CacheEvent | undefined)[];
  private start = 0;
  private count = 0;
  /** Every event after this revision is in the ring (the list revision, or the last evicted event's). */
  private coveredFrom: number;

  constructor(options: EventRingOptions, listRevision: number) {
    this.minCapacity = options.minCapacity ?? 100;
    this.maxCapacity = options.maxCapacity ?? 102_400;
    this.freshWindowMs = options.freshWindowMs ?? 75_000;
    this.slots = new Array(Math.max(1, options.initialCapacity ?? 100));
    this.coveredFrom = listRevision;
  }

  get capacity(): number {
    return this.slots.length;
  }

  get size(): number {
    return this.count;
  }

  /** Events after this revision are all in the ring; a watch may resume from it or later. */
  get windowStart(): number {
    return this.coveredFrom;
  }

  push(event: CacheEvent): void {
    if (this.count === this.slots.length) {
      this.resize(event.recordedAt);
      if (this.count === this.slots.length) this.evictOldest();
    }
    this.slots[(this.start + this.count) % this.slots.length] = event;
    this.count++;
  }

  /** Forget events below `revision` (compaction): the window then starts at `revision - 1` at the earliest. */
  dropBefore(revision: number): void {
    while (this.count > 0 && this.at(0).revision < revision) this.evictOldest();
    this.coveredFrom = Math.max(this.coveredFrom, revision - 1);
  }

  /** Events with a revision above `revision`, oldest first (a new array; events are shared). */
  eventsAfter(revision: number): CacheEvent[] {
    const first = this.firstIndexAfter(revision);
    const result = new Array<CacheEvent>(this.count - first);
    for (let i = first; i < this.count; i++) result[i - first] = this.at(i);
    return result;
  }

  /** Calls `visit` for the events above `revision`, newest first. */
  forEachAfterNewestFirst(revision: number, visit: (event: CacheEvent) => void): void {
    const first = this.firstIndexAfter(revision);
    for (let i = this.count - 1; i >= first; i--) visit(this.at(i));
  }

  private at(index: number): CacheEvent {
    return this.slots[(this.start + index) % this.slots.length] as CacheEvent;
  }

  private firstIndexAfter(revision: number): number {
    let low = 0;
    let high = this.count;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.at(middle).revision > revision) high = middle;
      else low = middle + 1;
    }
    return low;
  }

  private evictOldest(): void {
    const oldest = this.at(0);
    this.slots[this.start] = undefined;
    this.start = (this.start + 1) % this.slots.length;
    this.count--;
    this.coveredFrom = Math.max(this.coveredFrom, oldest.revision);
  }

  /** Called when full: grow while the oldest event is still fresh, shrink when the newest quarter is stale. */
  private resize(now: number): void {
    const capacity = this.slots.length;
    if (now - this.at(0).recordedAt < this.freshWindowMs) {
      if (capacity < this.maxCapacity) this.reallocate(Math.min(capacity * 2, this.maxCapacity));
      return;
    }
    const quarterBack = this.at(this.count - Math.max(1, Math.floor(capacity / 4)));
    if (now - quarterBack.recordedAt > this.freshWindowMs && capacity > this.minCapacity) {
      const smaller = Math.max(Math.floor(capacity / 2), this.minCapacity);
      while (this.count > smaller) this.evictOldest();
      this.reallocate(smaller);
    }
  }

  private reallocate(capacity: number): void {
    const slots = new Array<CacheEvent | undefined>(capacity);
    for (let i = 0; i < this.count; i++) slots[i] = this.at(i);
    this.slots = slots;
    this.start = 0;
  }
}
