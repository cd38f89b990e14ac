/**
 * Between the requests and a backend: a queue of at most `bufferSize` events, sent in batches
 * of at most `maxBatchSize` once that many wait or the oldest has waited `maxWaitMs`, one batch
 * at a time. A request only ever enqueues: when the queue is full its event is dropped (and the
 * caller counts it), so a slow or dead backend costs memory up to the bound and never time.
 *
 * The reference's modes map onto it: `batch` with its batch size and wait; `blocking` sends
 * each event on its own right away (Node cannot hold a request while a file or webhook write
 * completes without holding every request, so the queue stays the bound here too).
 */
export interface BoundedBufferOptions<T> {
  readonly bufferSize: number;
  readonly maxBatchSize: number;
  /** 0: send as soon as the previous batch is done. */
  readonly maxWaitMs: number;
  /** Sends one batch; a rejection is reported to `onError`, and the batch is not retried here. */
  readonly send: (batch: T[]) => Promise<void>;
  readonly onError: (error: unknown, batch: readonly T[]) => void;
}

export class BoundedBuffer<T> {
  private queue: T[] = [];
  private sending = false;
  private timer: NodeJS.Timeout | undefined;
  private idle: (() => void)[] = [];

  constructor(private readonly options: BoundedBufferOptions<T>) {}

  /** Queues the item; false when the queue is full and it was dropped. */
  push(item: T): boolean {
    if (this.queue.length >= this.options.bufferSize) return false;
    this.queue.push(item);
    this.schedule();
    return true;
  }

  get length(): number {
    return this.queue.length;
  }

  /** Sends what is queued now, without waiting for the batch to fill; resolves when all is sent. */
  flush(): Promise<void> {
    if (!this.sending && this.queue.length === 0) return Promise.resolve();
    const done = new Promise<void>((resolve) => this.idle.push(resolve));
    this.sendNext(true);
    return done;
  }

  private schedule(): void {
    if (this.sending || this.queue.length === 0) return;
    const { maxBatchSize, maxWaitMs } = this.options;
    if (this.queue.length >= maxBatchSize || maxWaitMs === 0) {
      this.sendNext(false);
      return;
    }
    // Unreferenced: a pending batch does not keep the process alive (shutdown flushes it).
    this.timer ??= setTimeout(() => this.sendNext(false), maxWaitMs).unref();
  }

  private sendNext(draining: boolean): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.sending) return;
    if (this.queue.length === 0) {
      for (const resolve of this.idle.splice(0)) resolve();
      return;
    }
    const batch = this.queue.splice(0, this.options.maxBatchSize);
    this.sending = true;
    this.options
      .send(batch)
      .catch((error: unknown) => this.options.onError(error, batch))
      .finally(() => {
        this.sending = false;
        if (draining || this.idle.length > 0) this.sendNext(true);
        else this.schedule();
      });
  }
}
