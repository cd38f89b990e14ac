/**
 * The watchers of one cache, indexed so that an event reaches only those that may want it:
 * watchers pinned to a name (field selector on metadata.name) are found by the event's name,
 * namespace-scoped ones by its namespace, the rest see everything. Dispatch is synchronous and
 * never waits for a reader; blocked readers share a DispatchBudget and are closed when it runs
 * out. Bookmarks come from one timer for the whole set.
 */
import type { ObjectWatchEvent } from '../objects/types';
import { bookmarkEvent, CacheWatcher, type Grace, WatchEventsOf } from './cache-watcher';
import { DispatchBudget, type DispatchBudgetOptions } from './dispatch-budget';
import type { CacheEvent } from './event-ring';

export interface WatcherSetOptions {
  /** Periodic bookmark interval per watcher (the reference: about a minute). */
  readonly bookmarkIntervalMs?: number;
  /** A bookmark goes out this long before a watch's deadline (the reference: 2 s). */
  readonly deadlineBookmarkLeadMs?: number;
  readonly budget?: DispatchBudgetOptions;
  /** The revision a bookmark reports: everything up to it has been offered to every watcher. */
  readonly currentRevision: () => number;
}

type WatcherBucket = Set<CacheWatcher>;

export class WatcherSet {
  private readonly bookmarkIntervalMs: number;
  private readonly deadlineLeadMs: number;
  private readonly budget: DispatchBudget;
  private readonly currentRevision: () => number;
  private readonly everywhere: WatcherBucket = new Set();
  private readonly byNamespace = new Map<string, WatcherBucket>();
  private readonly byName = new Map<string, WatcherBucket>();
  private readonly bookmarkWatchers: WatcherBucket = new Set();
  private bookmarkTimer: NodeJS.Timeout | undefined;
  private terminated = 0;

  constructor(options: WatcherSetOptions) {
    this.bookmarkIntervalMs = options.bookmarkIntervalMs ?? 60_000;
    this.deadlineLeadMs = options.deadlineBookmarkLeadMs ?? 2_000;
    this.budget = new DispatchBudget(options.budget);
    this.currentRevision = options.currentRevision;
  }

  /** Watchers closed because they could not keep up. */
  get terminatedCount(): number {
    return this.terminated;
  }

  get size(): number {
    let size = this.everywhere.size;
    for (const bucket of this.byNamespace.values()) size += bucket.size;
    for (const bucket of this.byName.values()) size += bucket.size;
    return size;
  }

  add(watcher: CacheWatcher): void {
    this.bucketFor(watcher, true)?.add(watcher);
    if (watcher.allowBookmarks) {
      watcher.nextBookmarkAt = this.nextBookmarkTime(watcher, Date.now());
      this.bookmarkWatchers.add(watcher);
      this.ensureBookmarkTimer();
    }
  }

  remove(watcher: CacheWatcher): void {
    const bucket = this.bucketFor(watcher, false);
    bucket?.delete(watcher);
    if (bucket && bucket.size === 0 && bucket !== this.everywhere) {
      if (watcher.predicate.name !== undefined) this.byName.delete(watcher.predicate.name);
      else this.byNamespace.delete(watcher.namespace as string);
    }
    this.bookmarkWatchers.delete(watcher);
    if (this.bookmarkWatchers.size === 0) this.stopBookmarkTimer();
  }

  /** Closes every watcher (their readers resume from the last resource version they saw). */
  closeAll(): void {
    for (const watcher of this.all()) watcher.stop();
    this.stopBookmarkTimer();
  }

  dispatch(event: CacheEvent): void {
    let blocked: { watcher: CacheWatcher; event: ObjectWatchEvent }[] | undefined;
    const size = event.size;
    const watchEvents = new WatchEventsOf(event);
    const offerTo = (bucket: WatcherBucket | undefined) => {
      if (!bucket) return;
      for (const watcher of bucket) {
        if (event.revision <= watcher.startAfter) continue;
        if (watcher.namespace !== undefined && watcher.namespace !== event.namespace) continue;
        const watchEvent = watchEvents.for(watcher.predicate);
        if (!watchEvent) continue;
        const outcome = watcher.offer(watchEvent, size);
        if (outcome === 'full') (blocked ??= []).push({ watcher, event: watchEvent });
        else if (outcome === 'closed') this.terminate(watcher);
      }
    };
    offerTo(this.everywhere);
    offerTo(this.byNamespace.get(event.namespace));
    offerTo(this.byName.get(event.name));
    if (blocked) this.graceOrClose(blocked, size);
  }

  private graceOrClose(blocked: { watcher: CacheWatcher; event: ObjectWatchEvent }[], size: number): void {
    const grantedMs = this.budget.take();
    if (grantedMs < 1) {
      for (const { watcher } of blocked) this.terminate(watcher);
      return;
    }
    const pending = new Set<CacheWatcher>();
    const started = Date.now();
    const grace: Grace = {
      deadline: started + grantedMs,
      caughtUp: (watcher) => {
        pending.delete(watcher);
        if (pending.size > 0) return;
        clearTimeout(timer);
        this.budget.giveBack(grantedMs - (Date.now() - started));
      },
    };
    const timer = setTimeout(() => {
      for (const watcher of pending) {
        watcher.endGrace();
        if (watcher.behind) this.terminate(watcher);
      }
    }, grantedMs);
    for (const { watcher, event } of blocked) {
      pending.add(watcher);
      watcher.overflow(event, size, grace);
    }
  }

  private terminate(watcher: CacheWatcher): void {
    if (watcher.closed) return;
    this.terminated++;
    watcher.stop();
  }

  private *all(): Generator<CacheWatcher> {
    yield* [...this.everywhere];
    for (const bucket of [...this.byNamespace.values(), ...this.byName.values()]) yield* [...bucket];
  }

  private bucketFor(watcher: CacheWatcher, create: boolean): WatcherBucket | undefined {
    const name = watcher.predicate.name;
    if (name !== undefined) return this.bucketIn(this.byName, name, create);
    if (watcher.namespace !== undefined) return this.bucketIn(this.byNamespace, watcher.namespace, create);
    return this.everywhere;
  }

  private bucketIn(index: Map<string, WatcherBucket>, key: string, create: boolean): WatcherBucket | undefined {
    let bucket = index.get(key);
    if (!bucket && create) {
      bucket = new Set();
      index.set(key, bucket);
    }
    return bucket;
  }

  /** Periodic, but one lands shortly before the deadline so a client can resume from a fresh version. */
  private nextBookmarkTime(watcher: CacheWatcher, now: number): number {
    const periodic = now + this.bookmarkIntervalMs;
    if (watcher.deadline === undefined) return periodic;
    const beforeDeadline = watcher.deadline - this.deadlineLeadMs;
    return beforeDeadline > now && beforeDeadline < periodic ? beforeDeadline : periodic;
  }

  private ensureBookmarkTimer(): void {
    if (this.bookmarkTimer) return;
    const tickMs = Math.max(
      10,
      Math.min(1_000, Math.floor(this.bookmarkIntervalMs / 4), Math.floor(this.deadlineLeadMs / 4)),
    );
    this.bookmarkTimer = setInterval(() => this.sendDueBookmarks(), tickMs);
    this.bookmarkTimer.unref();
  }

  private stopBookmarkTimer(): void {
    clearInterval(this.bookmarkTimer);
    this.bookmarkTimer = undefined;
  }

  private sendDueBookmarks(): void {
    const now = Date.now();
    const revision = this.currentRevision();
    for (const watcher of this.bookmarkWatchers) {
      if (watcher.nextBookmarkAt > now) continue;
      // A watch that starts after the cache's revision has nothing to confirm yet.
      if (revision < watcher.startAfter) continue;
      watcher.offerBookmark(bookmarkEvent(revision));
      watcher.nextBookmarkAt = this.nextBookmarkTime(watcher, now);
    }
  }
}
