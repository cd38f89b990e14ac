/**
 * A watch over WebSocket, as the reference serves a watch request that asks to switch protocols
 * (its WatchServer.HandleWS, behind golang.org/x/net/websocket's handshake).
 *
 * The handshake is refused as that library refuses it, in its order, with a bare answer on the
 * connection: no `Sec-WebSocket-Key` (400), a version other than 13 (400, naming 13), an
 * Origin that is missing, empty or no request URI (403), more than one subprotocol offered
 * (400). One offered subprotocol is echoed, whatever it is.
 *
 * Each event is one message, the bytes the HTTP stream would carry without its framing: JSON
 * as text, newline and all; protobuf as binary, the WatchEvent without its length prefix; CBOR
 * as binary. The watch's end (its timeout, the server stopping) closes the connection with
 * 1000. What the client sends is read and dropped. Messages handed to the connection and not
 * yet written are bounded like the HTTP stream's bytes, so a client that stops reading holds
 * back its watch, not the server's memory.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import { parseGoRequestURI } from '../net/go-url';
import { resolveRequestInfo, RequestInfoError } from '../request/request-info';
import type { WatchFraming } from '../responsewriters/respond';
import { isWebSocketRequest } from '../subresources/log-websocket';
import { acceptWebSocket, offeredSubprotocols } from '../subresources/websocket-accept';
import { WaitsForRoom, type WatchSink } from './watch-writer';

/**
 * Whether a request is a watch asking for a WebSocket: the HTTPS server hands such requests
 * their raw connection, which the handshake needs.
 */
export function isWatchUpgrade(request: IncomingMessage): boolean {
  if (!isWebSocketRequest(request)) return false;
  const url = request.url ?? '/';
  const queryStart = url.indexOf('?');
  try {
    const rawPath = queryStart < 0 ? url : url.slice(0, queryStart);
    const info = resolveRequestInfo({
      method: request.method ?? 'GET',
      path: rawPath.includes('%') ? decodeURIComponent(rawPath) : rawPath,
      query: queryStart < 0 ? '' : url.slice(queryStart + 1),
    });
    return info.verb === 'watch';
  } catch (error) {
    // A path the chain refuses anyway: it gets that answer as an ordinary request.
    if (error instanceof RequestInfoError || error instanceof URIError) return false;
    throw error;
  }
}

/** x/net/websocket's answer to a handshake it refuses, as raw HTTP; undefined when it accepts. */
export function watchHandshakeRefusal(req: IncomingMessage): string | undefined {
  if (req.method !== 'GET') return bareAnswer('405 Method Not Allowed', [], 'bad method');
  if (!headerOf(req, 'sec-websocket-key')) return bareAnswer('400 Bad Request', [], 'mismatch challenge/response');
  if (headerOf(req, 'sec-websocket-version') !== '13')
    return bareAnswer('400 Bad Request', ['Sec-WebSocket-Version: 13'], 'missing or bad WebSocket Version');
  if (!acceptableOrigin(req)) return bareAnswer('403 Forbidden', [], '');
  if (offeredSubprotocols(req).length > 1) return bareAnswer('400 Bad Request', [], '');
  return undefined;
}

function bareAnswer(status: string, headers: readonly string[], body: string): string {
  return [`HTTP/1.1 ${status}`, ...headers, '', body].join('\r\n');
}

/** The first value of a header, as Go's Header.Get reads it. */
function headerOf(req: IncomingMessage, name: string): string {
  return req.headersDistinct[name]?.[0] ?? '';
}

/** The handshake's Origin check: the first Origin, present, non-empty and a request URI to Go's url.ParseRequestURI. */
function acceptableOrigin(req: IncomingMessage): boolean {
  const origin = headerOf(req, 'origin');
  return origin !== '' && !('error' in parseGoRequestURI(origin));
}

/**
 * Answers the handshake on the request's connection: a sink for the events once switched;
 * undefined when the handshake was refused (the answer is written and the connection ends).
 */
export async function openWebSocketWatch(options: {
  readonly req: IncomingMessage;
  readonly socket: Duplex;
  readonly framing: WatchFraming;
  readonly maxBufferedBytes: number;
}): Promise<WatchSink | undefined> {
  const { req, socket } = options;
  const refusal = watchHandshakeRefusal(req);
  if (refusal !== undefined) {
    socket.end(refusal);
    return undefined;
  }
  const ws = await acceptWebSocket(req, socket, offeredSubprotocols(req)[0]);
  return ws === undefined ? undefined : new WebSocketWatchSink(ws, options.framing, options.maxBufferedBytes);
}

class WebSocketWatchSink extends WaitsForRoom implements WatchSink {
  private pendingBytes = 0;
  private ended = false;

  constructor(
    private readonly ws: WebSocket,
    private readonly framing: WatchFraming,
    private readonly maxBufferedBytes: number,
  ) {
    super();
    ws.on('error', () => ws.terminate());
    ws.on('close', this.interrupt);
  }

  get open(): boolean {
    return !this.ended && this.ws.readyState === this.ws.OPEN;
  }

  get full(): boolean {
    return this.pendingBytes >= this.maxBufferedBytes;
  }

  send(bytes: Buffer): void {
    if (!this.open) return;
    const message = this.framing === 'length-prefixed' ? bytes.subarray(4) : bytes;
    this.pendingBytes += message.length;
    this.ws.send(message, { binary: this.framing !== 'lines' }, () => {
      this.pendingBytes -= message.length;
      if (!this.full) this.interrupt();
    });
  }

  /** Closes with 1000; a client that does not answer the close within `lingerMs` is disconnected. */
  end(lingerMs: number): void {
    if (this.ended) return;
    this.ended = true;
    this.interrupt();
    const ws = this.ws;
    if (ws.readyState === ws.CLOSED) return;
    if (ws.readyState === ws.OPEN) ws.close(1000);
    const linger = setTimeout(() => ws.terminate(), lingerMs);
    linger.unref();
    ws.once('close', () => clearTimeout(linger));
  }
}
