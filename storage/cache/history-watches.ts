/**
 * Watches that resume from a revision the cache's ring does not hold but the store still does
 * (a replica that just started or re-listed, or a ring that evicted it): the store serves them,
 * replaying its history and then following live writes, so the client need not re-list.
 *
 * Each such watch costs a store watch of its own that decodes every event of its range, which
 * is what the cache exists to avoid; so at most `limit` are open at once per cache. Past that
 * the cache answers 410 as it would without them, and the client re-lists (from the cache).
 * The store watch sends no periodic bookmarks; a client that has seen an event since resumes
 * in the ring next time, where it gets them again.
 */
import type { ObjectWatch, ObjectWatchEvent } from '../objects/types';

export class HistoryWatches {
  private readonly open = new Set<ObjectWatch>();
  /** Store watches being opened, counted so that concurrent requests cannot pass the limit. */
  private opening = 0;
  private stopped = false;

  constructor(private readonly limit: number) {}

  get size(): number {
    return this.open.size + this.opening;
  }

  /** The watch `start` opens, counted until it ends; undefined when `limit` are already open. */
  async start(start: () => Promise<ObjectWatch>): Promise<ObjectWatch | undefined> {
    if (this.stopped || this.size >= this.limit) return undefined;
    this.opening++;
    let watch: CountedWatch;
    try {
      watch = new CountedWatch(await start(), (ended) => this.open.delete(ended));
    } finally {
      this.opening--;
    }
    this.open.add(watch);
    // Stopped while the store watch was opening: the caller still gets it, already ended.
    if (this.stopped) watch.stop();
    return watch;
  }

  /** Ends every open one and opens no more (the cache stops). */
  stopAll(): void {
    this.stopped = true;
    for (const watch of [...this.open]) watch.stop();
  }
}

/** A store watch that reports once when it ends: stopped by either side, or its iteration finished. */
class CountedWatch implements ObjectWatch {
  private ended = false;

  constructor(
    private readonly inner: ObjectWatch,
    private readonly onEnd: (watch: CountedWatch) => void,
  ) {}

  stop(): void {
    this.inner.stop();
    this.end();
  }

  get done(): Promise<void> {
    return this.inner.done;
  }

  [Symbol.asyncIterator](): AsyncIterator<ObjectWatchEvent> {
    const events = this.inner[Symbol.asyncIterator]();
    return {
      next: async () => {
        const result = await events.next();
        if (result.done) this.end();
        return result;
      },
      return: async () => {
        this.stop();
        return { done: true, value: undefined };
      },
    };
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    this.onEnd(this);
  }
}
