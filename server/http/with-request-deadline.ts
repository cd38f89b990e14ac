/**
 * Stage: the deadline of a short request, from the `timeout` query parameter (a Go duration)
 * capped by the server's request timeout; an unparsable value is a 400, as in the reference.
 * Long-running requests (watches, logs) get none.
 */
import type { RequestHandler } from 'express';
import { DurationError, parseGoDuration } from '../config/duration';
import { badRequest } from '../status/catalogue';
import { writeStatus } from '../responsewriters/write-status';
import { isLongRunning } from '../request/long-running';
import '../request/request-context';

export interface RequestDeadlineOptions {
  /** The reference's `--request-timeout`, 1m by default. */
  readonly requestTimeoutMs: number;
}

export function withRequestDeadline(options: RequestDeadlineOptions): RequestHandler {
  return (req, res, next) => {
    if (isLongRunning(req.requestInfo)) {
      next();
      return;
    }
    let timeoutMs = options.requestTimeoutMs;
    const requested = req.rawQuery.includes('timeout=') ? new URLSearchParams(req.rawQuery).get('timeout') : null;
    if (requested) {
      let userMs: number;
      try {
        userMs = parseGoDuration(requested);
      } catch (error) {
        if (!(error instanceof DurationError)) throw error;
        writeStatus(res, badRequest(`invalid timeout specified in the request URL - ${error.message}`));
        return;
      }
      // 0 (or less) means "no timeout of my own": the server's applies.
      if (userMs > 0 && userMs < timeoutMs) timeoutMs = userMs;
    }
    req.deadline = Date.now() + timeoutMs;
    next();
  };
}
