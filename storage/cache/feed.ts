/**
 * The one store watch of a replica: it follows every key of the store and hands each event to
 * the cache whose key prefix holds it.
 *
 * Because it sees every write, the highest revision it has delivered is the store's revision
 * (as long as only capstan writes to the store). So a cache can confirm that it is fresh for a
 * consistent read by comparing that revision with `store.currentRevision()`, without asking
 * etcd for progress notifications (etcd 3.4.23 has no reliable way to ask for one).
 *
 * It also sees the compactor's writes of `compact_rev_key` (the revision it is about to compact
 * to), so every replica's caches forget history below that revision at once, even those that
 * did not compact: reads and watches from before it then answer 410 everywhere alike.
 *
 * Failure: when the store watch fails, the feed resumes from the next revision it has not seen,
 * so nothing is lost and no cache notices. Only when that revision is compacted (a long outage)
 * events are lost: the feed restarts at the current revision and tells every cache to re-list,
 * which closes its watchers (clients resume from their last resource version, or get 410).
 */
import { COMPACT_REVISION_KEY } from '../compactor';
import { CompactedError } from '../errors';
import type { RevisionedStore, StoreEvent, StoreWatch } from '../store';

/** What a cache gives the feed. */
export interface FeedListener {
  /** Key prefix of the listener's resource, with its trailing "/". */
  readonly prefix: string;
  /** Events of keys under `prefix`, in revision order, each batch of whole revisions. */
  onEvents(events: readonly StoreEvent[]): void;
  /** History below `revision` is gone from the store. */
  onCompacted(revision: number): void;
  /** Events were lost (the feed restarted at `feed.revision`): list again from there. */
  onReset(): void;
}

export interface StoreFeedOptions {
  readonly store: RevisionedStore;
  /** First wait before re-opening a failed watch; doubles up to `maxRetryDelayMs`. */
  readonly retryDelayMs?: number;
  readonly maxRetryDelayMs?: number;
}

interface RevisionWaiter {
  readonly revision: number;
  readonly resolve: (reached: boolean) => void;
  readonly timer: NodeJS.Timeout;
}

export class StoreFeed {
  readonly store: RevisionedStore;
  private readonly retryDelayMs: number;
  private readonly maxRetryDelayMs: number;
  private readonly listeners = new Map<string, FeedListener>();
  /** Distinct lengths of registered prefixes, longest first, for the lookup by key. */
  private prefixLengths: number[] = [];
  private waiters: RevisionWaiter[] = [];
  private seenRevision = 0;
  private compacted = 0;
  private watch: StoreWatch | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private retryDelay: number;
  private state: 'new' | 'starting' | 'running' | 'stopped' = 'new';
  private startedPromise: Promise<void> | undefined;
  private markStarted!: () => void;
  private readonly started = new Promise<void>((resolve) => {
    this.markStarted = resolve;
  });

  constructor(options: StoreFeedOptions) {
    this.store = options.store;
    this.retryDelayMs = options.retryDelayMs ?? 100;
    this.maxRetryDelayMs = options.maxRetryDelayMs ?? 5_000;
    this.retryDelay = this.retryDelayMs;
  }

  /** The highest store revision whose events have all been delivered. */
  get revision(): number {
    return this.seenRevision;
  }

  /** The highest compacted revision the feed has learnt of (0 when none). */
  get compactedRevision(): number {
    return this.compacted;
  }

  get running(): boolean {
    return this.state === 'running';
  }

  private get stopped(): boolean {
    return this.state === 'stopped';
  }

  /**
   * Reads the store's revision and compaction and starts watching after it. Listeners list
   * their state at `revision` once this resolves. Calling it again returns the same promise.
   */
  start(): Promise<void> {
    this.startedPromise ??= this.open();
    return this.startedPromise;
  }

  /** Resolves once started (for listeners created before `start`). */
  whenStarted(): Promise<void> {
    return this.started;
  }

  stop(): void {
    this.state = 'stopped';
    this.watch?.close();
    this.watch = undefined;
    clearTimeout(this.retryTimer);
    for (const waiter of this.waiters) {
      clearTimeout(waiter.timer);
      waiter.resolve(false);
    }
    this.waiters = [];
  }

  register(listener: FeedListener): void {
    if (this.listeners.has(listener.prefix)) throw new Error(`a cache for ${listener.prefix} is already registered`);
    this.listeners.set(listener.prefix, listener);
    this.prefixLengths = [...new Set([...this.listeners.keys()].map((prefix) => prefix.length))].sort((a, b) => b - a);
  }

  unregister(listener: FeedListener): void {
    if (this.listeners.get(listener.prefix) === listener) this.listeners.delete(listener.prefix);
  }

  /** Resolves true once `revision` is delivered, false after `timeoutMs` (or when stopped). */
  waitForRevision(revision: number, timeoutMs: number): Promise<boolean> {
    if (this.seenRevision >= revision) return Promise.resolve(true);
    if (this.state === 'stopped' || timeoutMs <= 0) return Promise.resolve(false);
    return new Promise((resolve) => {
      const waiter: RevisionWaiter = {
        revision,
        resolve,
        timer: setTimeout(() => {
          this.waiters = this.waiters.filter((other) => other !== waiter);
          resolve(false);
        }, timeoutMs),
      };
      this.waiters.push(waiter);
    });
  }

  private async open(): Promise<void> {
    this.state = 'starting';
    const [revision, compacted] = await Promise.all([this.store.currentRevision(), this.store.compactedRevision()]);
    if (this.stopped) return;
    this.seenRevision = revision;
    this.compacted = compacted;
    this.state = 'running';
    this.openWatch();
    this.markStarted();
  }

  private openWatch(): void {
    if (this.state !== 'running') return;
    const watch = this.store.watch({
      prefix: '',
      fromRevision: this.seenRevision + 1,
      onEvents: (events) => {
        if (this.watch !== watch) return;
        this.retryDelay = this.retryDelayMs;
        this.deliver(events);
      },
      onProgress: (revision) => {
        if (this.watch !== watch) return;
        this.advance(revision);
      },
      onError: (error) => {
        if (this.watch !== watch) return;
        this.watch = undefined;
        this.scheduleRecovery({ eventsLost: error instanceof CompactedError });
      },
    });
    this.watch = watch;
  }

  private deliver(events: StoreEvent[]): void {
    let batch: StoreEvent[] = [];
    let batchListener: FeedListener | undefined;
    const flush = () => {
      if (batchListener && batch.length > 0) batchListener.onEvents(batch);
      batch = [];
    };
    let last = this.seenRevision;
    for (const event of events) {
      if (event.kv.modRevision <= this.seenRevision) continue; // already delivered before a resume
      last = Math.max(last, event.kv.modRevision);
      if (event.kv.key === COMPACT_REVISION_KEY) {
        flush();
        if (event.type === 'put') this.noteCompaction(Number(event.kv.value.toString('utf8')));
        continue;
      }
      const listener = this.listenerFor(event.kv.key);
      if (listener !== batchListener) {
        flush();
        batchListener = listener;
      }
      if (listener) batch.push(event);
    }
    flush();
    this.advance(last);
  }

  private listenerFor(key: string): FeedListener | undefined {
    for (const length of this.prefixLengths) {
      if (length > key.length) continue;
      const listener = this.listeners.get(key.slice(0, length));
      if (listener) return listener;
    }
    return undefined;
  }

  private noteCompaction(revision: number): void {
    if (!Number.isSafeInteger(revision) || revision <= this.compacted) return;
    this.compacted = revision;
    for (const listener of this.listeners.values()) listener.onCompacted(revision);
  }

  private advance(revision: number): void {
    if (revision <= this.seenRevision) return;
    this.seenRevision = revision;
    if (this.waiters.length === 0) return;
    const still: RevisionWaiter[] = [];
    for (const waiter of this.waiters) {
      if (waiter.revision <= revision) {
        clearTimeout(waiter.timer);
        waiter.resolve(true);
      } else {
        still.push(waiter);
      }
    }
    this.waiters = still;
  }

  /** Re-opens the watch after a delay; from where it stopped unless the events since are gone. */
  private scheduleRecovery(failure: { eventsLost: boolean }): void {
    if (this.state !== 'running') return;
    const delay = this.retryDelay;
    this.retryDelay = Math.min(this.retryDelay * 2, this.maxRetryDelayMs);
    this.retryTimer = setTimeout(() => {
      if (failure.eventsLost) void this.restartAfterLoss();
      else this.openWatch();
    }, delay);
  }

  /** The events after `revision` are compacted away: start over at the current revision. */
  private async restartAfterLoss(): Promise<void> {
    if (this.state !== 'running') return;
    try {
      const [revision, compacted] = await Promise.all([this.store.currentRevision(), this.store.compactedRevision()]);
      if (this.state !== 'running') return;
      this.noteCompaction(compacted);
      this.advance(revision);
      for (const listener of this.listeners.values()) listener.onReset();
      this.openWatch();
    } catch {
      this.scheduleRecovery({ eventsLost: true });
    }
  }
}
