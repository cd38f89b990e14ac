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
    const value = request.headers[name];
    // Joined lines have a comma between them; one line without a comma is all there is. (The
    // raw lines are looked at only then: this runs for every request.)
    if (typeof value !== 'string' || !value.includes(',')) continue;
    const first = firstLineOf(request.rawHeaders, name);
    if (first !== undefined && first !== value) request.headers[name] = first;
  }
}

/** The first line's value of a header in Node's flat list of names and values. */
function firstLineOf(rawHeaders: readonly string[], name: string): string | undefined {
  for (let index = 0; index < rawHeaders.length; index += 2) {
    if (rawHeaders[index].toLowerCase() === name) return rawHeaders[index + 1];
  }
  return undefined;
}
