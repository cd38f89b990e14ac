/**
 * Runs `work` on every item with at most `limit` at once, and fails with the first failure
 * once the others in flight are done. Start-up writes its default objects this way: one at a
 * time, each waits a store round trip, and a start is a few hundred of them.
 */
export async function forEachConcurrently<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
