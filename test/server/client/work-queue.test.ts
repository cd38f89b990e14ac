import { ExponentialBackoff, startWorkQueue } from '../../../server/client/work-queue';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('ExponentialBackoff', () => {
  test('doubles per failure from 5 ms up to 1000 s, per key, and forgets on success', () => {
    const backoff = new ExponentialBackoff<string>();
    expect([1, 2, 3, 4].map(() => backoff.next('a'))).toEqual([5, 10, 20, 40]);
    expect(backoff.next('b')).toBe(5);
    expect(backoff.retries('a')).toBe(4);
    for (let i = 0; i < 40; i++) backoff.next('a');
    expect(backoff.next('a')).toBe(1_000_000);
    backoff.forget('a');
    expect(backoff.next('a')).toBe(5);
  });

  test('a cap of its own', () => {
    const backoff = new ExponentialBackoff<string>({ baseMs: 100, maxMs: 250 });
    expect([1, 2, 3].map(() => backoff.next('k'))).toEqual([100, 200, 250]);
  });
});

describe('startWorkQueue', () => {
  test('a key added many times while queued is handled once', async () => {
    const stop = new AbortController();
    const handled: string[] = [];
    const gate = deferred();
    const queue = startWorkQueue<string>({
      stop: stop.signal,
      handle: async (key) => {
        handled.push(key);
        if (key === 'first') await gate.promise;
      },
    });
    queue.add('first');
    for (let i = 0; i < 5; i++) queue.add('second');
    queue.add('third');
    queue.add('second');
    gate.resolve();
    await queue.idle();
    expect(handled).toEqual(['first', 'second', 'third']);
    stop.abort();
  });

  test('a key added while being handled is handled again after, never twice at once', async () => {
    const stop = new AbortController();
    let running = 0;
    let most = 0;
    let calls = 0;
    const gate = deferred();
    const queue = startWorkQueue<string>({
      stop: stop.signal,
      workers: 4,
      handle: async () => {
        calls++;
        running++;
        most = Math.max(most, running);
        if (calls === 1) await gate.promise;
        running--;
      },
    });
    queue.add('k');
    await new Promise((resolve) => setImmediate(resolve));
    queue.add('k');
    queue.add('k');
    expect(calls).toBe(1);
    gate.resolve();
    await queue.idle();
    expect(calls).toBe(2);
    expect(most).toBe(1);
    stop.abort();
  });

  test('failures retry with growing delays; success resets them', async () => {
    const stop = new AbortController();
    const times: number[] = [];
    let failuresLeft = 4;
    const queue = startWorkQueue<string>({
      stop: stop.signal,
      backoff: { baseMs: 20 },
      handle: async () => {
        times.push(Date.now());
        if (failuresLeft-- > 0) throw new Error('not yet');
      },
    });
    queue.add('k');
    await queue.idle();
    expect(times).toHaveLength(5);
    const gaps = times.slice(1).map((time, i) => time - times[i]);
    // 20, 40, 80, 160 ms: timers may fire late on a busy machine, never early.
    [20, 40, 80, 160].forEach((delay, i) => expect(gaps[i]).toBeGreaterThanOrEqual(delay - 2));

    // Succeeded: the next failure starts from the base delay again, not from 320 ms.
    failuresLeft = 1;
    times.length = 0;
    queue.add('k');
    await queue.idle();
    expect(times[1] - times[0]).toBeGreaterThanOrEqual(18);
    expect(times[1] - times[0]).toBeLessThan(300);
    stop.abort();
  });

  test('addAfter waits; keys run on as many workers as asked', async () => {
    const stop = new AbortController();
    const started = Date.now();
    const handledAt = new Map<string, number>();
    let running = 0;
    let most = 0;
    const queue = startWorkQueue<string>({
      stop: stop.signal,
      workers: 2,
      handle: async (key) => {
        running++;
        most = Math.max(most, running);
        handledAt.set(key, Date.now() - started);
        // Busy until a later turn, so that the other worker takes the next key meanwhile.
        await new Promise((resolve) => setImmediate(resolve));
        running--;
      },
    });
    queue.addAfter('later', 100);
    queue.add('a');
    queue.add('b');
    queue.add('c');
    await queue.idle();
    expect(most).toBe(2);
    expect(handledAt.get('later')).toBeGreaterThanOrEqual(98);
    expect(handledAt.get('a')).toBeLessThan(handledAt.get('later') as number);
    stop.abort();
  });

  test('after stop nothing new runs and delayed keys are dropped', async () => {
    // The delayed key's timer is run by a fake clock: its time passes without the test waiting.
    jest.useFakeTimers();
    try {
      const stop = new AbortController();
      const handled: string[] = [];
      const queue = startWorkQueue<string>({ stop: stop.signal, handle: async (key) => void handled.push(key) });
      queue.addAfter('later', 30);
      stop.abort();
      queue.add('now');
      await queue.idle();
      await jest.advanceTimersByTimeAsync(60);
      expect(handled).toEqual([]);
    } finally {
      jest.useRealTimers();
    }
  });
});
