/**
 * The time a cache grants, in total, to watchers whose buffers are full before it closes them.
 * Dispatch never waits for a reader; instead a full watcher may overflow for a short grace
 * taken from this shared bucket. When many readers are slow at once the bucket empties and
 * they are closed at once, so a burst of slow readers cannot hold memory for long. The
 * reference refills 50 ms per second up to 100 ms.
 */
export interface DispatchBudgetOptions {
  readonly refillMsPerSecond?: number;
  readonly maxMs?: number;
}

export class DispatchBudget {
  private readonly refillPerMs: number;
  private readonly maxMs: number;
  private available: number;
  private updatedAt = Date.now();

  constructor(options: DispatchBudgetOptions = {}) {
    this.refillPerMs = (options.refillMsPerSecond ?? 50) / 1000;
    this.maxMs = options.maxMs ?? 100;
    this.available = this.maxMs;
  }

  /** Takes all that is available now (ms); 0 when empty. */
  take(): number {
    this.refill();
    const granted = this.available;
    this.available = 0;
    return granted;
  }

  /** Gives back what a watcher did not need. */
  giveBack(ms: number): void {
    this.refill();
    this.available = Math.min(this.maxMs, this.available + Math.max(0, ms));
  }

  private refill(): void {
    const now = Date.now();
    this.available = Math.min(this.maxMs, this.available + (now - this.updatedAt) * this.refillPerMs);
    this.updatedAt = now;
  }
}
