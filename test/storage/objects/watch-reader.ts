/** Reading watch events in tests with a deadline, so a missing event fails fast instead of hanging. */
import type { ObjectWatch, ObjectWatchEvent } from '../../../storage/objects/types';

export interface WatchReader {
  /** The next event, or 'end' when the watch finished; throws after `timeoutMs`. */
  next(timeoutMs?: number): Promise<ObjectWatchEvent | 'end'>;
  /** The next `count` events. */
  take(count: number, timeoutMs?: number): Promise<ObjectWatchEvent[]>;
  /** Resolves true when no event arrives within `ms`. */
  quietFor(ms: number): Promise<boolean>;
}

export function readWatch(watch: ObjectWatch): WatchReader {
  const iterator = watch[Symbol.asyncIterator]();
  let pending: Promise<IteratorResult<ObjectWatchEvent>> | undefined;
  const pull = (): Promise<IteratorResult<ObjectWatchEvent>> => (pending ??= iterator.next());

  const next = async (timeoutMs = 5_000): Promise<ObjectWatchEvent | 'end'> => {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no watch event within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      const result = await Promise.race([pull(), deadline]);
      pending = undefined;
      return result.done ? 'end' : result.value;
    } finally {
      clearTimeout(timer);
    }
  };

  return {
    next,
    async take(count, timeoutMs) {
      const events: ObjectWatchEvent[] = [];
      for (let i = 0; i < count; i += 1) {
        const event = await next(timeoutMs);
        if (event === 'end') throw new Error(`watch ended after ${events.length} of ${count} events`);
        events.push(event);
      }
      return events;
    },
    async quietFor(ms) {
      const sentinel = Symbol('quiet');
      let timer: NodeJS.Timeout | undefined;
      const quiet = new Promise<typeof sentinel>((resolve) => {
        timer = setTimeout(() => resolve(sentinel), ms);
      });
      const result = await Promise.race([pull(), quiet]);
      clearTimeout(timer);
      return result === sentinel;
    },
  };
}
