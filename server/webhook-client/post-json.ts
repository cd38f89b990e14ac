/**
 * One JSON POST to a webhook configured by kubeconfig (kubeconfig.ts): the CA, client
 * certificate or bearer token of its file, a deadline, and an answer read up to 1 MiB, so a
 * webhook cannot make this server buffer without bound (past that the request is destroyed and
 * the call fails). The caller judges the status and the body.
 */
import { request as httpsRequest } from 'node:https';
import type { WebhookClientConfig } from './kubeconfig';

const MAX_ANSWER_BYTES = 1 << 20;

export interface PostOptions {
  readonly timeoutMs: number;
  /** Ends the call early (the audit backend's shutdown). */
  readonly signal?: AbortSignal;
}

export interface WebhookAnswer {
  readonly status: number;
  readonly body: Buffer;
}

export function postJson(client: WebhookClientConfig, body: string | Buffer, options: PostOptions): Promise<WebhookAnswer> {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      client.url,
      {
        method: 'POST',
        ca: client.ca,
        cert: client.cert,
        key: client.key,
        rejectUnauthorized: !client.insecureSkipTLSVerify,
        timeout: options.timeoutMs,
        signal: options.signal,
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json',
          'Content-Length': String(bytes.length),
          ...(client.token ? { Authorization: `Bearer ${client.token}` } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_ANSWER_BYTES) req.destroy(new Error('the webhook answer is too large'));
          else chunks.push(chunk);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`the webhook did not answer within ${options.timeoutMs} ms`)));
    req.on('error', reject);
    req.end(bytes);
  });
}
