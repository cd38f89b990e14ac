/**
 * Accepting a WebSocket on an upgrade request's raw socket, for the connections the server
 * translates or tunnels itself, with the subprotocol the caller chose from what the client
 * offered. The choice is the caller's, read as the reference's Go libraries read the header
 * (comma-separated, trimmed): `ws` refuses protocols that are not RFC 6455 tokens, and
 * port-forward's `SPDY/3.1+portforward.k8s.io` holds a `/`, which the reference accepts.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { auditSwitchedProtocols } from '../audit/record/request-audit';

/** The reference's WebSocket library's largest message (x/net/websocket's DefaultMaxPayloadBytes). */
const MAX_MESSAGE_BYTES = 32 << 20;

/** The subprotocols a WebSocket request offers, in its order; empty when it is no WebSocket request. */
export function offeredSubprotocols(req: IncomingMessage): string[] {
  if (String(req.headers.upgrade ?? '').toLowerCase() !== 'websocket') return [];
  return String(req.headers['sec-websocket-protocol'] ?? '')
    .split(',')
    .map((protocol) => protocol.trim())
    .filter((protocol) => protocol !== '');
}

/**
 * Answers the handshake with `protocol` (none when undefined) and resolves with the WebSocket,
 * the switch audited; resolves undefined when the handshake is refused (`ws` has answered it).
 */
export function acceptWebSocket(
  req: IncomingMessage,
  socket: Duplex,
  protocol: string | undefined,
): Promise<WebSocket | undefined> {
  const server = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: MAX_MESSAGE_BYTES });
  if (protocol !== undefined)
    server.on('headers', (headers: string[]) => headers.push(`Sec-WebSocket-Protocol: ${protocol}`));
  return new Promise((resolve) => {
    socket.once('close', () => resolve(undefined));
    // ws reads the offer itself only to call a chooser; the choice is made, so it is kept from it.
    const offered = req.headers['sec-websocket-protocol'];
    delete req.headers['sec-websocket-protocol'];
    try {
      server.handleUpgrade(req, socket, Buffer.alloc(0), (ws) => {
        auditSwitchedProtocols(req, 101);
        resolve(ws);
      });
    } finally {
      if (offered !== undefined) req.headers['sec-websocket-protocol'] = offered;
    }
  });
}

/** Output waiting to be written to the client beyond which the source is not read. */
const MAX_PENDING_BYTES = 1 << 20;

/**
 * Sends what `source` gives as messages (`message` makes each chunk one), pausing `source`
 * while more than a bound waits to reach the client, so a client that stops reading holds the
 * source back, not the server's memory.
 */
export function pipeToWebSocket(
  source: NodeJS.ReadableStream,
  ws: WebSocket,
  message: (chunk: Buffer) => Buffer | string,
): void {
  let pending = 0;
  source.on('data', (chunk: Buffer) => {
    if (ws.readyState !== ws.OPEN) return;
    const data = message(chunk);
    pending += data.length;
    ws.send(data, { binary: typeof data !== 'string' }, () => {
      pending -= data.length;
      if (pending <= MAX_PENDING_BYTES) source.resume();
    });
    if (pending > MAX_PENDING_BYTES) source.pause();
  });
}
