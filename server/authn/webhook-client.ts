/**
 * The client side of a webhook configured by a kubeconfig file, as the reference reads one:
 * the current context's cluster is the remote service (`server`, `certificate-authority` or
 * `-data`, `insecure-skip-tls-verify`) and its user is this server's credential towards it
 * (`client-certificate`/`client-key` or their `-data`, `token`). Relative file paths resolve
 * against the file's directory.
 */
import { readFileSync } from 'node:fs';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import { dirname, isAbsolute, join } from 'node:path';
import { parse } from 'yaml';

interface NamedEntry<T> {
  readonly name: string;
  readonly [key: string]: unknown;
  readonly cluster?: T;
  readonly user?: T;
  readonly context?: T;
}

type Fields = Record<string, unknown>;

/** An answer past this is refused, so a webhook cannot make this server buffer without bound. */
const MAX_ANSWER_BYTES = 1 << 20;

export interface WebhookClient {
  /** POSTs a JSON body; resolves with the status code and the parsed answer. */
  post(body: unknown, timeoutMs: number): Promise<{ status: number; body: unknown }>;
}

export function webhookClientFromKubeconfig(path: string): WebhookClient {
  const config = parse(readFileSync(path, 'utf8')) as {
    clusters?: NamedEntry<Fields>[];
    users?: NamedEntry<Fields>[];
    contexts?: NamedEntry<Fields>[];
    'current-context'?: string;
  };
  const context = config.contexts?.find((entry) => entry.name === config['current-context'])?.context;
  const pick = <T>(entries: NamedEntry<T>[] | undefined, name: unknown) =>
    (name === undefined ? entries?.[0] : entries?.find((entry) => entry.name === name) ?? entries?.[0]);
  const cluster = pick(config.clusters, context?.cluster)?.cluster;
  const user = pick(config.users, context?.user)?.user ?? {};
  if (!cluster || typeof cluster.server !== 'string') throw new Error(`webhook kubeconfig ${path}: no cluster with a server`);
  const url = new URL(cluster.server);
  if (url.protocol !== 'https:') throw new Error(`webhook kubeconfig ${path}: server ${cluster.server} is not https`);
  const base = dirname(path);
  const material = (fields: Fields, name: string): Buffer | undefined => {
    const data = fields[`${name}-data`];
    if (typeof data === 'string' && data !== '') return Buffer.from(data, 'base64');
    const file = fields[name];
    if (typeof file === 'string' && file !== '') return readFileSync(isAbsolute(file) ? file : join(base, file));
    return undefined;
  };
  const options: RequestOptions = {
    method: 'POST',
    ca: material(cluster, 'certificate-authority'),
    rejectUnauthorized: cluster['insecure-skip-tls-verify'] !== true,
    cert: material(user, 'client-certificate'),
    key: material(user, 'client-key'),
  };
  const token = typeof user.token === 'string' ? user.token : undefined;
  return {
    post(body, timeoutMs) {
      const bytes = Buffer.from(JSON.stringify(body));
      return new Promise((resolve, reject) => {
        const req = httpsRequest(
          url,
          {
            ...options,
            headers: {
              'Content-Type': 'application/json',
              Accept: 'application/json',
              'Content-Length': String(bytes.length),
              ...(token ? { Authorization: `Bearer ${token}` } : {}),
            },
            timeout: timeoutMs,
          },
          (res) => {
            const chunks: Buffer[] = [];
            let size = 0;
            res.on('data', (chunk: Buffer) => {
              size += chunk.length;
              if (size > MAX_ANSWER_BYTES) req.destroy(new Error('the webhook answer is too large'));
              else chunks.push(chunk);
            });
            res.on('end', () => {
              try {
                resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
              } catch (error) {
                reject(new Error(`the webhook's answer is not JSON: ${(error as Error).message}`));
              }
            });
            res.on('error', reject);
          },
        );
        req.on('timeout', () => req.destroy(new Error(`the webhook did not answer within ${timeoutMs} ms`)));
        req.on('error', reject);
        req.end(bytes);
      });
    },
  };
}
