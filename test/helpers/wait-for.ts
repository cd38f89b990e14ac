/**
 * Waiting for a condition instead of sleeping a fixed time: a test that sleeps either waits
 * longer than it needs or, on a loaded machine, not long enough. Every poll of the test suite
 * goes through `retryUntil`.
 */

/**
 * Runs `attempt` until `done` holds of its result or `timeoutMs` has passed, and returns the
 * last result either way, so that the caller's assertion on it shows what was last answered
 * rather than only that time ran out.
 */
export async function retryUntil<T>(
  attempt: () => T | Promise<T>,
  done: (result: T) => boolean,
  timeoutMs: number,
  pollMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const result = await attempt();
    if (done(result) || Date.now() > deadline) return result;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

/** Polls `probe` until it gives a value (not undefined), or fails naming `what` after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 60_000,
  pollMs = 200,
): Promise<T> {
  const value = await retryUntil(probe, (result) => result !== undefined, timeoutMs, pollMs);
  if (value === undefined) throw new Error(`timed out waiting for ${what} (${timeoutMs} ms)`);
  return value;
}

/** Polls `check` until it holds, or fails naming `what` after `timeoutMs`. */
export async function waitUntil(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 60_000,
  pollMs = 200,
): Promise<void> {
  await waitFor(what, async () => ((await check()) ? true : undefined), timeoutMs, pollMs);
}
