/**
 * One client's watch on a cache: first its synthetic events (initial state), then the live
 * events the cache offers it, through a bounded queue the reader drains at its own pace.
 *
 * The cache never waits for a reader. The queue is full at `bufferSize` events or at
 * `bufferBytes` bytes of objects, whichever comes first (a few large objects weigh as much as
 * many small ones). When it is full the cache grants a short grace (see DispatchBudget) during
 * which the queue may grow up to twice either bound; a reader still behind when the grace ends,
 * or past twice a bound, is closed: its iteration just ends, its queue is dropped, `done`
 * settles (so a reader waiting on its client learns of it), and the client resumes from the
 * last resource version it saw.
 */
import { withResourceVersion } from '../objects/codec';
import type { ObjectWatch, ObjectWatchEvent, Predicate } from '../objects/types';
import type { CacheEvent } from './event-ring';

import type { KubeObject } from '../../api/objects';
/** A set of watchers sharing one grace: closed together when it ends, budget returned if all caught up. */
export interface Grace {
  readonly deadline: number;
  /** A watcher of the group caught up before the deadline. */
  caughtUp(watcher: CacheWatcher): void;
}

export interface CacheWatcherOptions {
  /** Only this namespace (absent: every namespace). */
  readonly namespace?: string;
  readonly predicate: Predicate;
  /** Live events the queue holds before the watcher counts as blocked. */
  readonly bufferSize: number;
  /** Bytes of objects (as stored) the queue holds before the watcher counts as blocked. */
  readonly bufferBytes: number;
  /** Live events at or below this revision are not delivered (the initial state covers them). */
  readonly startAfter: number;
  /** Synthetic events delivered before any live one. */
  readonly initialEvents?: Iterator<ObjectWatchEvent>;
  readonly allowBookmarks: boolean;
  /** Ends the watch after this long. */
  readonly timeoutMs?: number;
  /** Called once when the watch ends, whoever ends it. */
  readonly onStop: (watcher: CacheWatcher) => void;
}

const DONE: IteratorReturnResult<undefined> = { done: true, value: undefined };

/**
 * The watch events one cache event can become, made once and shared by every watcher that
 * sees the same one (readers never mutate events or objects).
 */
export class WatchEventsOf {
  private added: ObjectWatchEvent | undefined;
  private modified: ObjectWatchEvent | undefined;
  private deleted: ObjectWatchEvent | undefined;
  private left: ObjectWatchEvent | undefined;

  constructor(readonly event: CacheEvent) {}

  /** The event a watcher with `predicate` sees, if any: the enter/leave rule of selectors. */
  for(predicate: Predicate): ObjectWatchEvent | undefined {
    const event = this.event;
    if (event.type === 'DELETED') {
      if (event.prevObject === undefined || !predicate.matches(event.prevObject)) return undefined;
      return (this.deleted ??= { type: 'DELETED', object: event.object });
    }
    const matchesNow = predicate.matches(event.object);
    const matchedBefore = event.prevObject !== undefined && predicate.matches(event.prevObject);
    if (matchesNow && matchedBefore)
      return (this.modified ??= { type: 'MODIFIED', object: event.object, previous: event.prevObject });
    if (matchesNow) return (this.added ??= { type: 'ADDED', object: event.object });
    if (!matchedBefore) return undefined;
    // Leaving the selection: the last state the watcher saw, at the revision it went away.
    return (this.left ??= {
      type: 'DELETED',
      object: withResourceVersion(event.prevObject as KubeObject, event.revision),
    });
  }
}

export function bookmarkEvent(revision: number, annotations?: Record<string, string>): ObjectWatchEvent {
  return {
    type: 'BOOKMARK',
    object: {
      metadata: annotations
        ? { resourceVersion: String(revision), annotations }
        : { resourceVersion: String(revision) },
    },
  };
}

export class CacheWatcher implements ObjectWatch {
  readonly namespace: string | undefined;
  readonly predicate: Predicate;
  readonly allowBookmarks: boolean;
  readonly startAfter: number;
  /** When the next periodic bookmark is due (ms since epoch); set by the watcher set. */
  nextBookmarkAt = 0;
  readonly deadline: number | undefined;
  private readonly bufferSize: number;
  private readonly bufferBytes: number;
  private readonly onStop: (watcher: CacheWatcher) => void;
  private initial: Iterator<ObjectWatchEvent> | undefined;
  private queue: ObjectWatchEvent[] = [];
  /** Bytes charged for each queued event, in step with `queue`. */
  private sizes: number[] = [];
  private head = 0;
  private queuedBytes = 0;
  private readonly ended: Promise<void>;
  private settleEnded!: () => void;
  private waiting: ((result: IteratorResult<ObjectWatchEvent>) => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private grace: Grace | undefined;
  private stopped = false;

  constructor(options: CacheWatcherOptions) {
    this.namespace = options.namespace;
    this.predicate = options.predicate;
    this.allowBookmarks = options.allowBookmarks;
    this.startAfter = options.startAfter;
    this.bufferSize = options.bufferSize;
    this.bufferBytes = options.bufferBytes;
    this.onStop = options.onStop;
    this.ended = new Promise((resolve) => (this.settleEnded = resolve));
    this.initial = options.initialEvents;
    if (options.timeoutMs !== undefined) {
      this.deadline = Date.now() + options.timeoutMs;
      this.timer = setTimeout(() => this.stop(), options.timeoutMs);
    }
  }

  get closed(): boolean {
    return this.stopped;
  }

  get done(): Promise<void> {
    return this.ended;
  }

  /** Events waiting for the reader. */
  get queued(): number {
    return this.queue.length - this.head;
  }

  /** True while the reader is still given its synthetic events. */
  get sendingInitialEvents(): boolean {
    return this.initial !== undefined;
  }

  /**
   * Queues a live event. 'full' means the queue is at its size and no grace is running: the
   * caller either grants one (`overflow`) or closes the watcher. 'closed' means past twice
   * the size during a grace: the caller must close it.
   */
  offer(event: ObjectWatchEvent, size: number): 'queued' | 'full' | 'closed' {
    if (this.stopped) return 'queued';
    if (this.behind) {
      if (!this.grace) return 'full';
      if (this.queued >= 2 * this.bufferSize || this.queuedBytes >= 2 * this.bufferBytes) return 'closed';
    }
    this.push(event, size);
    return 'queued';
  }

  /** Queues `event` past the size, under `grace`. */
  overflow(event: ObjectWatchEvent, size: number, grace: Grace): void {
    this.grace = grace;
    this.push(event, size);
  }

  /** At either bound of its queue (still behind, when its grace ends). */
  get behind(): boolean {
    return this.queued >= this.bufferSize || this.queuedBytes >= this.bufferBytes;
  }

  endGrace(): void {
    this.grace = undefined;
  }

  /** Queues a bookmark when there is room; a bookmark is never worth a blocked reader. */
  offerBookmark(event: ObjectWatchEvent): boolean {
    if (this.stopped || this.behind) return false;
    this.push(event, 0);
    return true;
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    clearTimeout(this.timer);
    this.queue = [];
    this.sizes = [];
    this.head = 0;
    this.queuedBytes = 0;
    this.initial = undefined;
    this.grace = undefined;
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.(DONE);
    this.onStop(this);
    this.settleEnded();
  }

  [Symbol.asyncIterator](): AsyncIterator<ObjectWatchEvent> {
    return {
      next: () => this.next(),
      return: () => {
        this.stop();
        return Promise.resolve(DONE);
      },
    };
  }

  private next(): Promise<IteratorResult<ObjectWatchEvent>> {
    if (this.stopped) return Promise.resolve(DONE);
    if (this.initial) {
      const result = this.initial.next();
      if (!result.done) return Promise.resolve({ done: false, value: result.value });
      this.initial = undefined;
    }
    const event = this.shift();
    if (event) return Promise.resolve({ done: false, value: event });
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  private push(event: ObjectWatchEvent, size: number): void {
    if (this.waiting && this.initial === undefined) {
      const waiting = this.waiting;
      this.waiting = undefined;
      waiting({ done: false, value: event });
      return;
    }
    this.queue.push(event);
    this.sizes.push(size);
    this.queuedBytes += size;
  }

  private shift(): ObjectWatchEvent | undefined {
    if (this.head >= this.queue.length) return undefined;
    const event = this.queue[this.head];
    this.queuedBytes -= this.sizes[this.head];
    this.head++;
    if (this.head >= this.queue.length) {
      this.queue = [];
      this.sizes = [];
      this.head = 0;
      this.queuedBytes = 0;
    } else if (this.head >= 1024 && this.head * 2 >= this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.sizes = this.sizes.slice(this.head);
      this.head = 0;
    }
    if (this.grace && !this.behind) {
      const grace = this.grace;
      this.grace = undefined;
      grace.caughtUp(this);
    }
    return event;
  }
}

/** A watch that reports one in-band failure and ends (e.g. 410 for a resource version that is too old). */
export class ErrorWatch implements ObjectWatch {
  private delivered = false;
  readonly done: Promise<void>;
  private settleDone!: () => void;

  constructor(private readonly error: Error) {
    this.done = new Promise((resolve) => (this.settleDone = resolve));
  }

  stop(): void {
    this.delivered = true;
    this.settleDone();
  }

  [Symbol.asyncIterator](): AsyncIterator<ObjectWatchEvent> {
    return {
      next: () => {
        if (this.delivered) return Promise.resolve(DONE);
        this.delivered = true;
        return Promise.resolve({ done: false, value: { type: 'ERROR', error: this.error } });
      },
      return: () => {
        this.stop();
        return Promise.resolve(DONE);
      },
    };
  }
}
