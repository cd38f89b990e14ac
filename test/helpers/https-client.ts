/** Plain HTTPS requests for the server-core tests, with or without a client certificate. */
import { request } from 'node:https';

export interface ClientIdentity {
  readonly certPem: string;
  readonly keyPem: string;
}

export interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

export function httpsRequest(options: {
  url: string;
  caPem: string;
  identity?: ClientIdentity;
  method?: string;
  body?: Buffer | string;
  headers?: Record<string, string>;
}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      options.url,
      {
        method: options.method ?? 'GET',
        ca: options.caPem,
        cert: options.identity?.certPem,
        key: options.identity?.keyPem,
        headers: options.headers,
        agent: false,
        timeout: 10_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('request timed out')));
    req.on('error', reject);
    req.end(options.body);
  });
}
