/** The end of the chain: unknown paths, and errors thrown or rejected by any stage or handler. */
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { pathNotFound } from '../status/catalogue';
import { isPanic, statusErrorFrom } from '../status/from-error';
import { writeStatus } from '../responsewriters/write-status';
import { auditPanic } from '../audit/record/request-audit';
import { markPanicked } from '../handlers/post-timeout';

/**
 * What no route answered. Below the reference's API web services (`/api`, a group of built-in
 * kinds under `/apis`, `/version`) that is a NotFound Status; `/openapi/v3/...` answers an empty
 * 404; every other path reaches Go's mux and its plain-text `404 page not found`.
 */
export function notFoundHandler(notFoundAsStatus: (name: string) => boolean = () => false): RequestHandler {
  return (req, res) => {
    const path = req.path;
    if (isApiServicePath(path, notFoundAsStatus)) return writeStatus(res, pathNotFound());
    if (path.startsWith('/openapi/v3/')) return void res.status(404).end();
    res.status(404);
    res.setHeader('Content-Type', 'text/plain; charset=utf-8');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.end('404 page not found\n');
  };
}

function isApiServicePath(path: string, notFoundAsStatus: (name: string) => boolean): boolean {
  if (underRoot(path, '/api') || underRoot(path, '/version')) return true;
  if (!path.startsWith('/apis/')) return false;
  const end = path.indexOf('/', 6);
  // `/apis/<group>` alone is the group's discovery document, a route of the mux.
  return end >= 0 && notFoundAsStatus(path.slice(6, end));
}

function underRoot(path: string, root: string): boolean {
  return path.startsWith(root) && (path.length === root.length || path[root.length] === '/');
}

/** Express calls this for a thrown error or a rejected promise; the client gets a Status. */
export function statusErrorHandler(): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    const status = statusErrorFrom(error);
    // What no stage or handler meant to answer is the reference's panic, for audit and the
    // post-timeout report.
    if (isPanic(error)) {
      auditPanic(req, error);
      markPanicked(req);
    }
    if (status.code >= 500) console.error('request failed:', error);
    writeStatus(res, status);
  };
}
