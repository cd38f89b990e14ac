/**
 * What a request's handler does after the timeout stage has answered 504 for it: the reference's
 * post-timeout activity, counted in `apiserver_request_post_timeout_total{source,status}` and
 * logged. Its two sources:
 * - `timeout-handler`: the handler as a whole, once it finishes (its answer is dropped): `ok`,
 *   or `panic` when it ended in an error no stage meant to answer (isPanic).
 * - `rest-handler`: the rest layer's work of a write (admission and storage, which the reference
 *   runs under FinishRequest), once it settles: `ok`, `error`, `panic`, or `pending` when it has
 *   not settled 5 minutes after the timeout.
 * A request answered in time records nothing.
 */
import type { Request } from 'express';
import { isPanic } from '../status/from-error';

export type PostTimeoutSource = 'timeout-handler' | 'rest-handler';
export type PostTimeoutStatus = 'ok' | 'error' | 'panic' | 'pending';

export interface PostTimeoutActivity {
  readonly source: PostTimeoutSource;
  readonly status: PostTimeoutStatus;
  /** Milliseconds from the timeout to the activity. */
  readonly elapsedMs: number;
  readonly method: string;
  readonly path: string;
  /** What the work failed with (`error` and `panic`). */
  readonly error?: unknown;
}

export type PostTimeoutRecorder = (activity: PostTimeoutActivity) => void;

/** How long the rest layer's work is waited for after a timeout before it counts as `pending` (the reference's). */
export const POST_TIMEOUT_WAIT_MS = 5 * 60_000;

/** The rest layer's work of a request, and how it settled once it has. */
interface RestWork {
  readonly promise: Promise<unknown>;
  outcome?: { readonly status: 'ok' | 'error' | 'panic'; readonly error?: unknown };
}

const REST_WORK = Symbol('restWork');
const PANICKED = Symbol('panicked');

interface TrackedRequest {
  [REST_WORK]?: RestWork;
  [PANICKED]?: true;
}

/**
 * Runs a write's rest-layer work as the reference's FinishRequest does, for the timeout stage to
 * report how it ended if the request times out first. Answers the work itself.
 */
export function finishRequest<T>(req: Request, work: Promise<T>): Promise<T> {
  const tracked: RestWork = { promise: work };
  work.then(
    () => (tracked.outcome = { status: 'ok' }),
    (error: unknown) => (tracked.outcome = { status: isPanic(error) ? 'panic' : 'error', error }),
  );
  (req as TrackedRequest)[REST_WORK] = tracked;
  return work;
}

/** Marks a request whose handler ended in a panic (the chain's error handler calls it). */
export function markPanicked(req: Request): void {
  (req as TrackedRequest)[PANICKED] = true;
}

/**
 * Called by the timeout stage as it answers 504: reports the rest layer's work once it settles
 * (unless it already had), and the handler once it ends its (dropped) answer through
 * `handlerEnded`, which the caller hooks to the response's end.
 */
export function watchAfterTimeout(
  req: Request,
  record: PostTimeoutRecorder,
  waitMs = POST_TIMEOUT_WAIT_MS,
): { handlerEnded(): void } {
  const timedOutAt = performance.now();
  const activity = (source: PostTimeoutSource, status: PostTimeoutStatus, error?: unknown): PostTimeoutActivity => ({
    source,
    status,
    elapsedMs: performance.now() - timedOutAt,
    method: req.method,
    path: req.path,
    ...(error === undefined ? {} : { error }),
  });
  const work = (req as TrackedRequest)[REST_WORK];
  if (work !== undefined && work.outcome === undefined) {
    let reported = false;
    const pending = setTimeout(() => {
      reported = true;
      record(activity('rest-handler', 'pending'));
    }, waitMs);
    pending.unref();
    const report = (): void => {
      if (reported || work.outcome === undefined) return;
      reported = true;
      clearTimeout(pending);
      record(activity('rest-handler', work.outcome.status, work.outcome.error));
    };
    work.promise.then(report, report);
  }
  let ended = false;
  return {
    handlerEnded: () => {
      if (ended) return;
      ended = true;
      record(activity('timeout-handler', (req as TrackedRequest)[PANICKED] ? 'panic' : 'ok'));
    },
  };
}

/** The log line for a report, with the words operators search the reference's logs for ("post-timeout activity"). */
export function postTimeoutLogLine(activity: PostTimeoutActivity): string {
  const elapsed = `${(activity.elapsedMs / 1000).toFixed(3)}s`;
  const request = `${activity.method} ${activity.path}`;
  if (activity.source === 'timeout-handler')
    return `post-timeout activity (timeout-handler): ${request} ended ${elapsed} after its timeout: ${outcomeText(activity)}`;
  if (activity.status === 'pending')
    return `post-timeout activity (rest-handler): ${request}: the write has not finished ${elapsed} after its timeout`;
  return `post-timeout activity (rest-handler): ${request}: the write finished ${elapsed} after its timeout: ${outcomeText(activity)}`;
}

function outcomeText(activity: PostTimeoutActivity): string {
  if (activity.error === undefined) return activity.status;
  return `${activity.status}: ${activity.error instanceof Error ? activity.error.message : String(activity.error)}`;
}
