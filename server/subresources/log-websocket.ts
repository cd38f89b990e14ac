/**
 * A pod's log over WebSocket, as the reference streams any resource stream to a WebSocket
 * request (wsstream's Reader): the protocols `binary.k8s.io` (or none) and
 * `base64.binary.k8s.io`, the first the client offers that is one of them; an empty message
 * first, then each piece of the log as one message (binary, or base64 text), and the connection
 * closed at the log's end. A client that offers only other protocols is refused (403, as the
 * reference's WebSocket library refuses a handshake). What the client sends is ignored.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { asksUpgrade } from '../proxy/forwarding';
import { acceptWebSocket, offeredSubprotocols, pipeToWebSocket } from './websocket-accept';

const READER_PROTOCOLS: Readonly<Record<string, 'binary' | 'base64'>> = {
  'binary.k8s.io': 'binary',
  'base64.binary.k8s.io': 'base64',
};

/** Whether the request asks for a WebSocket (the reference's IsWebSocketRequest). */
export function isWebSocketRequest(req: IncomingMessage): boolean {
  return asksUpgrade(req.headers) && String(req.headers.upgrade).toLowerCase() === 'websocket';
}

export async function streamOverWebSocket(
  req: IncomingMessage,
  socket: Duplex,
  source: NodeJS.ReadableStream & { destroy(): void },
): Promise<void> {
  const offered = offeredSubprotocols(req);
  const protocol = offered.length === 0 ? '' : offered.find((candidate) => candidate in READER_PROTOCOLS);
  if (protocol === undefined) {
    source.destroy();
    socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
    return;
  }
  const base64 = READER_PROTOCOLS[protocol] === 'base64';
  const ws = await acceptWebSocket(req, socket, protocol === '' ? undefined : protocol);
  if (ws === undefined) {
    source.destroy();
    return;
  }
  ws.on('error', () => ws.terminate());
  ws.on('close', () => source.destroy());
  source.on('error', () => ws.terminate());
  source.on('end', () => ws.close(1000));
  ws.send(base64 ? '' : Buffer.alloc(0));
  pipeToWebSocket(source, ws, (chunk) => (base64 ? chunk.toString('base64') : chunk));
}
