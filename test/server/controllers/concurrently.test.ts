import { forEachConcurrently } from '../../../server/controllers/concurrently';

test('every item once, never more than the limit at once', async () => {
  const seen: number[] = [];
  let running = 0;
  let most = 0;
  await forEachConcurrently([1, 2, 3, 4, 5, 6, 7], 3, async (item) => {
    running += 1;
    most = Math.max(most, running);
    await new Promise((resolve) => setImmediate(resolve));
    seen.push(item);
    running -= 1;
  });
  expect(seen.sort()).toEqual([1, 2, 3, 4, 5, 6, 7]);
  expect(most).toBe(3);
});

test('a failure fails the whole', async () => {
  await expect(
    forEachConcurrently(['a', 'b'], 2, async (item) => {
      if (item === 'b') throw new Error('no b');
    }),
  ).rejects.toThrow('no b');
});

test('no items: nothing runs', async () => {
  await expect(forEachConcurrently([], 4, async () => Promise.reject(new Error('ran')))).resolves.toBeUndefined();
});
