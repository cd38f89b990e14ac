/**
 * A kube-apiserver binary (the reference's, or capstan as `bin/kube-apiserver`) started the way
 * controller-runtime v0.22's envtest starts one (/work/shared/notes/outside-suites.md): a fresh
 * etcd first, `<binary> --help` to learn whether `--insecure-port` exists, then the binary with
 * envtest's flags and a `--cert-dir` holding an ECDSA P-256 serving pair from envtest's CA.
 * Ready as envtest counts it: `GET /healthz` answers 200 to a client without a certificate,
 * polled every 100 ms from the spawn on, then `GET /api/v1/namespaces/default` succeeds for its
 * admin (`system:masters`), polled every 50 ms.
 *
 * Each phase is timed from the spawn, so a start's figures say what a suite waits for.
 */
import { execFile, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { issueCa, issueLeaf, type IssuedCertificate } from '../server/pki/certificates';
import { envtestFlags } from '../test/helpers/envtest-flags';
import { startEtcd, type EtcdServer } from '../test/helpers/etcd';
import { freePort } from '../test/helpers/ports';
import { httpsTarget, type ClientCredentials, type HttpsTarget } from './https-client';
import { processCpuMs, sleep } from './measure';
import { killOnExit, scratchDir, type ScratchDir } from './scratch';

// envtest's intervals and limits (process.go, apiserver.go, server.go).
const HEALTHZ_POLL_MS = 100;
const START_TIMEOUT_MS = 20_000;
const DEFAULT_NAMESPACE_POLL_MS = 50;
const DEFAULT_NAMESPACE_TIMEOUT_MS = 5_000;
const STOP_TIMEOUT_MS = 20_000;
const OUTPUT_TAIL_CHARS = 4_000;
const VALID_DAYS = 7;

/** What envtest writes before a start, and the admin it talks as; made once per benchmark run. */
export interface EnvtestPki {
  /** Signs the serving pair and the client certificates: `--client-ca-file`, and what clients trust. */
  readonly ca: IssuedCertificate;
  /** `apiserver.crt`/`apiserver.key` in `--cert-dir`: SANs `localhost` and `127.0.0.1`. */
  readonly serving: IssuedCertificate;
  /** `sa-signer.crt`/`sa-signer.key`: the service-account verifying certificate and signing key. */
  readonly serviceAccount: IssuedCertificate;
  /** `CN=admin, O=system:masters`. */
  readonly admin: ClientCredentials;
}

export async function envtestPki(): Promise<EnvtestPki> {
  const ca = await issueCa({ commonName: 'envtest-environment', validDays: VALID_DAYS });
  const serving = await issueLeaf({
    ca,
    subject: 'CN=localhost, O=envtest',
    usage: 'server',
    dnsNames: ['localhost'],
    ipAddresses: ['127.0.0.1'],
    validDays: VALID_DAYS,
  });
  const serviceAccount = await issueCa({ commonName: 'envtest-service-accounts', validDays: VALID_DAYS });
  const admin = await issueLeaf({ ca, subject: 'CN=admin, O=system:masters', usage: 'client', validDays: VALID_DAYS });
  return {
    ca,
    serving,
    serviceAccount,
    admin: { ca: Buffer.from(ca.certPem), cert: Buffer.from(admin.certPem), key: Buffer.from(admin.keyPem) },
  };
}

export interface EnvtestServer {
  readonly url: string;
  readonly pid: number;
  /** `<binary> --help`, which envtest runs before every start. */
  readonly helpMs: number;
  /** Spawn to the first `/healthz` 200 (100 ms polls, as envtest). */
  readonly healthyMs: number;
  /** Spawn to the first `GET /api/v1/namespaces/default` 200 after that: when envtest's Start returns. */
  readonly readyMs: number;
  /** The server's CPU time by then: steadier than wall time on a shared machine. */
  readonly readyCpuMs: number;
  /** The admin's keep-alive client, closed by `stop`. */
  readonly admin: HttpsTarget;
  /** SIGTERM and wait for the exit, as envtest's Stop; then etcd and the directories go. Resolves to the ms the server took to exit. */
  stop(): Promise<number>;
}

/** Starts etcd and then `binary` as envtest does; resolves once envtest would count it started. */
export async function startAsEnvtest(binary: string, pki: EnvtestPki): Promise<EnvtestServer> {
  const etcd = await startEtcd();
  const certDir = scratchDir({ prefix: 'capstan-bench-envtest-certs-', inMemory: false });
  // envtest's working directory is the test's; a fresh one keeps a server's files from leaking into the next start.
  const workDir = scratchDir({ prefix: 'capstan-bench-envtest-cwd-', inMemory: false });
  const cleanUp = async () => {
    await etcd.stop();
    await certDir.remove();
    await workDir.remove();
  };
  try {
    writeCertDir(certDir, pki);
    const helpBegan = performance.now();
    const help = await promisify(execFile)(binary, ['--help'], { cwd: workDir.path, maxBuffer: 16 * 1024 * 1024 });
    const helpMs = performance.now() - helpBegan;
    const port = await freePort();
    const args = flagsOf({
      etcd,
      certDir: certDir.path,
      port,
      insecurePortKnown: /^\s*--insecure-port\b/m.test(help.stdout + help.stderr),
    });
    return await spawnUntilReady({ binary, args, cwd: workDir.path, port, pki, helpMs, cleanUp });
  } catch (error) {
    await cleanUp();
    throw error;
  }
}

function writeCertDir(certDir: ScratchDir, pki: EnvtestPki): void {
  const write = (name: string, pem: string) => writeFileSync(join(certDir.path, name), pem, { mode: 0o640 });
  write('apiserver.crt', pki.serving.certPem);
  write('apiserver.key', pki.serving.keyPem);
  write('sa-signer.crt', pki.serviceAccount.certPem);
  write('sa-signer.key', pki.serviceAccount.keyPem);
  write('client-cert-auth-ca.crt', pki.ca.certPem);
}

/** envtest's defaults for a secure-only API server (apiserver.go `defaultArgs`, auth.go). */
function flagsOf(options: { etcd: EtcdServer; certDir: string; port: number; insecurePortKnown: boolean }): string[] {
  const { certDir } = options;
  return [
    ...envtestFlags({ etcdServer: options.etcd.endpoints[0], certDir, port: options.port }),
    `--service-account-key-file=${join(certDir, 'sa-signer.crt')}`,
    `--service-account-signing-key-file=${join(certDir, 'sa-signer.key')}`,
    `--client-ca-file=${join(certDir, 'client-cert-auth-ca.crt')}`,
    ...(options.insecurePortKnown ? ['--insecure-port=0'] : []),
  ];
}

async function spawnUntilReady(options: {
  binary: string;
  args: readonly string[];
  cwd: string;
  port: number;
  pki: EnvtestPki;
  helpMs: number;
  cleanUp: () => Promise<void>;
}): Promise<EnvtestServer> {
  const url = `https://127.0.0.1:${options.port}`;
  const anonymous = httpsTarget({ url, credentials: { ca: options.pki.admin.ca }, maxSockets: 1 });
  const admin = httpsTarget({ url, credentials: options.pki.admin, maxSockets: 4 });
  const began = performance.now();
  const child = spawn(options.binary, options.args, { cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  killOnExit(child);
  let output = '';
  const onOutput = (chunk: Buffer) => (output = (output + chunk.toString('utf8')).slice(-OUTPUT_TAIL_CHARS));
  child.stdout.on('data', onOutput);
  child.stderr.on('data', onOutput);
  let running = true;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  void exited.then(() => (running = false));
  const stop = async (): Promise<number> => {
    anonymous.close();
    admin.close();
    const stopping = performance.now();
    if (running) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(killer);
    }
    const stopMs = performance.now() - stopping;
    await options.cleanUp();
    return stopMs;
  };
  try {
    const healthyMs =
      (await pollUntil200({
        target: anonymous,
        path: '/healthz',
        intervalMs: HEALTHZ_POLL_MS,
        deadlineMs: began + START_TIMEOUT_MS,
        running: () => running,
      })) - began;
    const readyMs =
      (await pollUntil200({
        target: admin,
        path: '/api/v1/namespaces/default',
        intervalMs: DEFAULT_NAMESPACE_POLL_MS,
        deadlineMs: performance.now() + DEFAULT_NAMESPACE_TIMEOUT_MS,
        running: () => running,
      })) - began;
    const readyCpuMs = processCpuMs(child.pid ?? 0);
    anonymous.close();
    return { url, pid: child.pid ?? 0, helpMs: options.helpMs, healthyMs, readyMs, readyCpuMs, admin, stop };
  } catch (error) {
    await stop();
    throw new Error(`${options.binary} did not start as envtest starts it: ${(error as Error).message}\n${output}`);
  }
}

/** Asks at once, then every `intervalMs` after each answer or refusal; resolves to when the 200 came (performance.now()). */
async function pollUntil200(options: {
  target: HttpsTarget;
  path: string;
  intervalMs: number;
  deadlineMs: number;
  running: () => boolean;
}): Promise<number> {
  let last = 'no answer';
  for (;;) {
    const answer = await options.target.request({ method: 'GET', path: options.path }).catch((error: Error) => error);
    if (!(answer instanceof Error) && answer.status === 200) return performance.now();
    last = answer instanceof Error ? answer.message : `${answer.status} ${answer.body.toString('utf8').slice(0, 200)}`;
    if (!options.running()) throw new Error(`the process exited; last GET ${options.path}: ${last}`);
    if (performance.now() > options.deadlineMs) throw new Error(`GET ${options.path} not 200 in time; last: ${last}`);
    await sleep(options.intervalMs);
  }
}
