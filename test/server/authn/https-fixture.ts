/** A real local HTTPS server for tests that need a remote party (a token webhook, an OIDC issuer), with its own CA. */
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { issueCa, issueLeaf } from '../../../server/pki/certificates';

export interface HttpsFixture {
  readonly url: string;
  readonly caPem: string;
  close(): Promise<void>;
}

export async function startHttpsFixture(
  handler: (req: IncomingMessage, res: ServerResponse, body: string) => void,
): Promise<HttpsFixture> {
  const ca = await issueCa({ commonName: 'fixture-ca', validDays: 1 });
  const serving = await issueLeaf({
    ca,
    subject: 'CN=fixture',
    usage: 'server',
    ipAddresses: ['127.0.0.1'],
    dnsNames: ['localhost'],
    validDays: 1,
  });
  const server: Server = createServer({ cert: serving.certPem, key: serving.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => handler(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    caPem: ca.certPem,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const bytes = Buffer.from(JSON.stringify(body));
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': bytes.length });
  res.end(bytes);
}

/**
 * Ends the request's connection with a TCP reset, which the client reads as ECONNRESET. Node
 * resets only the TCP socket a TLS socket is made over, which it keeps as `_parent`.
 */
export function resetConnection(req: IncomingMessage): void {
  (req.socket as IncomingMessage['socket'] & { _parent: Socket })._parent.resetAndDestroy();
}
