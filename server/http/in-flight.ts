/**
 * Stage: counts short requests in flight, so that shutdown can wait for them to finish
 * (the reference's wait group). Long-running requests are not waited for.
 */
import type { RequestHandler } from 'express';
import { isLongRunning } from '../request/long-running';
import '../request/request-context';

export class InFlightRequests {
  private count = 0;
  private waiters: (() => void)[] = [];

  get size(): number {
    return this.count;
  }

  /** Resolves once no short request is in flight. */
  drained(): Promise<void> {
    if (this.count === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  begin(): void {
    this.count++;
  }

  end(): void {
    this.count--;
    if (this.count === 0) {
      const waiters = this.waiters;
      this.waiters = [];
      for (const resolve of waiters) resolve();
    }
  }
}

export function withInFlightTracking(options: { readonly inFlight: InFlightRequests }): RequestHandler {
  const { inFlight } = options;
  return (req, res, next) => {
    if (!isLongRunning(req.requestInfo)) {
      inFlight.begin();
      // 'close' fires once whether the response finished or the client went away.
      res.once('close', () => inFlight.end());
    }
    next();
  };
}
