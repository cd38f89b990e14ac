/** The end of the chain: unknown paths, and errors thrown or rejected by any stage or handler. */
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { pathNotFound } from '../status/catalogue';
import { statusErrorFrom } from '../status/from-error';
import { writeStatus } from '../responsewriters/write-status';
import { StatusError } from '../status/status-error';
import { ObjectError } from '../../storage/errors';
import { auditPanic } from '../audit/record/request-audit';

export function notFoundHandler(): RequestHandler {
  return (_req, res) => writeStatus(res, pathNotFound());
}

/** Express calls this for a thrown error or a rejected promise; the client gets a Status. */
export function statusErrorHandler(): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    const status = statusErrorFrom(error);
    // What no stage or handler meant to answer is the reference's panic, for audit.
    if (!(error instanceof StatusError) && !(error instanceof ObjectError) && status.status.code === 500)
      auditPanic(req, error);
    if (status.code >= 500) console.error('request failed:', error);
    writeStatus(res, status);
  };
}
