/**
 * The kubeconfig-format file that says how to reach a webhook: `clusters` is the remote
 * service (an https `server` without query, and the CA that verifies it), `users` the API
 * server's own credentials (client certificate and key, or a bearer token). The current
 * context picks the pair; without one, the first of each. Relative file paths are relative to
 * the file, as in client-go.
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { parse as parseYaml } from 'yaml';

export interface WebhookClientConfig {
  readonly url: URL;
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: string;
  readonly token?: string;
  readonly insecureSkipTLSVerify: boolean;
}

interface Named<T> {
  name?: string;
  cluster?: T;
  user?: T;
  context?: T;
}

type Fields = Record<string, unknown>;

export function readWebhookClientConfig(path: string): WebhookClientConfig {
  const config = parseYaml(readFileSync(path, 'utf8')) as Fields | null;
  if (config === null || typeof config !== 'object') throw new Error(`${path}: not a kubeconfig`);
  const clusters = (config.clusters as Named<Fields>[] | undefined) ?? [];
  const users = (config.users as Named<Fields>[] | undefined) ?? [];
  const contexts = (config.contexts as Named<Fields>[] | undefined) ?? [];
  const context = contexts.find((entry) => entry.name === config['current-context'])?.context;
  const cluster = (context ? clusters.find((entry) => entry.name === context.cluster) : clusters[0])?.cluster;
  const user = (context ? users.find((entry) => entry.name === context.user) : users[0])?.user ?? {};
  if (cluster === undefined || typeof cluster.server !== 'string') throw new Error(`${path}: no cluster with a server`);
  const url = new URL(cluster.server);
  if (url.protocol !== 'https:') throw new Error(`${path}: the webhook server must be https, got ${JSON.stringify(cluster.server)}`);
  if (url.search !== '') throw new Error(`${path}: the webhook server URL must not carry query parameters`);
  const base = dirname(path);
  const data = (fields: Fields, inline: string, file: string): string | undefined => {
    if (typeof fields[inline] === 'string') return Buffer.from(fields[inline], 'base64').toString('utf8');
    if (typeof fields[file] === 'string') return readFileSync(isAbsolute(fields[file]) ? fields[file] : join(base, fields[file]), 'utf8');
    return undefined;
  };
  return {
    url,
    ca: data(cluster, 'certificate-authority-data', 'certificate-authority'),
    cert: data(user, 'client-certificate-data', 'client-certificate'),
    key: data(user, 'client-key-data', 'client-key'),
    token: typeof user.token === 'string' ? user.token : undefined,
    insecureSkipTLSVerify: cluster['insecure-skip-tls-verify'] === true,
  };
}
