/**
 * The buffer between a watch's producer (store or cache events) and its reader (the HTTP
 * response). The reader pulls at its own pace; when it falls `capacity` events behind it is
 * dropped (its iteration just ends) so a stalled client cannot make memory grow without bound.
 */
import type { ObjectWatch, ObjectWatchEvent } from './types';

export interface WatchQueueOptions {
  /** Events that may wait for the reader before it is dropped. */
  readonly capacity: number;
  /** Called once when the watch ends for any reason, to release what feeds it. */
  readonly onClose?: () => void;
}

export class WatchQueue implements ObjectWatch {
  private readonly buffered: ObjectWatchEvent[] = [];
  private waitingReader: ((result: IteratorResult<ObjectWatchEvent>) => void) | undefined;
  /** No more events are accepted; the reader still drains what is buffered. */
  private ended = false;
  private closed = false;
  readonly done: Promise<void>;
  private settleDone!: () => void;

  constructor(private readonly options: WatchQueueOptions) {
    this.done = new Promise((resolve) => (this.settleDone = resolve));
  }

  /** Offers an event; false when the watch has ended or the reader was just dropped for being too slow. */
  push(event: ObjectWatchEvent): boolean {
    if (this.ended) return false;
    if (this.waitingReader !== undefined) {
      const reader = this.waitingReader;
      this.waitingReader = undefined;
      reader({ value: event, done: false });
      return true;
    }
    if (this.buffered.length >= this.options.capacity) {
      this.stop();
      return false;
    }
    this.buffered.push(event);
    return true;
  }

  /** Ends the watch after the reader has taken what is already buffered (e.g. after an ERROR event). */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.release();
    if (this.buffered.length === 0) this.finishReader();
  }

  /** Ends the watch now, dropping buffered events. */
  stop(): void {
    this.buffered.length = 0;
    this.end();
    this.finishReader();
  }

  /** True once the watch accepts no more events. */
  get isEnded(): boolean {
    return this.ended;
  }

  [Symbol.asyncIterator](): AsyncIterator<ObjectWatchEvent> {
    return {
      next: () => this.next(),
      return: async () => {
        this.stop();
        return { value: undefined, done: true };
      },
    };
  }

  private next(): Promise<IteratorResult<ObjectWatchEvent>> {
    const event = this.buffered.shift();
    if (event !== undefined) return Promise.resolve({ value: event, done: false });
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => {
      this.waitingReader = resolve;
    });
  }

  private finishReader(): void {
    const reader = this.waitingReader;
    this.waitingReader = undefined;
    reader?.({ value: undefined, done: true });
  }

  private release(): void {
    if (this.closed) return;
    this.closed = true;
    this.options.onClose?.();
    this.settleDone();
  }
}
