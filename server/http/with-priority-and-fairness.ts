/**
 * Stage: API Priority and Fairness (`--enable-priority-and-fairness`), in place of the plain
 * max-in-flight filter. Each request is classified (server/flowcontrol/), answered with the
 * `X-Kubernetes-PF-FlowSchema-UID` and `X-Kubernetes-PF-PriorityLevel-UID` headers, and run,
 * queued or refused with the reference's 429. A watch holds its seat only until its response
 * starts (the reference counts a watch's initialization, not its life); other long-running
 * requests (exec, proxy, logs) are not limited. A queued request waits at most a quarter of
 * its deadline (15 s without one, as for watches).
 */
import type { RequestHandler, Response } from 'express';
import type { FlowControl } from '../flowcontrol/flow-control';
import { tooManyRequests } from '../status/catalogue';
import { writeStatus } from '../responsewriters/write-status';
import { isLongRunning } from '../request/long-running';
import { TOO_MANY_REQUESTS_MESSAGE } from './with-inflight-limit';
import '../request/request-context';

export const FLOW_SCHEMA_UID_HEADER = 'X-Kubernetes-PF-FlowSchema-UID';
export const PRIORITY_LEVEL_UID_HEADER = 'X-Kubernetes-PF-PriorityLevel-UID';
const MAX_WAIT_MS = 15_000;

export interface PriorityAndFairnessOptions {
  readonly flowControl: FlowControl;
  /** Told when a request is refused (the terminations metric). */
  readonly onRejected?: (res: Response) => void;
}

/** Calls `listener` once, when the response's status line and headers are about to go out. */
function onHeadersSent(res: Response, listener: () => void): void {
  const writeHead = res.writeHead;
  res.writeHead = function (this: Response, ...args: Parameters<Response['writeHead']>) {
    res.writeHead = writeHead;
    listener();
    return writeHead.apply(this, args);
  } as Response['writeHead'];
}

export function withPriorityAndFairness(options: PriorityAndFairnessOptions): RequestHandler {
  const { flowControl } = options;
  return (req, res, next) => {
    const info = req.requestInfo;
    const user = req.user;
    const isWatch = info.verb === 'watch';
    if (user === undefined || (!isWatch && isLongRunning(info))) {
      next();
      return;
    }
    const classification = flowControl.classify({ user, info });
    res.setHeader(FLOW_SCHEMA_UID_HEADER, classification.schema.metadata.uid ?? '');
    res.setHeader(PRIORITY_LEVEL_UID_HEADER, classification.level.metadata.uid ?? '');
    const waitLimitMs =
      req.deadline === undefined ? MAX_WAIT_MS : Math.min(MAX_WAIT_MS, Math.max(0, (req.deadline - Date.now()) / 4));
    const cancel = flowControl.dispatch(classification, waitLimitMs, {
      execute(done) {
        res.once('close', done);
        if (isWatch) onHeadersSent(res, done);
        next();
      },
      reject() {
        // A body we will not read would otherwise keep the connection from being reused.
        req.resume();
        writeStatus(res, tooManyRequests(TOO_MANY_REQUESTS_MESSAGE, 1));
        options.onRejected?.(res);
      },
    });
    if (cancel !== undefined) res.once('close', cancel);
  };
}
