/**
 * A controller's periodic loop, as the reference's `wait.JitterUntil` with a sliding period:
 * the next run starts `periodMs` after the last one ended, so a slow run never overlaps the next.
 */

/** Runs `run` now and then `periodMs` (± jitter) after each run ends, until `stop`; failures are logged. */
export function repeat(loop: {
  run: () => Promise<void>;
  periodMs: number;
  jitter: number;
  stop: AbortSignal;
  what: string;
}): void {
  let timer: NodeJS.Timeout | undefined;
  loop.stop.addEventListener('abort', () => clearTimeout(timer), { once: true });
  const schedule = (): void => {
    if (loop.stop.aborted) return;
    timer = setTimeout(next, loop.periodMs * (1 + Math.random() * loop.jitter));
    timer.unref();
  };
  const next = (): void => {
    if (loop.stop.aborted) return;
    loop.run().then(schedule, (error: unknown) => {
      if (!loop.stop.aborted) console.error(`${loop.what} failed:`, error);
      schedule();
    });
  };
  next();
}
