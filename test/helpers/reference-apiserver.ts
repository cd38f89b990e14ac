/**
 * The reference kube-apiserver 1.34 (built outside the tree by tools/reference/build-kube-apiserver.sh
 * into ~/.cache/kube-ref/bin) as a process on a given etcd, with a shared PKI as
 * deploy/pki/make-certs.sh writes it: it serves with the same certificate as capstan, trusts the
 * same CA and signs service-account tokens with the same key, so one admin kubeconfig works on
 * both and either accepts the other's tokens.
 *
 * Without a `pkiDir` it makes one of its own the same way, kept until it stops.
 *
 *   beforeAll(() => buildReferenceApiserver(BUILD_TIMEOUT_MS), BUILD_TIMEOUT_MS);
 *   const reference = await startReferenceApiserver({ etcdServers, pkiDir });
 *   await reference.kubectl(['get', 'pods', '-A']);
 *   await reference.stop();
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  credentialsOf,
  httpsCall,
  runKubectl,
  type HttpResult,
  type KubeconfigCredentials,
  type KubectlResult,
} from './server';
import { ROOT } from './capstan-process';
import { freePort } from './ports';
import { waitFor } from './wait-for';

export const REFERENCE_APISERVER = join(
  process.env.KUBE_REF_CACHE ?? join(homedir(), '.cache', 'kube-ref'),
  'bin',
  'kube-apiserver',
);
const BUILD_SCRIPT = join(ROOT, 'tools', 'reference', 'build-kube-apiserver.sh');
const MAKE_CERTS = join(ROOT, 'deploy', 'pki', 'make-certs.sh');
const READY_TIMEOUT_MS = 90_000;
const STOP_TIMEOUT_MS = 10_000;

export interface ReferenceApiserver {
  readonly url: string;
  readonly kubeconfig: string;
  readonly credentials: KubeconfigCredentials;
  kubectl(args: readonly string[], options?: { input?: string }): Promise<KubectlResult>;
  request(
    method: string,
    path: string,
    options?: { body?: string | Buffer; headers?: Record<string, string> },
  ): Promise<HttpResult>;
  /** What it wrote to stderr and stdout so far (klog). */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Builds the reference binary when the cache lacks it (about 10 minutes cold), else returns at
 * once. Synchronous: nothing here runs without it. The script builds one at a time, so test
 * workers that call this together wait for one build.
 */
export function buildReferenceApiserver(timeoutMs: number): void {
  execFileSync(BUILD_SCRIPT, { stdio: 'inherit', timeout: timeoutMs });
}

/** The service-account flags of a shared PKI: one issuer and one key, so either server accepts the other's tokens. */
export function serviceAccountKeyFlags(pkiDir: string): string[] {
  return [
    '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
    `--service-account-key-file=${join(pkiDir, 'sa.key')}`,
    `--service-account-signing-key-file=${join(pkiDir, 'sa.key')}`,
  ];
}

export async function startReferenceApiserver(options: {
  readonly etcdServers: readonly string[];
  readonly pkiDir?: string;
  readonly flags?: readonly string[];
  /** The port to serve on (a replica keeps its own across restarts); absent: a free one. */
  readonly port?: number;
}): Promise<ReferenceApiserver> {
  if (!existsSync(REFERENCE_APISERVER))
    throw new Error(`${REFERENCE_APISERVER} is missing: build it with tools/reference/build-kube-apiserver.sh`);
  const dir = mkdtempSync(join(tmpdir(), 'kube-ref-'));
  const pkiDir = options.pkiDir ?? join(dir, 'pki');
  if (options.pkiDir === undefined) execFileSync('sh', [MAKE_CERTS, pkiDir], { stdio: 'ignore' });
  const port = options.port ?? (await freePort());
  const url = `https://127.0.0.1:${port}`;
  const child = spawn(
    REFERENCE_APISERVER,
    [
      `--etcd-servers=${options.etcdServers.join(',')}`,
      `--secure-port=${port}`,
      '--bind-address=127.0.0.1',
      '--advertise-address=127.0.0.1',
      `--cert-dir=${dir}`,
      `--tls-cert-file=${join(pkiDir, 'serving.crt')}`,
      `--tls-private-key-file=${join(pkiDir, 'serving.key')}`,
      `--client-ca-file=${join(pkiDir, 'ca.crt')}`,
      ...serviceAccountKeyFlags(pkiDir),
      // Its flag is a list that adds up: a mode given by the caller replaces this one.
      ...((options.flags ?? []).some((flag) => flag.startsWith('--authorization-mode'))
        ? []
        : ['--authorization-mode=RBAC']),
      ...(options.flags ?? []),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const kubeconfig = join(dir, 'admin.kubeconfig');
  const b64 = (file: string) => readFileSync(join(pkiDir, file)).toString('base64');
  writeFileSync(
    kubeconfig,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'reference', cluster: { server: url, 'certificate-authority-data': b64('ca.crt') } }],
      users: [
        { name: 'admin', user: { 'client-certificate-data': b64('admin.crt'), 'client-key-data': b64('admin.key') } },
      ],
      contexts: [{ name: 'admin', context: { cluster: 'reference', user: 'admin' } }],
      'current-context': 'admin',
    }),
  );
  const credentials = credentialsOf(kubeconfig);
  const request: ReferenceApiserver['request'] = (method, path, requestOptions = {}) =>
    httpsCall(new URL(path, url), credentials, method, requestOptions);
  const stop = async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitFor(
      'the reference kube-apiserver to be ready',
      async () => {
        if (child.exitCode !== null) throw new Error(`the reference kube-apiserver exited:\n${output.slice(-4000)}`);
        const ready = await request('GET', '/readyz').catch(() => undefined);
        return ready?.status === 200 ? true : undefined;
      },
      READY_TIMEOUT_MS,
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    url,
    kubeconfig,
    credentials,
    request,
    kubectl: (args, kubectlOptions) => runKubectl(kubeconfig, args, kubectlOptions),
    output: () => output,
    stop,
  };
}
