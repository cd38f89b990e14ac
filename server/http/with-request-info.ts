/** Stage: resolve the request's info once and keep it on the request. */
import type { RequestHandler } from 'express';
import { badRequest } from '../status/catalogue';
import { writeStatus } from '../responsewriters/write-status';
import '../request/request-context';
import { RequestInfoError, resolveRequestInfo } from '../request/request-info';
import { percentUnescape } from '../request/query';

export function withRequestInfo(): RequestHandler {
  return (req, res, next) => {
    const url = req.url;
    const queryStart = url.indexOf('?');
    const rawPath = queryStart < 0 ? url : url.slice(0, queryStart);
    req.rawQuery = queryStart < 0 ? '' : url.slice(queryStart + 1);
    const path = percentUnescape(rawPath);
    if (path === undefined) {
      // Go's HTTP server refuses a request target it cannot parse before any handler runs, with
      // its own plain-text answer.
      res.writeHead(400, { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close' });
      res.end('400 Bad Request');
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
