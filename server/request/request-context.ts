/**
 * What the handler chain learns about a request, kept on the Express request so each stage
 * computes it once: `requestInfo` (request-info stage), `user` (authentication stage),
 * `deadline` (deadline stage) and `warnings` (warning stage). Handlers read them; nothing else should set them.
 */
import type { UserInfo } from '../../api/user-info';
import type { RequestInfo } from './request-info';
import type { WarningRecorder } from './warning-recorder';

declare global {
  // Express's documented way to type what middleware adds to its request.
  namespace Express {
    interface Request {
      requestInfo: RequestInfo;
      /** Raw query string without `?` (parse with `new URLSearchParams` where needed). */
      rawQuery: string;
      user: UserInfo;
      /** The request's audit ID (its `Audit-ID` header, or made up): answered in `Audit-Id`, named in its audit events. */
      auditID: string;
      /** When the request arrived, epoch microseconds (its audit events' requestReceivedTimestamp). */
      receivedMicros: number;
      /** Where everything that warns the client puts its warning (warning stage). */
      warnings: WarningRecorder;
      /** Epoch milliseconds by which a short request should answer; absent for long-running ones. */
      deadline?: number;
    }
  }
}

export {};
