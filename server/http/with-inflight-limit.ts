/**
 * Stage: the reference's max-in-flight filter. Short requests are counted in two pools,
 * read-only (get, list) and mutating (everything else), bounded by `--max-requests-inflight`
 * (400) and `--max-mutating-requests-inflight` (200); a request over its pool's limit is
 * answered at once with 429 `Too many requests, please try again later.` and `Retry-After: 1`.
 * Long-running requests (watches) are not counted, and neither are requests of
 * `system:masters`, so an administrator can still act on an overloaded server. A limit of 0
 * means no limit for that pool. Runs after authentication, before authorization, as in the
 * reference.
 */
import type { RequestHandler, Response } from 'express';
import { tooManyRequests } from '../status/catalogue';
import { writeStatus } from '../responsewriters/write-status';
import { isLongRunning } from '../request/long-running';
import '../request/request-context';

export const TOO_MANY_REQUESTS_MESSAGE = 'Too many requests, please try again later.';

const SYSTEM_MASTERS = 'system:masters';
const READ_ONLY_VERBS: ReadonlySet<string> = new Set(['get', 'list', 'watch']);

export type InflightPool = 'readOnly' | 'mutating';

export interface InflightLimitOptions {
  /** `--max-requests-inflight`; 0: unlimited. */
  readonly maxReadOnly: number;
  /** `--max-mutating-requests-inflight`; 0: unlimited. */
  readonly maxMutating: number;
  /** Told each time a pool's count changes (the `apiserver_current_inflight_requests` gauge). */
  readonly onCountChange?: (pool: InflightPool, inFlight: number) => void;
  /** Told when a request is rejected (the terminations metric). */
  readonly onRejected?: (pool: InflightPool, res: Response) => void;
}

export function withInflightLimit(options: InflightLimitOptions): RequestHandler {
  const inFlight: Record<InflightPool, number> = { readOnly: 0, mutating: 0 };
  const limits: Record<InflightPool, number> = { readOnly: options.maxReadOnly, mutating: options.maxMutating };
  if (limits.readOnly <= 0 && limits.mutating <= 0) return (_req, _res, next) => next();

  return (req, res, next) => {
    const info = req.requestInfo;
    if (isLongRunning(info) || req.user?.groups.includes(SYSTEM_MASTERS)) {
      next();
      return;
    }
    const pool: InflightPool = READ_ONLY_VERBS.has(info.verb) ? 'readOnly' : 'mutating';
    const limit = limits[pool];
    if (limit <= 0) {
      next();
      return;
    }
    if (inFlight[pool] >= limit) {
      // A body we will not read would otherwise keep the connection from being reused.
      req.resume();
      writeStatus(res, tooManyRequests(TOO_MANY_REQUESTS_MESSAGE, 1));
      options.onRejected?.(pool, res);
      return;
    }
    inFlight[pool]++;
    options.onCountChange?.(pool, inFlight[pool]);
    // 'close' fires once whether the response finished or the client went away.
    res.once('close', () => {
      inFlight[pool]--;
      options.onCountChange?.(pool, inFlight[pool]);
    });
    next();
  };
}
