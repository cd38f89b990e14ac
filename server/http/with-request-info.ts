/** Stage: resolve the request's info once and keep it on the request. */
import type { RequestHandler } from 'express';
import { badRequest } from '../status/catalogue';
import { writeStatus } from '../responsewriters/write-status';
import '../request/request-context';
import { RequestInfoError, resolveRequestInfo } from '../request/request-info';

export function withRequestInfo(): RequestHandler {
  return (req, res, next) => {
    const url = req.url;
    const queryStart = url.indexOf('?');
    const rawPath = queryStart < 0 ? url : url.slice(0, queryStart);
    req.rawQuery = queryStart < 0 ? '' : url.slice(queryStart + 1);
    let path: string;
    try {
      path = rawPath.includes('%') ? decodeURIComponent(rawPath) : rawPath;
    } catch {
      writeStatus(res, badRequest(`invalid URL escape in path ${JSON.stringify(rawPath)}`));
      return;
    }
    try {
      req.requestInfo = resolveRequestInfo({ method: req.method, path, query: req.rawQuery });
    } catch (error) {
      if (!(error instanceof RequestInfoError)) throw error;
      // The reference answers such paths (`/api/v1/watch`) with a plain-text 500; the request
      // is what is wrong, so a client error with its words.
      writeStatus(res, badRequest(error.message));
      return;
    }
    next();
  };
}
