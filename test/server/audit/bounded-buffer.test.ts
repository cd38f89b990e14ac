/** The bounded buffer between requests and an audit backend: batches by size and by wait, drops instead of waiting. */
import { BoundedBuffer } from '../../../server/audit/bounded-buffer';

function recorder(options: { bufferSize: number; maxBatchSize: number; maxWaitMs: number; hang?: boolean }) {
  const batches: number[][] = [];
  const errors: number[][] = [];
  const buffer = new BoundedBuffer<number>({
    ...options,
    send: (batch) => {
      batches.push(batch);
      return options.hang ? new Promise<void>(() => {}) : Promise.resolve();
    },
    onError: (_error, batch) => errors.push([...batch]),
  });
  return { buffer, batches, errors };
}

test('a full batch goes at once; the rest waits for the wait', async () => {
  // The wait is the buffer's timer: a fake clock moves it to the millisecond, no test time passes.
  jest.useFakeTimers();
  try {
    const { buffer, batches } = recorder({ bufferSize: 100, maxBatchSize: 3, maxWaitMs: 50 });
    for (let i = 1; i <= 4; i++) buffer.push(i);
    expect(batches).toEqual([[1, 2, 3]]);
    await jest.advanceTimersByTimeAsync(49);
    expect(batches).toEqual([[1, 2, 3]]);
    await jest.advanceTimersByTimeAsync(1);
    expect(batches).toEqual([[1, 2, 3], [4]]);
  } finally {
    jest.useRealTimers();
  }
});

test('with no wait, each event goes as soon as the previous batch is done, queued ones together', async () => {
  const { buffer, batches } = recorder({ bufferSize: 100, maxBatchSize: 10, maxWaitMs: 0 });
  buffer.push(1);
  buffer.push(2);
  buffer.push(3);
  await buffer.flush();
  expect(batches).toEqual([[1], [2, 3]]);
});

test('a backend that never answers: the buffer fills, then pushes are refused at once', () => {
  const { buffer, batches } = recorder({ bufferSize: 5, maxBatchSize: 1, maxWaitMs: 0, hang: true });
  const started = performance.now();
  const kept = Array.from({ length: 1000 }, (_, i) => buffer.push(i)).filter(Boolean).length;
  expect(performance.now() - started).toBeLessThan(100);
  // One batch in flight, five waiting.
  expect(batches).toEqual([[0]]);
  expect(kept).toBe(6);
  expect(buffer.length).toBe(5);
});

test('a failed batch is reported and the next one still goes', async () => {
  const batches: number[][] = [];
  const failed: number[][] = [];
  const buffer = new BoundedBuffer<number>({
    bufferSize: 10,
    maxBatchSize: 2,
    maxWaitMs: 0,
    send: async (batch) => {
      batches.push(batch);
      if (batch.includes(1)) throw new Error('down');
    },
    onError: (_error, batch) => failed.push([...batch]),
  });
  buffer.push(1);
  buffer.push(2);
  buffer.push(3);
  await buffer.flush();
  expect(failed).toEqual([[1]]);
  expect(batches).toEqual([[1], [2, 3]]);
});
