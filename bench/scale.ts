/**
 * The scale run: capstan as a deployment runs it, next to the reference kube-apiserver run the
 * same way. A three-member etcd; three capstan replicas behind their haproxy, and three
 * reference replicas (v1.34, see reference-process.ts) behind theirs on the same etcd under
 * another key prefix, every replica pinned to CPU 0 and the load generator, etcd and the
 * balancers (this process and its children) to CPU 1, as in side-by-side.ts. Both systems run
 * all along; each is measured in turn, the reference first, while the other's replicas are
 * stopped (SIGSTOP): idle, they would still share the measured system's core, and capstan's more
 * than idle, since a replica's store feed watches all of etcd and so reads every event of the
 * reference's writes (about 50 s of CPU 0 during the reference's churn, 2026-12-01). They
 * continue after, and get time to catch up before their own turn.
 *
 * On each system: the pods and ConfigMaps stored (spread over the namespaces), then the churn of
 * churn.ts: watchers on every namespace's pods and ConfigMaps through the balancer (so spread
 * over the replicas), and writes at a fixed rate from several clients. Reported per system: the
 * writes acknowledged per second, write latency percentiles, watch delivery latency (from sending
 * the write to a watcher reading its event), errors, each replica's CPU time during the churn and
 * its peak and final resident memory, and etcd's database size.
 *
 * Both servers run without the ServiceAccount admission plugin (the reference refuses every pod
 * without a controller manager making `default` accounts), and capstan without its built-in
 * controllers, since the reference runs none: both serve the API and nothing else.
 *
 * Not in CI: it needs the reference binary and a quiet machine, and at its default sizes it
 * keeps both cores busy for about twenty minutes. `npm run bench -- scale`, or smaller:
 * `npm run bench -- scale --pods 2000 --configmaps 200 --watchers 100 --duration 30`.
 */
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import type { Benchmark, BenchmarkContext, ComparisonRow } from './benchmark';
import { runChurn, type ChurnResult, type StoredObject } from './churn';
import { benchConfigMapRequest } from './configmap';
import { createNamespace, httpsTarget, type HttpsCall, type HttpsTarget } from './https-client';
import { measureThroughput, peakResidentMiB, percentile, processCpuMs, residentMemory, sleep } from './measure';
import { benchPodRequest } from './pod';
import { BALANCER_RISE_MS, startCapstanSystem, startReferenceSystem, type ReplicatedSystem } from './replicated-system';
import { referenceBinary, referenceVersion } from './reference-process';
import { histogramQuantileMs, histogramSince, readRequestDurations, type Histogram } from './request-durations';
import { EtcdClient } from '../storage/etcd/client/client';
// The tests' etcd launcher (compiled into dist/ with the rest): one way to run an etcd cluster here.
import { startEtcdCluster } from '../test/helpers/etcd';

const SERVER_CPU = '0';
const LOAD_CPU = '1';
const ETCD_MEMBERS = 3;
const REFERENCE_PREFIX = '/reference-registry';
const SERVER_FLAGS = ['--disable-admission-plugins', 'ServiceAccount'];
const CAPSTAN_FLAGS = [...SERVER_FLAGS, '--controllers='];
const FILL_CONCURRENCY = 32;
const FILL_ATTEMPTS = 3;
/** How long one request of the fill, or one read of a replica's metrics, may go unanswered. */
const REQUEST_TIMEOUT_MS = 60_000;
const FILL_RETRY_MS = 1_000;
/** Time to store the objects at most: well above the slowest fill seen (about 300 objects a second). */
const FILL_MAX_MS = 30 * 60_000;
/** Between the fill and the churn: the replicas' caches catch up with the last writes. */
const SETTLE_MS = 3_000;
/** A system continued after the other's turn is caught up once its replicas use under a tenth of a core. */
const CAUGHT_UP_CPU_MS_PER_SECOND = 100;
const CATCH_UP_MAX_MS = 120_000;
const MIB = 1024 * 1024;
/** The churn's writes as the servers' request metrics label them. */
const WRITE_VERBS = { create: 'POST', update: 'PATCH', delete: 'DELETE' } as const;
const CHURNED_RESOURCES = ['pods', 'configmaps'];

const PARAMETERS = [
  { name: 'pods', description: 'pods stored before the churn', defaultValue: 50_000, minimum: 0 },
  { name: 'configmaps', description: 'ConfigMaps stored before the churn', defaultValue: 5_000, minimum: 0 },
  {
    name: 'namespaces',
    description: 'namespaces the objects, writes and watchers spread over',
    defaultValue: 10,
    minimum: 1,
  },
  {
    name: 'watchers',
    description: "watches, each on one namespace's pods or ConfigMaps",
    defaultValue: 1_000,
    minimum: 0,
  },
  { name: 'rate', description: 'writes a second during the churn', defaultValue: 100, minimum: 1 },
  { name: 'clients', description: 'writing clients', defaultValue: 8, minimum: 1 },
  { name: 'duration', description: 'seconds of churn', defaultValue: 300, minimum: 1 },
  { name: 'replicas', description: 'replicas of each server', defaultValue: 3, minimum: 1 },
] as const;

type Parameters = Record<(typeof PARAMETERS)[number]['name'], number>;

/** One system's figures. */
interface Figures {
  readonly fillPerSecond: number;
  readonly churn: ChurnResult;
  /** The servers' own request durations of the churn's writes, by verb, summed over the replicas. */
  readonly serverDurations: ReadonlyMap<string, Histogram>;
  readonly cpuSeconds: readonly number[];
  readonly peakRssMiB: readonly number[];
  readonly endRssMiB: readonly number[];
  readonly etcdDbMiB: number;
  readonly etcdDbGrowthMiB: number;
  /** The machine's 1-minute load average as the churn ended: how much else ran beside it. */
  readonly loadAverage: number;
}

export const scaleBenchmark: Benchmark = {
  name: 'scale',
  description:
    'three capstan replicas and three kube-apiserver 1.34 replicas, each behind haproxy on one 3-member etcd: objects stored, watchers, a churn of writes',
  parameters: PARAMETERS,
  run: async (context) => {
    const parameters = context.parameters as Parameters;
    const binary = referenceBinary(context.log);
    // etcd and the balancers, started below, inherit this process's CPU.
    execFileSync('taskset', ['-a', '-cp', LOAD_CPU, String(process.pid)], { stdio: 'ignore' });
    const etcd = await startEtcdCluster(ETCD_MEMBERS);
    const members = etcd.endpoints.map((endpoint) => new EtcdClient({ endpoints: [endpoint] }));
    const systems: ReplicatedSystem[] = [];
    try {
      context.log(`starting ${parameters.replicas} capstan and ${parameters.replicas} reference replicas`);
      const capstan = await startCapstanSystem({
        replicas: parameters.replicas,
        etcdEndpoints: etcd.endpoints,
        cpus: SERVER_CPU,
        flags: CAPSTAN_FLAGS,
      });
      systems.push(capstan);
      const reference = await startReferenceSystem(binary, {
        replicas: parameters.replicas,
        etcdEndpoints: etcd.endpoints,
        etcdPrefix: REFERENCE_PREFIX,
        cpus: SERVER_CPU,
        pkiDir: capstan.pkiDir,
        pki: capstan.pki,
      });
      systems.unshift(reference);
      const figures = new Map<string, Figures>();
      const etcdDbMiB = async () =>
        Math.max(...(await Promise.all(members.map((m) => m.status()))).map((s) => s.dbSize)) / MIB;
      for (const system of systems) {
        const other = systems.find((candidate) => candidate !== system)!;
        // Continued after the other's turn, it reads what it missed first, and its balancer,
        // whose checks failed meanwhile, takes it back.
        await untilCaughtUp(system, context);
        await sleep(BALANCER_RISE_MS);
        figures.set(
          system.label,
          await whileStopped(other, () => measureSystem({ system, parameters, etcdDbMiB, context })),
        );
      }
      const etcdVersion = (await members[0].status()).version;
      context.compare({
        title:
          `Scale run, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC: ${referenceVersion(binary)} and capstan, ` +
          `${parameters.replicas} replicas each behind haproxy, ${ETCD_MEMBERS}-member etcd ${etcdVersion}; ` +
          `${parameters.pods} pods and ${parameters.configmaps} ConfigMaps over ${parameters.namespaces} namespaces, ` +
          `${parameters.watchers} watchers, ${parameters.rate} writes/s from ${parameters.clients} clients for ${parameters.duration} s; ` +
          `replicas on CPU ${SERVER_CPU}, load, etcd and haproxy on CPU ${LOAD_CPU}`,
        columns: systems.map((system) => system.label),
        rows: comparisonRows(figures.get('reference')!, figures.get('capstan')!, parameters),
      });
      for (const [label, { churn }] of figures) {
        for (const sample of churn.errorSamples) context.log(`${label}: failed write: ${sample}`);
        for (const sample of churn.unmatchedSamples) context.log(`${label}: event no write accounts for: ${sample}`);
      }
    } finally {
      for (const system of systems) await system.stop();
      for (const member of members) member.close();
      await etcd.stop();
    }
  },
};

async function measureSystem(measured: {
  readonly system: ReplicatedSystem;
  readonly parameters: Parameters;
  readonly etcdDbMiB: () => Promise<number>;
  readonly context: BenchmarkContext;
}): Promise<Figures> {
  const { system, parameters, etcdDbMiB, context } = measured;
  const namespaces = Array.from({ length: parameters.namespaces }, (_, index) => `scale-${index}`);
  const stored = storedObjects(parameters, namespaces);
  const target = httpsTarget({
    url: system.url,
    credentials: system.credentials,
    maxSockets: FILL_CONCURRENCY,
    requestTimeoutMs: REQUEST_TIMEOUT_MS,
  });
  let fillPerSecond: number;
  try {
    for (const namespace of namespaces) await createNamespace(target, namespace);
    context.log(`${system.label}: storing ${stored.length} objects`);
    const filled = await measureThroughput({
      operation: (index) => createStored(target, stored[index], index),
      concurrency: FILL_CONCURRENCY,
      maxOperations: stored.length,
      maxMs: FILL_MAX_MS,
    });
    if (filled.operations < stored.length)
      throw new Error(`${system.label}: only ${filled.operations} of ${stored.length} objects stored`);
    fillPerSecond = filled.perSecond;
  } finally {
    target.close();
  }
  await sleep(SETTLE_MS);
  const readDurations = () =>
    readRequestDurations({
      urls: system.replicaUrls,
      credentials: system.credentials,
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
      verbs: Object.values(WRITE_VERBS),
      resources: CHURNED_RESOURCES,
    });
  let dbBefore = 0;
  let cpuBefore: number[] = [];
  let durationsBefore = new Map<string, Histogram>();
  context.log(`${system.label}: stored ${stored.length} objects at ${fillPerSecond.toFixed(0)}/s; opening watchers`);
  const churn = await runChurn({
    url: system.url,
    credentials: system.credentials,
    namespaces,
    stored,
    watchers: parameters.watchers,
    clients: parameters.clients,
    writesPerSecond: parameters.rate,
    durationMs: parameters.duration * 1000,
    log: (message) => context.log(`${system.label}: ${message}`),
    beforeWrites: async () => {
      dbBefore = await etcdDbMiB();
      durationsBefore = await readDurations();
      cpuBefore = system.pids.map(processCpuMs);
    },
  });
  const cpuSeconds = system.pids.map((pid, index) => (processCpuMs(pid) - cpuBefore[index]) / 1000);
  const durationsAfter = await readDurations();
  const etcdDb = await etcdDbMiB();
  return {
    fillPerSecond,
    churn,
    serverDurations: new Map(
      [...durationsAfter].map(([verb, histogram]) => [verb, histogramSince(histogram, durationsBefore.get(verb))]),
    ),
    cpuSeconds,
    peakRssMiB: system.pids.map(peakResidentMiB),
    endRssMiB: system.pids.map((pid) => residentMemory(pid).rssMiB),
    etcdDbMiB: etcdDb,
    etcdDbGrowthMiB: etcdDb - dbBefore,
    loadAverage: loadavg()[0],
  };
}

/**
 * Runs `measure` with `system`'s replicas stopped, and continues every one whatever happens: a
 * replica left stopped would not exit when the run stops the systems. A replica that has exited
 * meanwhile is not an error here; the measurement's own failure, if any, is the one reported.
 */
async function whileStopped<T>(system: ReplicatedSystem, measure: () => Promise<T>): Promise<T> {
  try {
    for (const pid of system.pids) process.kill(pid, 'SIGSTOP');
    return await measure();
  } finally {
    for (const pid of system.pids) signalIfRunning(pid, 'SIGCONT');
  }
}

function signalIfRunning(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/** Waits until `system`'s replicas are quiet (at most CATCH_UP_MAX_MS). */
async function untilCaughtUp(system: ReplicatedSystem, context: BenchmarkContext): Promise<void> {
  const startedAt = Date.now();
  let before = totalCpuMs(system.pids);
  while (Date.now() - startedAt < CATCH_UP_MAX_MS) {
    await sleep(1_000);
    const now = totalCpuMs(system.pids);
    if (now - before < CAUGHT_UP_CPU_MS_PER_SECOND) return;
    before = now;
  }
  context.log(`${system.label}: still busy after ${CATCH_UP_MAX_MS / 1000} s; measuring it anyway`);
}

/** The pods, then the ConfigMaps, each kind spread over the namespaces in turn. */
function storedObjects(parameters: Parameters, namespaces: readonly string[]): StoredObject[] {
  const spread = (resource: StoredObject['resource'], count: number, prefix: string) =>
    Array.from({ length: count }, (_, index) => ({
      resource,
      namespace: namespaces[index % namespaces.length],
      name: `${prefix}-${index}`,
    }));
  return [...spread('pods', parameters.pods, 'pod'), ...spread('configmaps', parameters.configmaps, 'cm')];
}

/**
 * Creates one stored object, trying again a second later when the server refuses it (a 429 from
 * flow control under the fill's load, say); an AlreadyExists after a failed try means the
 * earlier try was stored after all.
 */
async function createStored(target: HttpsTarget, object: StoredObject, index: number): Promise<void> {
  const path = `/api/v1/namespaces/${object.namespace}/${object.resource}`;
  const body =
    object.resource === 'pods'
      ? benchPodRequest({ namespace: object.namespace, name: object.name, index })
      : benchConfigMapRequest({ name: object.name, index });
  const call: HttpsCall = { method: 'POST', path, body };
  let failure = '';
  for (let attempt = 1; attempt <= FILL_ATTEMPTS; attempt++) {
    const answer = await target.request(call).catch((error: Error) => error);
    if (!(answer instanceof Error) && (answer.status === 201 || (attempt > 1 && answer.status === 409))) return;
    failure =
      answer instanceof Error ? answer.message : `${answer.status} ${answer.body.toString('utf8').slice(0, 300)}`;
    await sleep(FILL_RETRY_MS);
  }
  throw new Error(`storing ${path}/${object.name}: ${failure}`);
}

/** A row of the table: the figure of each system, capstan's ratio to the reference, and the goal with its verdict. */
function row(
  metric: string,
  reference: number,
  capstan: number,
  goal?: { readonly text: string; readonly met: (capstan: number, reference: number) => boolean },
): ComparisonRow {
  return {
    metric,
    values: [reference, capstan],
    ratio: capstan / reference,
    goal: goal === undefined ? '' : `${goal.text}: ${goal.met(capstan, reference) ? 'met' : 'not met'}`,
  };
}

/** The goal for every p99: at most half the reference's, and the Kubernetes SLO (mutating p99 ≤ 1 s). */
const HALF_AND_SLO = { text: '≤ ½, and ≤ 1 s', met: (c: number, r: number) => c * 2 <= r && c <= 1000 };
const HALF = { text: '≤ ½', met: (c: number, r: number) => c * 2 <= r };
const THIRD = { text: '≤ ⅓', met: (c: number, r: number) => c * 3 <= r };

function comparisonRows(reference: Figures, capstan: Figures, parameters: Parameters): ComparisonRow[] {
  const both = (figure: (figures: Figures) => number) => [figure(reference), figure(capstan)] as const;
  const writeLatency = (figures: Figures) => Object.values(figures.churn.writeLatencyMs).flat();
  const rows: ComparisonRow[] = [
    row(`objects stored, per second (${FILL_CONCURRENCY} in flight)`, ...both((f) => f.fillPerSecond)),
    row('churn writes acknowledged, per second', ...both((f) => (f.churn.acknowledged / f.churn.elapsedMs) * 1000), {
      text: `${parameters.rate} asked`,
      met: (c) => c >= parameters.rate * 0.98,
    }),
    row('write latency p50, ms', ...both((f) => percentile(writeLatency(f), 50))),
    row('write latency p99, ms', ...both((f) => percentile(writeLatency(f), 99)), HALF_AND_SLO),
    row('write latency p99.9, ms', ...both((f) => percentile(writeLatency(f), 99.9))),
  ];
  for (const operation of ['create', 'update', 'delete'] as const)
    rows.push(
      row(
        `${operation === 'update' ? 'update (merge patch)' : operation} p99, ms`,
        ...both((f) => percentile(f.churn.writeLatencyMs[operation], 99)),
        HALF_AND_SLO,
      ),
    );
  for (const [operation, verb] of Object.entries(WRITE_VERBS)) {
    const serverQuantile = (figures: Figures, q: number) => histogramQuantileMs(figures.serverDurations.get(verb)!, q);
    rows.push(
      row(
        `${operation}: server's own p50 (${verb}, apiserver_request_duration_seconds), ms`,
        ...both((f) => serverQuantile(f, 0.5)),
      ),
      row(`${operation}: server's own p99, ms`, ...both((f) => serverQuantile(f, 0.99)), HALF_AND_SLO),
    );
  }
  rows.push(
    row('watch delivery p50 (write sent to event read), ms', ...both((f) => percentile(f.churn.deliveryLatencyMs, 50))),
    row('watch delivery p99, ms', ...both((f) => percentile(f.churn.deliveryLatencyMs, 99)), HALF),
    row('write sent to its last watcher, p99, ms', ...both((f) => percentile(f.churn.lastWatcherLatencyMs, 99)), HALF),
    row('watch events delivered', ...both((f) => f.churn.deliveryLatencyMs.length)),
    row('writes failed (not 2xx, or no answer)', ...both((f) => f.churn.failed)),
    row('writes not sent (too many in flight)', ...both((f) => f.churn.unsent)),
    row('watch events missing', ...both((f) => f.churn.deliveriesMissing)),
    row('watch events no write accounts for', ...both((f) => f.churn.unmatchedEvents)),
    row('watch events marking an object deleted (MODIFIED before DELETED)', ...both((f) => f.churn.deletionMarks)),
    row('watches broken', ...both((f) => f.churn.watchesBroken)),
  );
  for (let replica = 0; replica < parameters.replicas; replica++) {
    const name = `replica ${replica + 1}`;
    rows.push(
      row(`${name}: CPU during the churn, s`, ...both((f) => f.cpuSeconds[replica])),
      row(`${name}: peak RSS, MiB`, ...both((f) => f.peakRssMiB[replica]), THIRD),
      row(`${name}: RSS at the end, MiB`, ...both((f) => f.endRssMiB[replica]), THIRD),
    );
  }
  rows.push(
    row('all replicas: CPU per acknowledged write, ms', ...both((f) => cpuPerWriteMs(f))),
    row('etcd DB size after the churn (both prefixes), MiB', ...both((f) => f.etcdDbMiB)),
    row('etcd DB growth during the churn, MiB', ...both((f) => f.etcdDbGrowthMiB)),
    row('machine load average (1 min) as the churn ended', ...both((f) => f.loadAverage)),
  );
  return rows;
}

function cpuPerWriteMs(figures: Figures): number {
  const cpuSeconds = figures.cpuSeconds.reduce((total, seconds) => total + seconds, 0);
  return (cpuSeconds * 1000) / figures.churn.acknowledged;
}

function totalCpuMs(pids: readonly number[]): number {
  return pids.reduce((total, pid) => total + processCpuMs(pid), 0);
}
