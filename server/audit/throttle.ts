/**
 * `--audit-*-batch-throttle-*`: at most `qps` batches a second on average, `burst` at once after
 * a quiet spell (a token bucket, as the reference's flowcontrol limiter). A batch waiting for its
 * token waits in the bounded buffer's place, so requests never do.
 */
export interface ThrottleSettings {
  readonly qps: number;
  readonly burst: number;
}

export function throttled<T>(
  send: (batch: T[]) => Promise<void>,
  settings: ThrottleSettings,
): (batch: T[]) => Promise<void> {
  const burst = Math.max(1, settings.burst);
  let tokens = burst;
  let refilledAt = performance.now();
  return async (batch) => {
    for (;;) {
      const now = performance.now();
      tokens = Math.min(burst, tokens + ((now - refilledAt) / 1000) * settings.qps);
      refilledAt = now;
      if (tokens >= 1) break;
      await new Promise((resolve) => setTimeout(resolve, ((1 - tokens) / settings.qps) * 1000).unref());
    }
    tokens -= 1;
    await send(batch);
  };
}
