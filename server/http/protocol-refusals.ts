/**
 * Requests Node's HTTP parser lets through and Go's net/http, in front of the reference,
 * refuses before any handler sees them: a protocol version other than HTTP/1.x, a missing,
 * repeated or malformed `Host`, a transfer coding other than exactly `chunked`, a target that
 * is no path or whose path has a `%` escape url.ParseRequestURI cannot read. And Go's answers to what Node's parser itself refuses, and the body Go reads. Answered as Go answers them, in plain text on a
 * connection that then closes.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseGoRequestURI } from '../net/go-url';

export interface Refusal {
  readonly code: number;
  /** Go's status line text past the code. */
  readonly statusText: string;
  readonly body: string;
}

const VERSION_NOT_SUPPORTED: Refusal = {
  code: 505,
  statusText: 'HTTP Version Not Supported: unsupported protocol version',
  body: '505 HTTP Version Not Supported: unsupported protocol version',
};
export const BAD_REQUEST: Refusal = { code: 400, statusText: 'Bad Request', body: '400 Bad Request' };
/** Go's statusError: its text follows the status in the status line and in the body. */
function badRequestSaying(text: string): Refusal {
  return { code: 400, statusText: `Bad Request: ${text}`, body: `400 Bad Request: ${text}` };
}
const MISSING_HOST = badRequestSaying('missing required Host header');
const MALFORMED_HOST = badRequestSaying('malformed Host header');
const INVALID_HEADER_NAME = badRequestSaying('invalid header name');
const UNSUPPORTED_TRANSFER_ENCODING: Refusal = {
  code: 501,
  statusText: 'Not Implemented',
  body: 'Unsupported transfer encoding',
};
export const HEADERS_TOO_LARGE: Refusal = {
  code: 431,
  statusText: 'Request Header Fields Too Large',
  body: '431 Request Header Fields Too Large',
};

const NOT_FOUND: Refusal = { code: 404, statusText: 'Not Found', body: '404 page not found\n' };
/** Go's server answers `OPTIONS *` itself. */
const GLOBAL_OPTIONS: Refusal = { code: 200, statusText: 'OK', body: '' };
const SLASH = 0x2f;
/** An absolute URL's scheme, `//` and authority (up to the path or query). */
const ABSOLUTE_FORM = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/?]*/;

/**
 * A request target that is no path: Go serves an absolute URL by its path (the target is
 * rewritten to it here), answers `OPTIONS *` itself, and routes the rest (`*`, a CONNECT's
 * host and port) to a path no handler has: Go's mux answers its plain 404. A target Go's
 * url.ParseRequestURI cannot read (a bad port, an unclosed `[`, a stray escape) is its plain
 * 400 first; Go reads a CONNECT's authority as that of an `http://` URL.
 */
function targetAnswer(request: IncomingMessage, target: string): Refusal | undefined {
  if (target === '*' && request.method === 'OPTIONS') return GLOBAL_OPTIONS;
  if (request.method === 'CONNECT') return 'error' in parseGoRequestURI(`http://${target}`) ? BAD_REQUEST : NOT_FOUND;
  const absolute = ABSOLUTE_FORM.exec(target);
  if (absolute === null) return NOT_FOUND;
  if ('error' in parseGoRequestURI(target)) return BAD_REQUEST;
  if (target.charCodeAt(absolute[0].length) !== SLASH) return NOT_FOUND;
  request.url = target.slice(absolute[0].length);
  return undefined;
}

/** The bytes Go allows in a Host header (httpguts.ValidHostHeader). */
const VALID_HOST = /^[0-9A-Za-z!$%&'()*+,\-.:;=[\]_~]*$/;

/** Go's server's checks of the one Host (or none) a request has, after its transfer coding's. */
function hostRefusal(host: string | undefined, minorVersion: number, method: string): Refusal | undefined {
  if (host === undefined) return minorVersion >= 1 && method !== 'CONNECT' ? MISSING_HOST : undefined;
  return VALID_HOST.test(host) ? undefined : MALFORMED_HOST;
}

/**
 * One pass over the raw headers (no header object is built for it): Go's checks of `Host` and
 * `Transfer-Encoding`, which Node's parser does not make.
 */
function refusalOf(request: IncomingMessage): Refusal | undefined {
  if (request.httpVersionMajor !== 1) return VERSION_NOT_SUPPORTED;
  const raw = request.rawHeaders;
  let host: string | undefined;
  let hosts = 0;
  let codings = 0;
  let coding = '';
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i];
    if (name.length === 4 && name.toLowerCase() === 'host') {
      hosts++;
      host = raw[i + 1];
    } else if (name.length === 17 && name.toLowerCase() === 'transfer-encoding') {
      codings++;
      coding = raw[i + 1];
    }
  }
  if (hosts > 1) return BAD_REQUEST;
  if (codings > 0) {
    if (request.httpVersionMinor === 0) ignoreBody(request);
    else if (codings !== 1 || coding.trim().toLowerCase() !== 'chunked') return UNSUPPORTED_TRANSFER_ENCODING;
  }
  const refusal = hostRefusal(host, request.httpVersionMinor, request.method ?? '');
  if (refusal !== undefined) return refusal;
  const target = request.url ?? '';
  const answer = target.charCodeAt(0) === SLASH ? undefined : targetAnswer(request, target);
  if (answer !== undefined) return answer;
  return hasMalformedPathEscape(request.url ?? '') ? BAD_REQUEST : undefined;
}

/** A `%` not followed by two hex digits, which Go's path unescaping refuses. */
const MALFORMED_ESCAPE = /%(?![0-9A-Fa-f]{2})/;

/**
 * Whether url.ParseRequestURI refuses the target's path for its escapes (its query goes
 * unchecked). Most targets have no `%`: one scan finds that.
 */
function hasMalformedPathEscape(target: string): boolean {
  const percent = target.indexOf('%');
  if (percent < 0) return false;
  const query = target.indexOf('?');
  if (query >= 0 && query < percent) return false;
  return MALFORMED_ESCAPE.test(query < 0 ? target : target.slice(0, query));
}

/**
 * Go ignores `Transfer-Encoding` on an HTTP/1.0 request: without a Content-Length its body is
 * empty. Node's parser reads the chunks as the body all the same; they are dropped as it hands
 * them over, so the handlers see what Go's would.
 */
function ignoreBody(request: IncomingMessage): void {
  const push = request.push.bind(request);
  request.push = (chunk: unknown) => (chunk === null ? push(null) : true);
}

/** Go's ParseHTTPVersion: the major version of `HTTP/M.N` (one digit each), undefined when malformed. */
export function goProtocolMajor(protocol: string): number | undefined {
  if (protocol === 'HTTP/1.1' || protocol === 'HTTP/1.0') return 1;
  if (!/^HTTP\/\d\.\d$/.test(protocol)) return undefined;
  return Number(protocol[5]);
}

/**
 * Go's refusal of the request line Node's parser gave up on for its version: 400 when Go
 * cannot read the version either (`HTTP/1.01`, a second space before it), else 505. A minor
 * version past 1 (`HTTP/1.2`), which Go serves and Node's parser cannot, is refused as 505 too.
 */
function versionRefusal(rawPacket: Buffer | undefined): Refusal {
  if (rawPacket === undefined) return VERSION_NOT_SUPPORTED;
  const text = rawPacket.toString('latin1', 0, Math.min(rawPacket.length, 8192));
  const lineEnd = text.indexOf('\n');
  const line = lineEnd < 0 ? text : text.slice(0, lineEnd > 0 && text[lineEnd - 1] === '\r' ? lineEnd - 1 : lineEnd);
  // Go's parseRequestLine: method, target and protocol are cut at the first two spaces.
  const first = line.indexOf(' ');
  const second = first < 0 ? -1 : line.indexOf(' ', first + 1);
  if (second < 0) return BAD_REQUEST;
  return goProtocolMajor(line.slice(second + 1)) === undefined ? BAD_REQUEST : VERSION_NOT_SUPPORTED;
}

/** An RFC 7230 token byte (httpguts' tchar). */
export const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Bytes Go's textproto takes in a header value: any but controls other than tab. */
export const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * Go's answer to a head whose header Node's parser stopped at. Go's textproto takes a name with
 * spaces in it (uncanonicalized, so a `Host :` is no Host); its server then checks Host and
 * refuses the spaced name as "invalid header name". Any header textproto cannot read (no
 * colon, another byte outside a token, a control byte in a value) is its plain 400.
 */
export function headerTokenRefusal(rawPacket: Buffer | undefined): Refusal {
  if (rawPacket === undefined) return BAD_REQUEST;
  const [requestLine, ...lines] = rawPacket.toString('latin1', 0, Math.min(rawPacket.length, 65536)).split(/\r?\n/);
  let spaced = false;
  let hosts = 0;
  let host: string | undefined;
  for (const line of lines) {
    if (line === '') break;
    const colon = line.indexOf(':');
    if (colon <= 0) return BAD_REQUEST;
    const name = line.slice(0, colon);
    const value = line.slice(colon + 1);
    if (name.startsWith(' ') || !TOKEN.test(name.replaceAll(' ', '')) || !HEADER_VALUE.test(value)) return BAD_REQUEST;
    if (name.includes(' ')) spaced = true;
    else if (name.toLowerCase() === 'host') {
      hosts++;
      host = value.trim();
    }
  }
  if (hosts > 1) return BAD_REQUEST;
  const [method = '', , version = ''] = requestLine.split(' ');
  return hostRefusal(host, version === 'HTTP/1.0' ? 0 : 1, method) ?? (spaced ? INVALID_HEADER_NAME : BAD_REQUEST);
}

export function written(refusal: Refusal): string {
  return `HTTP/1.1 ${refusal.code} ${refusal.statusText}\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n${refusal.body}`;
}

/**
 * Go's answer, written out, to a request Node's parser gave up on (the error's `code` and the
 * bytes it stopped in); undefined for errors that are not the parser's.
 */
export function goAnswerToParserError(error: { code?: string; rawPacket?: Buffer }): string | undefined {
  switch (error.code) {
    case 'HPE_INVALID_VERSION':
      return written(versionRefusal(error.rawPacket));
    case 'HPE_INVALID_HEADER_TOKEN':
      return written(headerTokenRefusal(error.rawPacket));
    case 'HPE_INVALID_TRANSFER_ENCODING':
      return written(UNSUPPORTED_TRANSFER_ENCODING);
    case 'HPE_HEADER_OVERFLOW':
      return written(HEADERS_TOO_LARGE);
    default:
      return error.code?.startsWith('HPE_') ? written(BAD_REQUEST) : undefined;
  }
}

/** Answers the request as Go would and returns true when it is one Go refuses; false otherwise. */
export function refuseAsGo(request: IncomingMessage, response: ServerResponse): boolean {
  const refusal = refusalOf(request);
  if (refusal === undefined) return false;
  // Byte for byte what Go writes (written() above): its two headers as it spells them, no Date,
  // and a body that the connection's close ends, not chunks.
  response.shouldKeepAlive = false;
  response.sendDate = false;
  response.useChunkedEncodingByDefault = false;
  response.writeHead(refusal.code, refusal.statusText, {
    'Content-Type': 'text/plain; charset=utf-8',
    Connection: 'close',
  });
  response.end(refusal.body);
  request.resume();
  return true;
}
