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

/** A request the timeout stage has answered: where its later activity is reported. */
interface TimedOut {
  readonly activity: (source: PostTimeoutSource, status: PostTimeoutStatus, error?: unknown) => PostTimeoutActivity;
  readonly record: PostTimeoutRecorder;
  readonly waitMs: number;
}

const REST_WORK = Symbol('restWork');
const PANICKED = Symbol('panicked');
const TIMED_OUT = Symbol('timedOut');

interface TrackedRequest {
  [REST_WORK]?: RestWork;
  [PANICKED]?: true;
  [TIMED_OUT]?: TimedOut;
}

/**
 * Runs a write's rest-layer work as the reference's FinishRequest does, for the timeout stage to
 * report how it ended if the request times out first. Work that only begins once the request has
 * timed out (it was still being decoded or authorized) is reported too, as the reference's
 * FinishRequest reports work it starts under an expired context. Answers the work itself.
 */
export function finishRequest<T>(req: Request, work: Promise<T>): Promise<T> {
  const tracked: RestWork = { promise: work };
  work.then(
    () => (tracked.outcome = { status: 'ok' }),
    (error: unknown) => (tracked.outcome = { status: isPanic(error) ? 'panic' : 'error', error }),
  );
  const timedOut = (req as TrackedRequest)[TIMED_OUT];
  if (timedOut === undefined) (req as TrackedRequest)[REST_WORK] = tracked;
  else reportRestWork(tracked, timedOut);
  return work;
}

/** Marks a request whose handler ended in a panic (the chain's error handler calls it). */
export function markPanicked(req: Request): void {
  (req as TrackedRequest)[PANICKED] = true;
}

/**
 * Called by the timeout stage as it answers 504: reports the rest layer's work once it settles
 * (unless it already had, or whenever it begins later), and the handler once it ends its
 * (dropped) answer through `handlerEnded`, which the caller hooks to the response's end.
 */
export function watchAfterTimeout(
  req: Request,
  record: PostTimeoutRecorder,
  waitMs = POST_TIMEOUT_WAIT_MS,
): { handlerEnded(): void } {
  const timedOutAt = performance.now();
  const timedOut: TimedOut = {
    activity: (source, status, error) => ({
      source,
      status,
      elapsedMs: performance.now() - timedOutAt,
      method: req.method,
      path: req.path,
      ...(error === undefined ? {} : { error }),
    }),
    record,
    waitMs,
  };
  (req as TrackedRequest)[TIMED_OUT] = timedOut;
  const work = (req as TrackedRequest)[REST_WORK];
  if (work !== undefined && work.outcome === undefined) reportRestWork(work, timedOut);
  let ended = false;
  return {
    handlerEnded: () => {
      if (ended) return;
      ended = true;
      record(timedOut.activity('timeout-handler', (req as TrackedRequest)[PANICKED] ? 'panic' : 'ok'));
    },
  };
}

/** Reports how `work` settles, or `pending` if it has not within the wait. */
function reportRestWork(work: RestWork, timedOut: TimedOut): void {
  let reported = false;
  const pending = setTimeout(() => {
    reported = true;
    timedOut.record(timedOut.activity('rest-handler', 'pending'));
  }, timedOut.waitMs);
  pending.unref();
  const report = (): void => {
    if (reported || work.outcome === undefined) return;
    reported = true;
    clearTimeout(pending);
    timedOut.record(timedOut.activity('rest-handler', work.outcome.status, work.outcome.error));
  };
  work.promise.then(report, report);
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
