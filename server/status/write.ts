/** The one place a `StatusError` becomes an HTTP response. */
import type { ServerResponse } from 'node:http';
import type { StatusError } from './status-error';

/**
 * Writes the Status as JSON (the reference's default encoding; negotiated encodings come with
 * the codecs). A response that already started (a watch stream) can only be ended.
 */
export function writeStatus(res: ServerResponse, error: StatusError): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const body = JSON.stringify(error.status) + '\n';
  const retryAfter = error.status.details?.retryAfterSeconds;
  if (retryAfter) res.setHeader('Retry-After', String(retryAfter));
  res.statusCode = error.status.code;
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}
