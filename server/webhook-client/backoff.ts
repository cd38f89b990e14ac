/**
 * The reference's retry schedule for webhooks it calls (client-go's default webhook backoff):
 * after a failure that may pass, wait the initial delay, then half as long again each time, up
 * to ±20 % longer at random, five attempts in all.
 */
const FACTOR = 1.5;
const JITTER = 0.2;
const ATTEMPTS = 5;

/** `call` until it succeeds, five attempts at most; a failure `retry` rejects ends at once. */
export async function withBackoff<T>(
  initialDelayMs: number,
  call: () => Promise<T>,
  retry: (error: unknown) => boolean,
): Promise<T> {
  let delayMs = initialDelayMs;
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (attempt >= ATTEMPTS || !retry(error)) throw error;
    }
    const jittered = delayMs * (1 + JITTER * Math.random());
    await new Promise((resolve) => setTimeout(resolve, jittered).unref());
    delayMs *= FACTOR;
  }
}
