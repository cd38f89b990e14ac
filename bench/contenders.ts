/**
 * The servers a side-by-side measurement compares, each restartable on its own data: capstan on
 * a given etcd or on its embedded SQLite store, and the reference kube-apiserver on the same
 * etcd under its own key prefix, sharing capstan's certificates so one admin client certificate
 * reaches all of them. Every server is pinned to `SERVER_CPU`; the load generator pins itself
 * (and the etcd it starts) to `LOAD_CPU`.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startCapstanProcess, type ServerPki } from './capstan-process';
import type { ClientCredentials, HttpsTarget } from './https-client';
import { median, processCpuMs } from './measure';
import { startReferenceProcess } from './reference-process';
import { scratchDir, type ScratchDir } from './scratch';
import { ETCD_BACKEND, type OpenBackend } from './storage-backends';

export const SERVER_CPU = '0';
export const LOAD_CPU = '1';
// Both servers run every default admission plugin but this one: the reference's would refuse
// every pod without a controller manager creating `default` accounts.
const DISABLED_ADMISSION = ['--disable-admission-plugins', 'ServiceAccount'];
/** The reference's key prefix in the shared etcd; capstan keeps the default, `/registry`. */
export const REFERENCE_ETCD_PREFIX = '/reference-registry';

/** A server under test, restartable on the same data. */
export interface Contender {
  readonly label: string;
  readonly url: () => string;
  readonly pid: () => number;
  readonly credentials: ClientCredentials;
  /** Whether the server reports its event loop's delays (capstan's Node.js runtime metrics). */
  readonly hasEventLoop: boolean;
  /** Stops the server and starts it again on its data; answers the milliseconds from spawn to `/readyz` 200. */
  restart(): Promise<number>;
  /** Stops the server, keeping its data for the next `restart`. */
  halt(): Promise<void>;
  stop(): Promise<void>;
}

/** The servers of a side-by-side run, in column order, the etcd the first two share and the certificates all share. */
export interface Contenders {
  readonly all: readonly [reference: Contender, onEtcd: Contender, onSqlite: Contender];
  readonly etcd: OpenBackend;
  /** capstan on etcd's serving certificate and admin client, which the reference serves with too. */
  readonly pki: ServerPki;
}

/**
 * Runs `measure` with the reference and capstan on one fresh etcd, and capstan on SQLite, this
 * process and etcd pinned to `LOAD_CPU`; stops every server started, and etcd, however it ends.
 */
export async function withContenders<T>(
  binary: string,
  log: (message: string) => void,
  measure: (contenders: Contenders) => Promise<T>,
): Promise<T> {
  // etcd, started below, inherits this process's CPU.
  execFileSync('taskset', ['-a', '-cp', LOAD_CPU, String(process.pid)], { stdio: 'ignore' });
  const etcd = await ETCD_BACKEND.open();
  const endpoint = etcd.address.kind === 'etcd' ? etcd.address.endpoint : '';
  const started: Contender[] = [];
  try {
    log('starting capstan on etcd, capstan on SQLite and the reference');
    const onEtcd = await capstanContender('capstan on etcd', endpoint);
    started.push(onEtcd);
    const reference = await referenceContender(binary, endpoint, onEtcd);
    started.push(reference);
    const onSqlite = await capstanContender('capstan on SQLite', undefined);
    started.push(onSqlite);
    return await measure({ all: [reference, onEtcd, onSqlite], etcd, pki: sharedPki(onEtcd) });
  } finally {
    for (const contender of started) await contender.stop();
    await etcd.close();
  }
}

/** capstan on etcd (`etcdEndpoint`) or on SQLite, with a data dir kept across restarts. */
async function capstanContender(
  label: string,
  etcdEndpoint: string | undefined,
): Promise<Contender & { readonly dataDir: string }> {
  const dataDir: ScratchDir = scratchDir({ prefix: 'capstan-bench-side-', inMemory: false });
  const start = () =>
    startCapstanProcess({ dataDir, keepDataDir: true, etcdEndpoint, cpus: SERVER_CPU, flags: DISABLED_ADMISSION });
  const first = await start();
  const contender = restartable({
    label,
    hasEventLoop: true,
    credentials: first.pki.client,
    first,
    start,
    removeData: () => dataDir.remove(),
  });
  return { ...contender, dataDir: dataDir.path };
}

/** The reference on the same etcd under `REFERENCE_ETCD_PREFIX`, with capstan-on-etcd's certificates. */
async function referenceContender(
  binary: string,
  etcdEndpoint: string,
  capstan: Contender & { readonly dataDir: string },
): Promise<Contender> {
  const start = () =>
    startReferenceProcess(binary, {
      etcdEndpoint,
      etcdPrefix: REFERENCE_ETCD_PREFIX,
      pkiDir: join(capstan.dataDir, 'pki'),
      pki: sharedPki(capstan),
      cpus: SERVER_CPU,
    });
  return restartable({
    label: 'reference',
    hasEventLoop: false,
    credentials: capstan.credentials,
    first: await start(),
    start,
    removeData: async () => undefined,
  });
}

/** capstan's serving certificate and key from its data dir, with its admin client. */
function sharedPki(capstan: Contender & { readonly dataDir: string }): ServerPki {
  const pem = (name: string) => readFileSync(join(capstan.dataDir, 'pki', name), 'utf8');
  return { client: capstan.credentials, servingCertPem: pem('apiserver.crt'), servingKeyPem: pem('apiserver.key') };
}

/** A contender around its running process: restarted on the same data, stopped for good with its data removed. */
function restartable<P extends { readonly url: string; readonly pid: number; stop(): Promise<void> }>(options: {
  label: string;
  hasEventLoop: boolean;
  credentials: ClientCredentials;
  first: P;
  start: () => Promise<P>;
  removeData: () => Promise<void>;
}): Contender {
  let server: P | undefined = options.first;
  const running = (): P => {
    if (server === undefined) throw new Error(`${options.label} is not running`);
    return server;
  };
  return {
    label: options.label,
    hasEventLoop: options.hasEventLoop,
    credentials: options.credentials,
    url: () => running().url,
    pid: () => running().pid,
    halt: async () => {
      await server?.stop();
      server = undefined;
    },
    restart: async () => {
      await server?.stop();
      server = undefined;
      const spawned = performance.now();
      server = await options.start();
      return performance.now() - spawned;
    },
    stop: async () => {
      await server?.stop();
      server = undefined;
      await options.removeData();
    },
  };
}

/**
 * One contender's restarts: spawn to `/readyz` 200 (the old process's stop not counted: the
 * reference takes about a second to exit, capstan a few milliseconds), and the server's CPU
 * time by then, each run's.
 */
export interface RestartTimes {
  readonly wallMs: readonly number[];
  readonly cpuMs: readonly number[];
}

/**
 * Restarts every contender `runs` times, taking turns (reference, then capstan, then the
 * reference again ...), so a change in the machine's load falls on each alike; the medians of
 * two columns measured this way can be compared, figures of different runs cannot. The others
 * are stopped while one starts: a server just ready still works for seconds (its controllers'
 * first lists, the reference's post-start work), on the same core.
 */
export async function timedRestarts(
  contenders: readonly Contender[],
  options: { runs: number; log: (message: string) => void },
): Promise<Map<string, RestartTimes>> {
  const times = new Map(
    contenders.map((contender) => [contender.label, { wallMs: [] as number[], cpuMs: [] as number[] }]),
  );
  for (let run = 1; run <= options.runs; run++) {
    for (const contender of contenders) {
      for (const other of contenders) if (other !== contender) await other.halt();
      const wallMs = await contender.restart();
      const cpuMs = processCpuMs(contender.pid());
      const own = times.get(contender.label)!;
      own.wallMs.push(wallMs);
      own.cpuMs.push(cpuMs);
      options.log(
        `${contender.label}: restart ${run} of ${options.runs} ready in ${Math.round(wallMs)} ms, CPU ${cpuMs} ms`,
      );
    }
  }
  return times;
}

/** The median restart, wall and CPU. */
export function medianRestart(times: RestartTimes): { wallMs: number; cpuMs: number } {
  return { wallMs: median(times.wallMs), cpuMs: median(times.cpuMs) };
}

/** `call` on `target`, failing unless it answers `status`. */
export async function expectStatus(
  target: HttpsTarget,
  call: Parameters<HttpsTarget['request']>[0],
  status: number,
): Promise<void> {
  const answer = await target.request(call);
  if (answer.status !== status)
    throw new Error(
      `${call.method} ${call.path}: ${answer.status} (expected ${status}): ${answer.body.toString('utf8').slice(0, 300)}`,
    );
}
