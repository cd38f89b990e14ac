/**
 * The controllers' work queue, after client-go's: keys rather than events (a controller reads
 * the current state of what a key names when it gets to it), each key at most once in the
 * queue however often it is added, never handled by two workers at once (a key added while it
 * is being handled is handled again afterwards), and failures retried with a per-key
 * exponential backoff that success resets.
 *
 *   const queue = startWorkQueue<string>({ stop, handle: async (key) => { ... } });
 *   informer handlers: queue.add(key)
 *
 * `handle` resolving means done (the key's backoff is forgotten); throwing means retry after the
 * key's next backoff. A handler that must look again later without having failed (content
 * still being deleted) calls `addAfter` itself and resolves.
 */

export interface BackoffOptions {
  /** First retry delay (default 5 ms, as client-go's default controller rate limiter). */
  readonly baseMs?: number;
  /** Longest delay (default 1000 s, as client-go's). */
  readonly maxMs?: number;
}

/** Per-key exponential backoff: base × 2^failures, capped. */
export class ExponentialBackoff<K> {
  private readonly baseMs: number;
  private readonly maxMs: number;
  private readonly failures = new Map<K, number>();

  constructor(options: BackoffOptions = {}) {
    this.baseMs = options.baseMs ?? 5;
    this.maxMs = options.maxMs ?? 1_000_000;
  }

  /** The delay before the next retry of `key`, counting this failure. */
  next(key: K): number {
    const failures = this.failures.get(key) ?? 0;
    this.failures.set(key, failures + 1);
    // 2^failures overflows to Infinity long after the cap, so Math.min still answers.
    return Math.min(this.baseMs * 2 ** failures, this.maxMs);
  }

  /** Failures of `key` since it last succeeded. */
  retries(key: K): number {
    return this.failures.get(key) ?? 0;
  }

  forget(key: K): void {
    this.failures.delete(key);
  }
}

export interface WorkQueueOptions<K> {
  /** Handles one key; see the module comment for what resolving and throwing mean. */
  readonly handle: (key: K) => Promise<void>;
  /** Once aborted, nothing new starts and delayed adds are dropped. */
  readonly stop: AbortSignal;
  /** Keys handled at once (default 1). */
  readonly workers?: number;
  readonly backoff?: BackoffOptions;
}

export interface WorkQueue<K> {
  /** Queues `key` unless it is queued already. */
  add(key: K): void;
  /** Queues `key` after `delayMs`. */
  addAfter(key: K, delayMs: number): void;
  /** Resolves once nothing is queued, being handled, or waiting for a delay. */
  idle(): Promise<void>;
}

export function startWorkQueue<K>(options: WorkQueueOptions<K>): WorkQueue<K> {
  const { handle, stop } = options;
  const workers = options.workers ?? 1;
  const backoff = new ExponentialBackoff<K>(options.backoff);
  // The queue in order, and its members. Not one Set read from its front: a Set keeps deleted
  // entries as holes until it shrinks, so taking the first key after k removals scans k holes,
  // and draining the tens of thousands of keys a controller queues at start went quadratic.
  const queued = new Set<K>();
  let order: K[] = [];
  let head = 0;
  const take = (): K | undefined => {
    while (head < order.length) {
      const key = order[head++];
      // Drop the consumed front once it is most of the array, so memory follows the queue.
      if (head > 1024 && head * 2 > order.length) {
        order = order.slice(head);
        head = 0;
      }
      if (queued.delete(key)) return key;
    }
    return undefined;
  };
  const processing = new Set<K>();
  /** Added while being handled: queue again when done. */
  const dirty = new Set<K>();
  const timers = new Set<NodeJS.Timeout>();
  let active = 0;
  let idleWaiters: (() => void)[] = [];

  const settleIdle = (): void => {
    if (queued.size > 0 || active > 0 || timers.size > 0) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const resolve of waiters) resolve();
  };

  const pump = (): void => {
    while (active < workers && !stop.aborted) {
      const key = take();
      if (key === undefined) break;
      processing.add(key);
      active++;
      void handle(key)
        .then(
          () => backoff.forget(key),
          () => addAfter(key, backoff.next(key)),
        )
        .finally(() => {
          processing.delete(key);
          active--;
          if (dirty.delete(key)) add(key);
          pump();
          settleIdle();
        });
    }
    settleIdle();
  };

  const add = (key: K): void => {
    if (stop.aborted) return;
    if (processing.has(key)) {
      dirty.add(key);
      return;
    }
    if (!queued.has(key)) {
      queued.add(key);
      order.push(key);
    }
    pump();
  };

  const addAfter = (key: K, delayMs: number): void => {
    if (stop.aborted) return;
    if (delayMs <= 0) return add(key);
    const timer = setTimeout(() => {
      timers.delete(timer);
      add(key);
      settleIdle();
    }, delayMs);
    timers.add(timer);
  };

  stop.addEventListener(
    'abort',
    () => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      queued.clear();
      order = [];
      head = 0;
      dirty.clear();
      settleIdle();
    },
    { once: true },
  );

  return {
    add,
    addAfter,
    idle() {
      return new Promise((resolve) => {
        idleWaiters.push(resolve);
        settleIdle();
      });
    },
  };
}
