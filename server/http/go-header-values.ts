/**
 * Node joins the lines of a repeated header into one value (`text/html, application/json`);
 * Go keeps them apart, and the reference reads these with Header.Get, which is the first line
 * alone. So a request sending `Accept: text/html` and then `Accept: application/json` is a 406
 * there, not JSON. Each is set to its first line before any handler reads it: `Accept`
 * (negotiation, the router's check), `Accept-Encoding` (compression) and `If-None-Match`
 * (discovery's and OpenAPI's ETags).
 */
import type { IncomingMessage } from 'node:http';

const READ_AS_FIRST_LINE = ['accept', 'accept-encoding', 'if-none-match'] as const;

export function keepFirstHeaderLines(request: IncomingMessage): void {
  for (const name of READ_AS_FIRST_LINE) {
    const lines = request.headersDistinct[name];
    if (lines !== undefined && lines.length > 1) request.headers[name] = lines[0];
  }
}
