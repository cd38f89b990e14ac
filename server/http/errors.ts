/** The end of the chain: unknown paths, and errors thrown or rejected by any stage or handler. */
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { pathNotFound } from '../status/catalogue';
import { statusErrorFrom } from '../status/from-error';
import { writeStatus } from '../status/write';

export function notFoundHandler(): RequestHandler {
  return (_req, res) => writeStatus(res, pathNotFound());
}

/** Express calls this for a thrown error or a rejected promise; the client gets a Status. */
export function statusErrorHandler(): ErrorRequestHandler {
  return (error: unknown, _req, res, _next) => {
    const status = statusErrorFrom(error);
    if (status.code >= 500) console.error('request failed:', error);
    writeStatus(res, status);
  };
}
