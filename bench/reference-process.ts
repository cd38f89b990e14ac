/**
 * The reference kube-apiserver as a benchmark process, beside capstan: the binary that
 * tools/reference/build-kube-apiserver.sh builds from its Go module (into a cache outside the
 * tree, about 10 minutes cold, once), on a given etcd under its own key prefix, serving with a
 * capstan data dir's certificates and trusting its CA, so the same admin client certificate
 * reaches both servers.
 *
 * Its ServiceAccount admission plugin is off: without a controller manager no `default`
 * account is ever created, and it would refuse every pod.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { untilReady, type ServerPki } from './capstan-process';
import { killOnExit } from './scratch';
import { freePort } from '../test/helpers/ports';

const BUILD_SCRIPT = join(__dirname, '..', '..', 'tools', 'reference', 'build-kube-apiserver.sh');
const EXIT_TIMEOUT_MS = 15_000;
const OUTPUT_TAIL_CHARS = 4_000;

export interface ReferenceProcess {
  readonly url: string;
  readonly pid: number;
  stop(): Promise<void>;
}

export interface ReferenceOptions {
  readonly etcdEndpoint: string;
  readonly etcdPrefix: string;
  /** A capstan data dir's `pki/` (ca.crt, apiserver.crt/.key, sa.key). */
  readonly pkiDir: string;
  readonly pki: ServerPki;
  /** `taskset -c` list. */
  readonly cpus?: string;
}

/** The reference binary, built first when the cache lacks it. */
export function referenceBinary(log: (message: string) => void): string {
  const cache = process.env.KUBE_REF_CACHE ?? join(homedir(), '.cache', 'kube-ref');
  const binary = join(cache, 'bin', 'kube-apiserver');
  if (!existsSync(binary)) {
    log(`building the reference kube-apiserver into ${cache} (about 10 minutes, once)`);
    execFileSync('bash', [BUILD_SCRIPT], { stdio: ['ignore', 'ignore', 'inherit'] });
  }
  return binary;
}

/** `kube-apiserver --version`, e.g. `Kubernetes v1.34.4`. */
export function referenceVersion(binary: string): string {
  return execFileSync(binary, ['--version'], { encoding: 'utf8' }).trim();
}

export async function startReferenceProcess(binary: string, options: ReferenceOptions): Promise<ReferenceProcess> {
  const port = await freePort();
  const pki = (name: string) => join(options.pkiDir, name);
  const command = [
    binary,
    `--etcd-servers=${options.etcdEndpoint}`,
    `--etcd-prefix=${options.etcdPrefix}`,
    `--secure-port=${port}`,
    '--bind-address=127.0.0.1',
    '--advertise-address=127.0.0.1',
    `--tls-cert-file=${pki('apiserver.crt')}`,
    `--tls-private-key-file=${pki('apiserver.key')}`,
    `--client-ca-file=${pki('ca.crt')}`,
    '--service-account-issuer=https://kubernetes.default.svc',
    `--service-account-key-file=${pki('sa.key')}`,
    `--service-account-signing-key-file=${pki('sa.key')}`,
    '--authorization-mode=RBAC',
    '--service-cluster-ip-range=10.96.0.0/12',
    '--disable-admission-plugins=ServiceAccount',
  ];
  const pinned = options.cpus === undefined ? command : ['taskset', '-c', options.cpus, ...command];
  const child = spawn(pinned[0], pinned.slice(1), { stdio: ['ignore', 'ignore', 'pipe'] });
  killOnExit(child);
  let output = '';
  child.stderr.on('data', (chunk: Buffer) => (output = (output + chunk.toString('utf8')).slice(-OUTPUT_TAIL_CHARS)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let running = true;
  void exited.then(() => (running = false));
  const stop = async (): Promise<void> => {
    if (!running) return;
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), EXIT_TIMEOUT_MS);
    await exited;
    clearTimeout(killer);
  };
  const url = `https://127.0.0.1:${port}`;
  try {
    await Promise.race([
      untilReady(url, options.pki.client),
      exited.then(() => Promise.reject(new Error('the process exited'))),
    ]);
    return { url, pid: child.pid ?? 0, stop };
  } catch (error) {
    await stop();
    throw new Error(`the reference kube-apiserver did not start: ${(error as Error).message}\n${output}`);
  }
}
