/**
 * Stage: answers a short request that is still running at its deadline (`req.deadline`, from
 * the deadline stage: `--request-timeout` or the smaller `timeout` query parameter) with the
 * reference's 504 Status, `Timeout: request did not complete within requested timeout -
 * context deadline exceeded`. The handler keeps running, as in the reference, but whatever it
 * writes afterwards is dropped, like Go's timeout writer answering ErrHandlerTimeout.
 * Long-running requests have no deadline and pass through.
 */
import type { RequestHandler, Response } from 'express';
import { StatusError } from '../status/status-error';
import { writeStatus } from '../responsewriters/write-status';
import '../request/request-context';

export const REQUEST_TIMEOUT_MESSAGE =
  'Timeout: request did not complete within requested timeout - context deadline exceeded';

export interface RequestTimeoutOptions {
  /** Called when a request is answered with the timeout Status (the terminations metric). */
  readonly onTimeout?: (res: Response) => void;
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
        writeStatus(res, requestTimedOut());
        options.onTimeout?.(res);
        dropLaterWrites(res);
      },
      Math.max(0, req.deadline - Date.now()),
    );
    res.once('close', () => clearTimeout(timer));
    next();
  };
}

export function requestTimedOut(): StatusError {
  return new StatusError({ code: 504, reason: 'Timeout', message: REQUEST_TIMEOUT_MESSAGE, details: {} });
}

/** The handler still holds the response; what it sends now would corrupt or duplicate the answer. */
function dropLaterWrites(res: Response): void {
  res.setHeader = () => res;
  res.writeHead = (() => res) as Response['writeHead'];
  res.write = (() => true) as Response['write'];
  res.end = (() => res) as Response['end'];
}
