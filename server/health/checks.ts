/**
 * Health checks, each named as the reference names it so `?verbose` output reads the same
 * (`ping`, `log`, `etcd`, `informer-sync`, `poststarthook/<hook>`, `shutdown`). A check
 * throws (or rejects) to fail; its message is shown only on the check's own path.
 */

export interface HealthCheck {
  readonly name: string;
  check(): void | Promise<void>;
}

export const pingCheck: HealthCheck = { name: 'ping', check: () => undefined };

/** The reference's `log` check watches log flushing; capstan logs synchronously, so it always passes. */
export const logCheck: HealthCheck = { name: 'log', check: () => undefined };

/** A check answered by a function the caller owns, e.g. `etcd` (store reachable) or `informer-sync`. */
export function functionCheck(name: string, check: () => void | Promise<void>): HealthCheck {
  return { name, check };
}

/**
 * Fails until the hook has finished: e.g. `poststarthook/start-controllers` passes once the
 * controllers run. Call `finish()` when the work it stands for is done.
 */
export class PostStartHook implements HealthCheck {
  readonly name: string;
  private finished = false;

  constructor(hook: string) {
    this.name = `poststarthook/${hook}`;
  }

  finish(): void {
    this.finished = true;
  }

  check(): void {
    if (!this.finished) throw new Error('not finished');
  }
}

/** Readiness fails from the moment shutdown began, so load balancers stop sending requests. */
export function shutdownCheck(shuttingDown: () => boolean): HealthCheck {
  return {
    name: 'shutdown',
    check() {
      if (shuttingDown()) throw new Error('process is shutting down');
    },
  };
}

/**
 * For `/livez` during `--livez-grace-period` after start: unfinished post-start hooks count as
 * passing, so a slow start is not mistaken for a dead process.
 */
export function withGracePeriod(check: HealthCheck, graceEndsAt: number): HealthCheck {
  return {
    name: check.name,
    check: () => (Date.now() < graceEndsAt ? undefined : check.check()),
  };
}
