/**
 * The server as users start it (bin/capstan, which runs the one-file bundle that `npm run bench`
 * builds, with its allocator setting) as a real process for a benchmark: its own data dir
 * (embedded SQLite unless an etcd is given), a free loopback port, and the admin client
 * certificate it generated. Stopped with SIGTERM (so a
 * `--cpu-prof` run writes its profile), or killed with the benchmark process.
 *
 * Why not test/helpers/capstan-process.ts: a benchmark needs the PKI files (for the ceiling
 * server), extra Node flags for profiling, and cleanup when the benchmark is interrupted.
 */
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { httpsTarget, type ClientCredentials } from './https-client';
import { sleep } from './measure';
import { killOnExit, scratchDir, type ScratchDir } from './scratch';

const EXECUTABLE = join(__dirname, '..', '..', 'bin', 'capstan');
// A start with 100,000 objects on a machine shared with other work can take 20 s and more.
const START_TIMEOUT_MS = 60_000;
const EXIT_TIMEOUT_MS = 15_000;
const OUTPUT_TAIL_CHARS = 4_000;

/** The TLS material of a server's data dir, for clients and for a server answering alike. */
export interface ServerPki {
  readonly client: ClientCredentials;
  readonly servingCertPem: string;
  readonly servingKeyPem: string;
}

export interface CapstanProcess {
  readonly url: string;
  readonly pki: ServerPki;
  readonly pid: number;
  /** From spawning to the server's "listening" line: when it answers HTTP (health checks) while it still loads its data. */
  readonly listeningMs: number;
  /** The data dir, whose `pki/` other servers of a side-by-side run share. */
  readonly dataDir: string;
  /** SIGTERM, wait for the exit (SIGKILL after a while), remove the data dir. */
  stop(): Promise<void>;
}

export interface CapstanProcessOptions {
  /** An etcd client URL; absent: the embedded SQLite store in the data dir. */
  readonly etcdEndpoint?: string;
  /** Flags for Node itself (e.g. `--cpu-prof`), given through NODE_OPTIONS. */
  readonly nodeArgs?: readonly string[];
  /** The working directory, where `--cpu-prof` writes its profile. */
  readonly cwd?: string;
  /** Server flags besides the data dir, port and store ones. */
  readonly flags?: readonly string[];
  /** A data dir the benchmark filled beforehand (removed on stop like a fresh one); absent: a fresh one. */
  readonly dataDir?: ScratchDir;
  /** Leave the data dir on stop, for a later start on the same data (the caller removes it). */
  readonly keepDataDir?: boolean;
  /** CPUs to pin the process to (`taskset -c` list, e.g. `0`); absent: wherever the kernel runs it. */
  readonly cpus?: string;
}

export async function startCapstanProcess(options: CapstanProcessOptions = {}): Promise<CapstanProcess> {
  const dataDir = options.dataDir ?? scratchDir({ prefix: 'capstan-bench-server-', inMemory: false });
  const args = ['--data-dir', dataDir.path, '--secure-port', '0', '--shutdown-delay-duration', '0s'];
  if (options.etcdEndpoint) args.push('--etcd-servers', options.etcdEndpoint);
  args.push(...(options.flags ?? []));
  const command = [EXECUTABLE, ...args];
  // taskset and bin/capstan exec the command in place, so the pid is the server's.
  const pinned = options.cpus === undefined ? command : ['taskset', '-c', options.cpus, ...command];
  const spawnedAt = performance.now();
  const child = spawn(pinned[0], pinned.slice(1), {
    stdio: ['ignore', 'pipe', 'pipe'],
    cwd: options.cwd,
    env: options.nodeArgs === undefined ? process.env : { ...process.env, NODE_OPTIONS: options.nodeArgs.join(' ') },
  });
  killOnExit(child);
  let output = '';
  const onOutput = (chunk: Buffer) => (output = (output + chunk.toString('utf8')).slice(-OUTPUT_TAIL_CHARS));
  child.stdout.on('data', onOutput);
  child.stderr.on('data', onOutput);
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  let running = true;
  void exited.then(() => (running = false));

  const stop = async (): Promise<void> => {
    if (running) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), EXIT_TIMEOUT_MS);
      await exited;
      clearTimeout(killer);
    }
    if (!options.keepDataDir) await dataDir.remove();
  };

  try {
    let listeningMs = Number.NaN;
    const url = await startedUrl({
      output: () => output,
      running: () => running,
      listening: () => (listeningMs = performance.now() - spawnedAt),
    });
    const pkiDir = join(dataDir.path, 'pki');
    const pem = (name: string) => readFileSync(join(pkiDir, name));
    const pki: ServerPki = {
      client: { ca: pem('ca.crt'), cert: pem('admin.crt'), key: pem('admin.key') },
      servingCertPem: pem('apiserver.crt').toString('utf8'),
      servingKeyPem: pem('apiserver.key').toString('utf8'),
    };
    await untilReady(url, pki.client);
    return { url, pki, pid: child.pid ?? 0, listeningMs, dataDir: dataDir.path, stop };
  } catch (error) {
    await stop();
    throw new Error(`capstan did not start: ${(error as Error).message}\n${output}`);
  }
}

/** The URL from the "listening" line (`listening` called once it appears), once the server also said it started. */
async function startedUrl(server: { output(): string; running(): boolean; listening(): void }): Promise<string> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  let heard = false;
  for (;;) {
    const output = server.output();
    const listening = /capstan listening on (\S+)/.exec(output);
    if (listening && !heard) {
      heard = true;
      server.listening();
    }
    if (listening && /started in \d+ ms/.test(output)) return listening[1];
    if (!server.running()) throw new Error('the process exited');
    if (Date.now() > deadline) throw new Error(`no start within ${START_TIMEOUT_MS} ms`);
    await sleep(50);
  }
}

/** Polls `/readyz` every 50 ms until it answers 200. */
export async function untilReady(url: string, credentials: ClientCredentials): Promise<void> {
  const target = httpsTarget({ url, credentials, maxSockets: 1 });
  try {
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      const ready = await target.request({ method: 'GET', path: '/readyz' }).catch(() => undefined);
      if (ready?.status === 200) return;
      if (Date.now() > deadline)
        throw new Error(`not ready within ${START_TIMEOUT_MS} ms: ${ready?.body.toString('utf8') ?? ''}`);
      await sleep(50);
    }
  } finally {
    target.close();
  }
}
