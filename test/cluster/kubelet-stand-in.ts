/**
 * The test cluster's kubelet API, in front of kwok's: the nodes report this stand-in's port, and
 * it serves each pod's port-forward over SPDY itself (kubelet-port-forward.ts), as a kubelet
 * does it, with the half-closes kwok 0.8.0 leaves out (its forward ends the streams only once
 * both ways have ended, and half-closes neither, so neither side reads the other's end). Every
 * other request (logs, exec, attach, a port-forward over WebSocket, which capstan never sends to
 * a kubelet) passes to kwok unchanged. It serves HTTPS (a certificate of its own, which capstan
 * does not verify without `--kubelet-certificate-authority`) and reaches kwok over plain HTTP,
 * which kwok serves on the same port as HTTPS.
 *
 *   const standIn = await startKubeletStandIn({ kwokPort, lookup });
 *   startKwok(kubeconfig, kwokKubeletApiArgs(kwokPort, standIn.port));
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { issueCa, issueLeaf } from '../../server/pki/certificates';
import { joinConnections, streamAnswer } from '../../server/proxy/forwarding';
import { openUpstream } from '../../server/proxy/upstream';
import { servePortForward, type TargetLookup } from './kubelet-port-forward';

/** The kubelet's port-forward paths: `/portForward/<namespace>/<pod>` and with the pod's uid after. */
const PORT_FORWARD_PATH = /^\/portForward\/([^/?]+)\/([^/?]+)(?:\/([^/?]+))?\/?(?:\?|$)/;

export interface KubeletStandIn {
  readonly port: number;
  stop(): Promise<void>;
}

/** kwok's answer to a request this stand-in passes on. */
function toKwok(req: IncomingMessage, kwokPort: number) {
  return openUpstream({
    options: { host: '127.0.0.1', port: kwokPort, agent: false },
    secure: false,
    method: req.method ?? 'GET',
    path: req.url ?? '/',
    headers: req.headers,
    timeoutMs: 0,
    body: req,
  });
}

function passRequest(req: IncomingMessage, res: ServerResponse, kwokPort: number): void {
  const upstream = toKwok(req, kwokPort);
  res.on('close', () => upstream.abort());
  upstream.answer.then(
    (answered) => {
      // Only an upgrade request is answered by an upgrade, and those come to passUpgrade.
      if (!answered.upgraded) streamAnswer(answered.answer, res);
    },
    (error: Error) => {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(error.message);
    },
  );
}

/** An upgrade request for kwok: joined to kwok's connection once kwok switches, kwok's refusal written back otherwise. */
function passUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, kwokPort: number): void {
  const upstream = toKwok(req, kwokPort);
  socket.on('error', () => upstream.abort());
  upstream.answer.then(
    (answered) => {
      if (answered.upgraded) {
        if (head.length > 0) answered.socket.write(head);
        joinConnections(socket, answered.answer, answered.socket, answered.head);
        return;
      }
      const { answer } = answered;
      const lines = [`HTTP/1.1 ${answer.statusCode} ${answer.statusMessage ?? ''}`];
      for (const [name, value] of Object.entries(answer.headers))
        if (name !== 'transfer-encoding' && name !== 'connection') lines.push(`${name}: ${String(value)}`);
      lines.push('connection: close');
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
      answer.pipe(socket);
    },
    (error: Error) => socket.end(`HTTP/1.1 502 Bad Gateway\r\nconnection: close\r\n\r\n${error.message}`),
  );
}

/** Whether the request asks to switch to SPDY (not a WebSocket, which goes to kwok). */
function asksSpdy(req: IncomingMessage): boolean {
  return String(req.headers.upgrade ?? '')
    .toLowerCase()
    .includes('spdy/3.1');
}

/**
 * Starts the stand-in on a port of 127.0.0.1 the kernel picks, passing what it does not serve to
 * kwok on `kwokPort`; `lookup` says where a pod's port is reached (kwok's own PortForward objects).
 */
export async function startKubeletStandIn(options: {
  readonly kwokPort: number;
  readonly lookup: TargetLookup;
}): Promise<KubeletStandIn> {
  const ca = await issueCa({ commonName: 'kubelet-stand-in-ca', validDays: 1 });
  const leaf = await issueLeaf({
    ca,
    subject: 'CN=kubelet-stand-in',
    usage: 'server',
    ipAddresses: ['127.0.0.1'],
    validDays: 1,
  });
  const server: Server = createServer({ cert: leaf.certPem, key: leaf.keyPem }, (req, res) =>
    passRequest(req, res, options.kwokPort),
  );
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const match = PORT_FORWARD_PATH.exec(req.url ?? '');
    if (match !== null && (req.method === 'GET' || req.method === 'POST') && asksSpdy(req)) {
      const [, namespace, name, uid] = match.map((part) => (part === undefined ? '' : decodeURIComponent(part)));
      servePortForward(req, socket, head, { namespace, name, uid }, options.lookup);
    } else passUpgrade(req, socket, head, options.kwokPort);
  });
  const sockets = new Set<Duplex>();
  server.on('secureConnection', (socket: Duplex) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    stop: async () => {
      // Forwards and followed logs hold their connections open; they end with the stand-in.
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
