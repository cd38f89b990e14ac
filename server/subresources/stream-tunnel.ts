/**
 * port-forward over WebSocket, as the reference's TunnelingHandler serves it (feature gate
 * PortForwardWebsockets): the client offers `SPDY/3.1+portforward.k8s.io` and runs SPDY itself,
 * inside the WebSocket's binary messages. The server asks the kubelet's `/portForward` to switch
 * to SPDY/3.1 with the protocols named after the `SPDY/3.1+` prefix; once it has, the client's
 * WebSocket is accepted with the protocol the kubelet chose (under the prefix again), and bytes
 * flow both ways unread: each message's payload to the kubelet, each read from the kubelet as one
 * message. A kubelet that refuses answers the client itself, as it answered.
 * Backpressure both ways: the WebSocket is not read while the kubelet's connection is full, and
 * the kubelet's connection is not read while more than a bound waits to reach the client.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { acceptWebSocket, offeredSubprotocols, pipeToWebSocket } from './websocket-accept';

const TUNNELING_PREFIX = 'SPDY/3.1+';
const KUBERNETES_SUFFIX = '.k8s.io';

/** The SPDY protocols a WebSocket request offers to tunnel (`SPDY/3.1+<name>.k8s.io`, the prefix taken off); empty when it is no such request. */
export function tunneledProtocols(req: IncomingMessage): string[] {
  return offeredSubprotocols(req)
    .filter((protocol) => protocol.startsWith(TUNNELING_PREFIX) && protocol.endsWith(KUBERNETES_SUFFIX))
    .map((protocol) => protocol.slice(TUNNELING_PREFIX.length));
}

/** The headers of the client's WebSocket request that do not go to the kubelet, which is asked for SPDY instead. */
export const WEBSOCKET_HEADERS: ReadonlySet<string> = new Set([
  'sec-websocket-protocol',
  'sec-websocket-key',
  'sec-websocket-version',
  'sec-websocket-extensions',
]);

/** The kubelet has switched to SPDY (`kubelet`, its 101 `answer`): the client's WebSocket is accepted and joined to it. */
export async function tunnelToKubelet(
  req: IncomingMessage,
  socket: Duplex,
  answer: IncomingMessage,
  kubelet: Duplex,
  head: Buffer,
): Promise<void> {
  // The kubelet's choice, under the prefix again, if the client offered it (gorilla's Upgrader chooses so).
  const chosen = `${TUNNELING_PREFIX}${String(answer.headers['x-stream-protocol-version'] ?? '').trim()}`;
  const ws = await acceptWebSocket(req, socket, offeredSubprotocols(req).includes(chosen) ? chosen : undefined);
  if (ws === undefined) {
    kubelet.destroy();
    return;
  }
  ws.on('error', () => ws.terminate());
  kubelet.on('error', () => kubelet.destroy());
  ws.on('close', () => kubelet.destroy());
  kubelet.on('close', () => ws.close(1000));

  ws.on('message', (data: Buffer) => {
    if (!kubelet.write(data)) {
      ws.pause();
      kubelet.once('drain', () => ws.resume());
    }
  });
  if (head.length > 0) kubelet.unshift(head);
  pipeToWebSocket(kubelet, ws, (chunk) => chunk);
}
