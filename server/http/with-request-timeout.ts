/**
 * Stage: answers a short request that is still running at its deadline (`req.deadline`, from
 * the deadline stage: `--request-timeout` or the smaller `timeout` query parameter) with the
 * reference's timeout filter's 504 Status, `Timeout: request did not complete within the
 * allotted timeout`. The handler keeps running, as in the reference, but whatever it
 * writes afterwards is dropped, like Go's timeout writer answering ErrHandlerTimeout; how it
 * ends is reported as post-timeout activity (post-timeout.ts). Long-running requests have no
 * deadline and pass through.
 */
import type { RequestHandler, Response } from 'express';
import { allottedTimeoutExceeded } from '../status/catalogue';
import { writeStatus } from '../responsewriters/write-status';
import { watchAfterTimeout, type PostTimeoutRecorder } from '../handlers/post-timeout';
import '../request/request-context';

export const REQUEST_TIMEOUT_MESSAGE = allottedTimeoutExceeded().status.message;

export interface RequestTimeoutOptions {
  /** Called when a request is answered with the timeout Status (the terminations metric). */
  readonly onTimeout?: (res: Response) => void;
  /** Told what a timed-out request's handler and rest-layer work did afterwards. */
  readonly onPostTimeout?: PostTimeoutRecorder;
  /** How long a timed-out write's work is waited for before it is reported `pending`; the reference's 5 minutes by default. */
  readonly postTimeoutWaitMs?: number;
}

export function withRequestTimeout(options: RequestTimeoutOptions = {}): RequestHandler {
  return (req, res, next) => {
    if (req.deadline === undefined) {
      next();
      return;
    }
    const timer = setTimeout(
      () => {
        if (res.headersSent || res.writableEnded) return;
        // The reference's handler writes its warnings into headers of its own, which its timeout
        // answer leaves behind: the 504 carries none of them.
        res.removeHeader('Warning');
        writeStatus(res, allottedTimeoutExceeded());
        options.onTimeout?.(res);
        const afterTimeout =
          options.onPostTimeout && watchAfterTimeout(req, options.onPostTimeout, options.postTimeoutWaitMs);
        dropLaterWrites(res, afterTimeout?.handlerEnded);
      },
      Math.max(0, req.deadline - Date.now()),
    );
    res.once('close', () => clearTimeout(timer));
    next();
  };
}

/**
 * The handler still holds the response; what it sends now would corrupt or duplicate the answer.
 * Its end is when it finishes (`handlerEnded`).
 */
function dropLaterWrites(res: Response, handlerEnded?: () => void): void {
  res.setHeader = () => res;
  res.writeHead = (() => res) as Response['writeHead'];
  res.write = (() => true) as Response['write'];
  res.end = (() => {
    handlerEnded?.();
    return res;
  }) as Response['end'];
}
