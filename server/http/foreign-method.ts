/**
 * A request whose method Node's HTTP parser does not know (`FOO`, a lowercase `get`, any other
 * token). Go's server, in front of the reference, takes any token as a method: the request is
 * authenticated, authorized (its verb the method in lower case) and routed like any other, so
 * an API route answers 405, a handler of its mux serves it, and a path outside them is a 404.
 * Node's parser stops at the method (HPE_INVALID_METHOD) and hands the socket over with the
 * bytes it stopped in: the head is read here from those and what follows, as Go's server reads
 * it, and the request goes to the same handler as any other, on a connection that closes after
 * the answer. Requests with a method Node knows never come here.
 */
import { IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import {
  BAD_REQUEST,
  goProtocolMajor,
  HEADER_VALUE,
  headerTokenRefusal,
  HEADERS_TOO_LARGE,
  TOKEN,
  written,
  type Refusal,
} from './protocol-refusals';
import { ChunkedBodyDecoder } from './chunked-body';

export interface ForeignMethodLimits {
  /** Bytes read without the head's end past which the answer is Go's 431. */
  readonly maxHeaderBytes: number;
  /** The head must be complete within this long, or the connection closes unanswered, as Go's read deadline closes it. */
  readonly headersTimeoutMs: number;
}

export interface ForeignMethodHandlers {
  /** Serves the request read, with a body that streams from the socket; the connection must close after the answer. */
  serve(request: IncomingMessage): void;
  /** Writes Go's answer to a head it refuses and closes the connection. */
  refuse(answer: string): void;
}

/**
 * Node's server still feeds what arrives on the socket to its failed parser, which reports each
 * chunk as another error: the sockets read here are marked, and those errors are to be ignored.
 */
const takenOver = new WeakSet<Duplex>();

export function isTakenOver(socket: Duplex): boolean {
  return takenOver.has(socket);
}

/** What Node's parser reports of where it stopped: the chunk it was reading, and how far into it. */
export interface ParserStop {
  readonly rawPacket: Buffer;
  readonly bytesParsed?: number;
}

/**
 * Reads the head of the request the parser stopped in, then serves it once the answers to the
 * requests before it on the connection are written (a client may send several at once), or
 * refuses it.
 */
export function readForeignMethodRequest(
  socket: Duplex,
  parserStop: ParserStop,
  limits: ForeignMethodLimits,
  handlers: ForeignMethodHandlers,
): void {
  takenOver.add(socket);
  const refuse = (refusal: Refusal) => whenAnswered(socket, () => handlers.refuse(written(refusal)));
  const chunks: Buffer[] = [];
  let length = 0;
  const stop = () => {
    clearTimeout(timer);
    socket.off('data', onData);
  };
  const timer = setTimeout(() => {
    stop();
    socket.destroy();
  }, limits.headersTimeoutMs);
  // The last bytes read: the head's end may straddle two chunks.
  let tail = Buffer.alloc(0);
  const onData = (chunk: Buffer) => {
    const windowStart = length - tail.length;
    const window = Buffer.concat([tail, chunk]);
    chunks.push(chunk);
    length += chunk.length;
    tail = window.subarray(Math.max(0, window.length - 3));
    const end = headEnd(window);
    if (end === undefined) {
      if (length > limits.maxHeaderBytes) {
        stop();
        refuse(HEADERS_TOO_LARGE);
      }
      return;
    }
    stop();
    const bytes = Buffer.concat(chunks);
    const headLength = windowStart + end.headLength;
    if (headLength > limits.maxHeaderBytes) return refuse(HEADERS_TOO_LARGE);
    const head = readHead(bytes.subarray(0, headLength));
    if ('code' in head) return refuse(head);
    const framing = bodyFraming(head);
    if (typeof framing === 'object' && 'code' in framing) return refuse(framing);
    const request = incomingMessage(socket, head);
    streamBody(request, socket, bytes.subarray(headLength + end.separatorLength), framing);
    whenAnswered(socket, () => handlers.serve(request));
  };
  socket.on('data', onData);
  onData(parserStop.rawPacket.subarray(requestStart(parserStop)));
}

/**
 * Where the request the parser stopped in begins: the chunk may hold the end of the requests
 * before it, and a method holds no line break, so it begins after the last one before the stop.
 */
function requestStart({ rawPacket, bytesParsed = 0 }: ParserStop): number {
  return bytesParsed > 0 ? rawPacket.lastIndexOf(0x0a, Math.min(bytesParsed, rawPacket.length) - 1) + 1 : 0;
}

/**
 * Calls `serve` once no answer is being written on the socket: Node's server writes the answers
 * to the requests read before this one first, one at a time, each holding the socket
 * (`_httpMessage`, which Node has kept under that name since its first releases) until finished.
 */
function whenAnswered(socket: Duplex, serve: () => void): void {
  const current = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (current === undefined || current === null) return serve();
  current.once('finish', () => setImmediate(() => whenAnswered(socket, serve)));
}

/** Where the empty line that ends a head starts (Go's textproto ends a line at `\n`, a `\r` before it dropped). */
function headEnd(bytes: Buffer): { headLength: number; separatorLength: number } | undefined {
  const bare = bytes.indexOf('\n\n');
  const crlf = bytes.indexOf('\n\r\n');
  if (bare < 0 && crlf < 0) return undefined;
  if (crlf < 0 || (bare >= 0 && bare < crlf)) return { headLength: bare + 1, separatorLength: 1 };
  return { headLength: crlf + 1, separatorLength: 2 };
}

interface RequestHead {
  readonly method: string;
  readonly target: string;
  readonly major: number;
  readonly minor: number;
  /** Names and values in turn, as Node's parser gives them. */
  readonly rawHeaders: string[];
}

/**
 * Go's reading of the request line (method, target and protocol cut at the first two spaces; a
 * protocol it cannot read, a method that is no token or an empty target is its plain 400) and
 * of the header lines (a line it cannot read is answered as headerTokenRefusal says). What Go
 * checks past that (Host, the target's form and escapes, transfer codings) is refuseAsGo's, as
 * for any request.
 */
function readHead(bytes: Buffer): RequestHead | Refusal {
  const [requestLine, ...lines] = bytes.toString('latin1').split('\n');
  const line = requestLine.endsWith('\r') ? requestLine.slice(0, -1) : requestLine;
  const first = line.indexOf(' ');
  const second = first < 0 ? -1 : line.indexOf(' ', first + 1);
  if (second < 0) return BAD_REQUEST;
  const method = line.slice(0, first);
  const target = line.slice(first + 1, second);
  const protocol = line.slice(second + 1);
  const major = goProtocolMajor(protocol);
  if (major === undefined || !TOKEN.test(method) || target === '') return BAD_REQUEST;
  const rawHeaders: string[] = [];
  for (const headerLine of lines) {
    const text = headerLine.endsWith('\r') ? headerLine.slice(0, -1) : headerLine;
    if (text === '') break;
    const colon = text.indexOf(':');
    const name = colon > 0 ? text.slice(0, colon) : '';
    const value = text.slice(colon + 1);
    if (!TOKEN.test(name) || !HEADER_VALUE.test(value)) return headerTokenRefusal(bytes);
    rawHeaders.push(name, value.replace(/^[ \t]+|[ \t]+$/g, ''));
  }
  return { method, target, major, minor: Number(protocol[7]), rawHeaders };
}

/** Digits only, as Go's strconv.ParseUint takes a Content-Length. */
const CONTENT_LENGTH = /^\d{1,15}$/;

/** How the body is framed: `length` bytes, or chunks. */
type BodyFraming = { readonly length: number } | 'chunked';

/**
 * The body's framing as Go's server reads it: a Content-Length (every line the same number, a
 * number even when chunks follow), chunks when the one transfer coding of an HTTP/1.1 request
 * is `chunked` (its Content-Length then dropped, as Go drops it), or none. On HTTP/1.0 a
 * transfer coding is ignored, as Go ignores it; any other coding leaves the body unread for
 * refuseAsGo's 501, as for any request.
 */
function bodyFraming(head: RequestHead): BodyFraming | Refusal {
  let length: string | undefined;
  const codings: string[] = [];
  for (let index = 0; index < head.rawHeaders.length; index += 2) {
    const name = head.rawHeaders[index].toLowerCase();
    const value = head.rawHeaders[index + 1];
    if (name === 'transfer-encoding') codings.push(value);
    else if (name === 'content-length') {
      if (!CONTENT_LENGTH.test(value) || (length !== undefined && length !== value)) return BAD_REQUEST;
      length = value;
    }
  }
  if (codings.length > 0 && head.minor > 0) {
    if (codings.length !== 1 || codings[0].toLowerCase() !== 'chunked') return { length: 0 };
    dropHeader(head.rawHeaders, 'content-length');
    return 'chunked';
  }
  return { length: length === undefined ? 0 : Number(length) };
}

function dropHeader(rawHeaders: string[], lowerCaseName: string): void {
  for (let index = rawHeaders.length - 2; index >= 0; index -= 2)
    if (rawHeaders[index].toLowerCase() === lowerCaseName) rawHeaders.splice(index, 2);
}

function incomingMessage(socket: Duplex, head: RequestHead): IncomingMessage {
  const request = new IncomingMessage(socket as Socket);
  request.method = head.method;
  request.url = head.target;
  request.httpVersionMajor = head.major;
  request.httpVersionMinor = head.minor;
  request.httpVersion = `${head.major}.${head.minor}`;
  // How Node's parser hands a request its header lines: `headers` is built from them, joined as
  // Node joins them, when first read.
  (request as IncomingMessage & { _addHeaderLines(lines: string[], count: number): void })._addHeaderLines(
    head.rawHeaders,
    head.rawHeaders.length,
  );
  return request;
}

/**
 * The body, those bytes read with the head and then the socket's, at the pace the handler reads
 * them (the socket pauses while the request's buffer is full): `length` bytes, or chunks decoded
 * as Go decodes them, a bad chunk failing the read with Go's words. What follows is never read:
 * the connection closes after the answer.
 */
function streamBody(request: IncomingMessage, socket: Duplex, read: Buffer, framing: BodyFraming): void {
  const finish = () => {
    socket.off('data', take);
    request.complete = true;
    request.push(null);
  };
  const deliver = (data: Buffer) => {
    if (data.length > 0 && !request.push(data)) socket.pause();
  };
  // The read fails, the request is not destroyed: that would destroy the socket before the
  // answer is written, and Go answers (a handler reading the body is told of the error) before
  // it closes the connection. A reader may come after the error.
  const fail = (error: Error) => {
    socket.off('data', take);
    if (request.listenerCount('error') > 0) return void request.emit('error', error);
    request.on('newListener', function onListener(event: string | symbol) {
      if (event !== 'error') return;
      request.off('newListener', onListener);
      process.nextTick(() => request.emit('error', error));
    });
  };
  const decoder = framing === 'chunked' ? new ChunkedBodyDecoder() : undefined;
  let remaining = framing === 'chunked' ? 0 : framing.length;
  function take(chunk: Buffer): void {
    if (decoder === undefined) {
      const part = chunk.length > remaining ? chunk.subarray(0, remaining) : chunk;
      remaining -= part.length;
      deliver(part);
      if (remaining === 0) finish();
      return;
    }
    for (const step of decoder.feed(chunk)) {
      if (step.kind === 'data') deliver(step.data);
      else if (step.kind === 'end') finish();
      else fail(new Error(step.message));
    }
  }
  if (decoder !== undefined || remaining > 0) socket.on('data', take);
  take(read);
}
