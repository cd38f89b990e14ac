/** The one place a `StatusError` becomes an HTTP response. */
import type { ServerResponse } from 'node:http';
import type { StatusError } from '../status/status-error';
import { auditResponse, encodeStatus } from './respond';

/**
 * Writes the Status in the type the client accepts (a protobuf client gets protobuf), JSON
 * when nothing it accepts fits, as the reference does. A response that already started (a
 * watch stream) can only be ended.
 */
export function writeStatus(res: ServerResponse, error: StatusError): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const { contentType, body } = encodeStatus({ req: res.req }, error.status);
  auditResponse(res, error.status);
  const retryAfter = error.status.details?.retryAfterSeconds;
  if (retryAfter) res.setHeader('Retry-After', String(retryAfter));
  res.statusCode = error.status.code;
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', body.length);
  res.end(body);
}
