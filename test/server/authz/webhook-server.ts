/**
 * A real authorization webhook for tests: an HTTPS server on loopback with its own CA that
 * requires a client certificate, answering each SubjectAccessReview with what `decide` says,
 * and recording the reviews it got. `kubeconfigFor` writes the file a server is pointed at.
 */
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { issueCa, issueLeaf } from '../../../server/pki/certificates';
import { resetConnection } from '../authn/https-fixture';

export interface ReviewAnswer {
  readonly allowed: boolean;
  readonly denied?: boolean;
  readonly reason?: string;
}

export interface WebhookServer {
  readonly url: string;
  readonly reviews: Record<string, unknown>[];
  /** Writes a kubeconfig-format file for the webhook into `dir`, with a client certificate. */
  kubeconfigFor(dir: string, name?: string): string;
  close(): Promise<void>;
}

/** What the webhook does with a review: answers it, answers 500 (`fail`) or another status, or resets the connection. */
export type WebhookAction = ReviewAnswer | 'fail' | 'reset' | { readonly httpStatus: number };

export async function startWebhookServer(
  decide: (review: { apiVersion: string; spec: Record<string, unknown> }) => WebhookAction,
): Promise<WebhookServer> {
  const ca = await issueCa({ commonName: 'webhook-ca', validDays: 1 });
  const serving = await issueLeaf({
    ca,
    subject: 'CN=webhook',
    usage: 'server',
    ipAddresses: ['127.0.0.1'],
    validDays: 1,
  });
  const client = await issueLeaf({ ca, subject: 'CN=kube-apiserver', usage: 'client', validDays: 1 });
  const reviews: Record<string, unknown>[] = [];
  const server: Server = createServer(
    { cert: serving.certPem, key: serving.keyPem, ca: ca.certPem, requestCert: true, rejectUnauthorized: true },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          apiVersion: string;
          kind: string;
          spec: Record<string, unknown>;
        };
        reviews.push(review);
        const answer = decide(review);
        if (answer === 'fail') {
          res.writeHead(500).end('boom');
          return;
        }
        if (answer === 'reset') {
          resetConnection(req);
          return;
        }
        if ('httpStatus' in answer) {
          res.writeHead(answer.httpStatus).end('not now');
          return;
        }
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ apiVersion: review.apiVersion, kind: review.kind, status: answer }));
      });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/authorize`;
  const b64 = (text: string) => Buffer.from(text).toString('base64');
  return {
    url,
    reviews,
    kubeconfigFor(dir, name = 'webhook.kubeconfig') {
      const path = join(dir, name);
      writeFileSync(
        path,
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'Config',
          clusters: [{ name: 'authz', cluster: { server: url, 'certificate-authority-data': b64(ca.certPem) } }],
          users: [
            {
              name: 'apiserver',
              user: { 'client-certificate-data': b64(client.certPem), 'client-key-data': b64(client.keyPem) },
            },
          ],
          contexts: [{ name: 'webhook', context: { cluster: 'authz', user: 'apiserver' } }],
          'current-context': 'webhook',
        }),
      );
      return path;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
