/**
 * A whole capstan server for client tests: the compiled server as a real process on a free
 * loopback port, with its own data dir (embedded SQLite) or a given etcd, its admin
 * kubeconfig, the real kubectl 1.33, and an HTTPS client holding the admin certificate.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { ensureBuilt, startCapstan, waitForExit, type RunningCapstan } from './capstan-process';
import { retryUntil } from './wait-for';

export const KUBECTL = '/usr/lib/google-cloud-sdk/bin/kubectl.1.33';
const READY_TIMEOUT_MS = 15_000;

export interface KubectlResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface HttpResult {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
  /** The body as it came (a protobuf answer is not text). */
  readonly bytes: Buffer;
  json<T = unknown>(): T;
}

export interface TestServer {
  readonly url: string;
  readonly dataDir: string;
  readonly kubeconfig: string;
  /** The admin's client certificate and the CA that verifies the server, for raw HTTPS clients. */
  readonly credentials: KubeconfigCredentials;
  /** Runs kubectl 1.33 with this server's admin kubeconfig; never throws on a non-zero exit. */
  kubectl(args: readonly string[], options?: { input?: string; env?: NodeJS.ProcessEnv }): Promise<KubectlResult>;
  /** An HTTPS request as the admin (client certificate). */
  request(
    method: string,
    path: string,
    options?: { body?: string | Buffer; headers?: Record<string, string> },
  ): Promise<HttpResult>;
  stop(): Promise<void>;
  /** Sends the signal (default SIGKILL: no graceful shutdown), waits for the exit, removes the data dir. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** What the process printed so far. */
  output(): string;
}

export interface StartServerOptions {
  /** etcd endpoints; absent: the embedded SQLite store. */
  readonly etcdServers?: readonly string[];
  /** A fresh key prefix per server keeps tests sharing one etcd apart. */
  readonly etcdPrefix?: string;
  readonly flags?: readonly string[];
  /**
   * A certificate directory as `deploy/pki/make-certs.sh` writes it (ca.crt, serving.crt/key,
   * admin.crt/key), shared by replicas: the server serves with it, and the test's kubeconfig
   * and HTTPS client use its admin certificate. Absent: the server makes its own PKI.
   */
  readonly pkiDir?: string;
  /**
   * Runs the server inside a network namespace (test/helpers/network-namespace.ts): clients of
   * the returned server, kubectl among them, reach it through a port outside.
   */
  readonly network?: {
    inside(argv: readonly string[]): [string, string[]];
    reachInside(port: number): Promise<number>;
  };
}

export interface KubeconfigCredentials {
  readonly ca: Buffer;
  readonly cert: Buffer;
  readonly key: Buffer;
}

export function credentialsOf(kubeconfigPath: string): KubeconfigCredentials {
  const config = parseYaml(readFileSync(kubeconfigPath, 'utf8')) as {
    clusters: { cluster: { 'certificate-authority-data': string } }[];
    users: { user: { 'client-certificate-data': string; 'client-key-data': string } }[];
  };
  const decode = (data: string) => Buffer.from(data, 'base64');
  return {
    ca: decode(config.clusters[0].cluster['certificate-authority-data']),
    cert: decode(config.users[0].user['client-certificate-data']),
    key: decode(config.users[0].user['client-key-data']),
  };
}

/** An HTTPS request trusting `credentials.ca`, with the client certificate when it has one. */
export function httpsCall(
  url: URL,
  credentials: Pick<KubeconfigCredentials, 'ca'> & Partial<KubeconfigCredentials>,
  method: string,
  options: { body?: string | Buffer; headers?: Record<string, string> },
): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    // A body goes with its length (Node would otherwise send DELETE bodies neither sized nor chunked).
    const headers =
      options.body === undefined
        ? options.headers
        : { 'content-length': String(Buffer.byteLength(options.body)), ...options.headers };
    const req = httpsRequest(
      url,
      { method, ca: credentials.ca, cert: credentials.cert, key: credentials.key, headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const bytes = Buffer.concat(chunks);
          const body = bytes.toString('utf8');
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body,
            bytes,
            json: <T>() => JSON.parse(body) as T,
          });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** A kubeconfig for the admin of a shared PKI, pointing at this server (its certificate names 127.0.0.1). */
function writePkiKubeconfig(options: {
  readonly pkiDir: string;
  readonly dataDir: string;
  readonly url: string;
}): string {
  const b64 = (file: string) => readFileSync(join(options.pkiDir, file)).toString('base64');
  const path = join(options.dataDir, 'admin.kubeconfig');
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'capstan', cluster: { server: options.url, 'certificate-authority-data': b64('ca.crt') } }],
    users: [
      { name: 'admin', user: { 'client-certificate-data': b64('admin.crt'), 'client-key-data': b64('admin.key') } },
    ],
    contexts: [{ name: 'admin', context: { cluster: 'capstan', user: 'admin' } }],
    'current-context': 'admin',
  };
  writeFileSync(path, JSON.stringify(config));
  return path;
}

/** A request as the admin with a JSON body (when given), and its status and JSON answer. */
export async function requestJson(
  server: Pick<TestServer, 'request'>,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const answer = await server.request(
    method,
    path,
    body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } },
  );
  return { status: answer.status, body: answer.json() };
}

export async function startServer(options: StartServerOptions = {}): Promise<TestServer> {
  ensureBuilt();
  const dataDir = mkdtempSync(join(tmpdir(), 'capstan-test-'));
  const args = [
    '--data-dir',
    dataDir,
    '--secure-port',
    '0',
    '--shutdown-delay-duration',
    '0s',
    ...(options.flags ?? []),
  ];
  if (options.etcdServers) args.push('--etcd-servers', options.etcdServers.join(','));
  if (options.etcdPrefix) args.push('--etcd-prefix', options.etcdPrefix);
  if (options.pkiDir) {
    const pki = options.pkiDir;
    args.push(
      `--tls-cert-file=${join(pki, 'serving.crt')}`,
      `--tls-private-key-file=${join(pki, 'serving.key')}`,
      `--client-ca-file=${join(pki, 'ca.crt')}`,
    );
  }
  let running: RunningCapstan;
  try {
    running = await startCapstan(args, [], options.network?.inside);
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const url = options.network
    ? `https://127.0.0.1:${await options.network.reachInside(Number(new URL(running.url).port))}`
    : running.url;
  let kubeconfig = options.pkiDir ? writePkiKubeconfig({ pkiDir: options.pkiDir, dataDir, url }) : running.kubeconfig;
  if (url !== running.url && !options.pkiDir) {
    kubeconfig = join(dataDir, 'outside.kubeconfig');
    writeFileSync(kubeconfig, readFileSync(running.kubeconfig, 'utf8').split(running.url).join(url));
  }
  const credentials = credentialsOf(kubeconfig);
  const request: TestServer['request'] = (method, path, requestOptions = {}) =>
    httpsCall(new URL(path, url), credentials, method, requestOptions);

  const ready = await retryUntil(
    () => request('GET', '/readyz').catch(() => undefined),
    (answer) => answer?.status === 200,
    READY_TIMEOUT_MS,
    50,
  );
  if (ready?.status !== 200) {
    running.process.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
    throw new Error(`capstan did not become ready:\n${ready?.body ?? ''}\n${running.output()}`);
  }

  return {
    url,
    dataDir,
    kubeconfig,
    credentials,
    request,
    output: () => running.output(),
    kubectl: (kubectlArgs, kubectlOptions) => runKubectl(kubeconfig, kubectlArgs, kubectlOptions),
    async stop() {
      running.process.kill('SIGTERM');
      await waitForExit(running);
      rmSync(dataDir, { recursive: true, force: true });
    },
    async kill(signal = 'SIGKILL') {
      running.process.kill(signal);
      await waitForExit(running);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * kubectl's arguments for `kubeconfig`, with its discovery cache beside the kubeconfig: the
 * shared ~/.kube/cache is keyed by host and port, and a test server that reuses an earlier
 * one's port would otherwise be read through that server's cached discovery (kubectl then skips
 * the requests a test may count on, or maps a resource to a group that server had).
 */
export function kubectlConnection(kubeconfig: string): string[] {
  return ['--kubeconfig', kubeconfig, '--cache-dir', `${kubeconfig}.cache`];
}

/** Runs kubectl 1.33 with `kubeconfig`; never throws on a non-zero exit. */
export function runKubectl(
  kubeconfig: string,
  args: readonly string[],
  options: { input?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<KubectlResult> {
  return new Promise((resolve) => {
    const child = execFile(
      KUBECTL,
      [...kubectlConnection(kubeconfig), ...args],
      { env: { ...process.env, ...options.env }, timeout: 30_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}
