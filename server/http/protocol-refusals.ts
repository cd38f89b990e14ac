/**
 * Requests Node's HTTP parser lets through and Go's net/http, in front of the reference,
 * refuses before any handler sees them: a protocol version other than HTTP/1.x, more than one
 * `Host`, a transfer coding other than exactly `chunked`. Answered as Go answers them, in
 * plain text on a connection that then closes.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

interface Refusal {
  readonly code: number;
  /** Go's status line text past the code, and (with the code) its body. */
  readonly statusText: string;
  readonly body: string;
}

const VERSION_NOT_SUPPORTED: Refusal = {
  code: 505,
  statusText: 'HTTP Version Not Supported: unsupported protocol version',
  body: '505 HTTP Version Not Supported: unsupported protocol version',
};
const TOO_MANY_HOSTS: Refusal = { code: 400, statusText: 'Bad Request', body: '400 Bad Request' };
const UNSUPPORTED_TRANSFER_ENCODING: Refusal = {
  code: 501,
  statusText: 'Not Implemented',
  body: 'Unsupported transfer encoding',
};

function refusalOf(request: IncomingMessage): Refusal | undefined {
  if (request.httpVersionMajor !== 1) return VERSION_NOT_SUPPORTED;
  if ((request.headersDistinct.host ?? []).length > 1) return TOO_MANY_HOSTS;
  const codings = request.headersDistinct['transfer-encoding'];
  if (codings !== undefined && (codings.length !== 1 || codings[0].trim().toLowerCase() !== 'chunked'))
    return UNSUPPORTED_TRANSFER_ENCODING;
  return undefined;
}

/**
 * Go's answer, written out, to a request Node's parser itself gave up on where Go would have
 * refused it with a code of its own (a version such as HTTP/3.0, a transfer coding it does
 * not take); undefined for the parser's other errors.
 */
export function goAnswerToParserError(code: string | undefined): string | undefined {
  const refusal =
    code === 'HPE_INVALID_VERSION'
      ? VERSION_NOT_SUPPORTED
      : code === 'HPE_INVALID_TRANSFER_ENCODING'
        ? UNSUPPORTED_TRANSFER_ENCODING
        : undefined;
  if (refusal === undefined) return undefined;
  return `HTTP/1.1 ${refusal.code} ${refusal.statusText}\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n${refusal.body}`;
}

/** Answers the request as Go would and returns true when it is one Go refuses; false otherwise. */
export function refuseAsGo(request: IncomingMessage, response: ServerResponse): boolean {
  const refusal = refusalOf(request);
  if (refusal === undefined) return false;
  response.shouldKeepAlive = false;
  response.writeHead(refusal.code, refusal.statusText, {
    'content-type': 'text/plain; charset=utf-8',
    connection: 'close',
  });
  response.end(refusal.body);
  request.resume();
  return true;
}
