/**
 * capstan next to the reference kube-apiserver (v1.34, built from its Go module into a cache
 * outside the tree, see reference-process.ts), measured the same way: one etcd shared by the
 * reference and capstan-on-etcd (each under its own key prefix), capstan on SQLite as a third
 * contender, every server pinned to CPU 0 and the load generator (this process, and the etcd
 * it starts) to CPU 1. Each scenario runs against the three in turn before the next begins, so
 * a change in the machine's load shows in every column alike.
 *
 * Scenarios: idle RSS after start; create ConfigMap, then update (PUT) the ConfigMaps created;
 * 10,000 pods created; consistent GET by name and `resourceVersion=0` GET; consistent LIST of
 * the 10,000 pods; RSS with them stored and listed, and again after 20 quiet seconds; server
 * CPU per watch event delivered to 1,000 watchers; then the store filled to 100,000 objects
 * and each server restarted three times in turn, timed from spawn to `/readyz` 200 (the median).
 * Creates, updates and GETs report p99 and p99.9 and the server's CPU per request; capstan's
 * also the longest its event loop was blocked during the step (its
 * `nodejs_eventloop_lag_max_seconds`, read before and after: each read restarts the measure).
 * A fourth column, the ceiling, is a plain `node:https` server on the same core with the same
 * certificates answering those requests and the LIST with the bytes capstan on etcd answered
 * (ceiling-server.ts): what Node's TLS and HTTP alone reach under the same load generator, so a
 * goal above it cannot be met by any server running on Node.
 *
 * Each of those steps meets a server that has been quiet for a while, as a server does after a
 * lull: capstan then runs its request path while V8 still compiles it. A second table measures
 * the steady state of a server under load, on fresh servers on a fresh etcd of their own (so
 * that its writes reach no row of the first): each step run twice in a row, the second 8 s
 * counted.
 *
 * Not in CI: it needs the reference binary (built on first use, about 10 minutes) and a quiet
 * machine. `npm run bench -- reference`.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { measureStep, type StepResult } from './api';
import { startCeilingServer } from './ceiling-server';
import type { ServerPki } from './capstan-process';
import type { Benchmark, BenchmarkContext, ComparisonRow } from './benchmark';
import {
  type Contender,
  type Contenders,
  expectStatus,
  LOAD_CPU,
  medianRestart,
  SERVER_CPU,
  timedRestarts,
  withContenders,
} from './contenders';
import { createNamespace, httpsTarget, type HttpsTarget } from './https-client';
import { measureThroughput, median, processCpuMs, sleep, timeRuns } from './measure';
import { benchConfigMapRequest } from './configmap';
import { benchPodRequest } from './pod';
import { referenceBinary, referenceVersion } from './reference-process';
import { ETCD_BACKEND } from './storage-backends';
import { openWatchers } from './watch-fanout';
import { EVENT_LOOP_SAMPLING_MS } from '../server/metrics/apiserver-metrics';

const CONCURRENCY = 32;
const PODS = 10_000;
const STORED_OBJECTS = 100_000;
// Each server restarted on the stored objects this many times, taking turns; the median counts.
const RESTARTS = 3;
const WATCHERS = 1_000;
const WATCH_PODS = 10;
const WATCH_UPDATES = 100;
const WATCH_UPDATE_CONCURRENCY = 4;
const DELIVERY_WAIT_MS = 60_000;
const IDLE_SETTLE_MS = 5_000;
// V8 gives back a burst's young generation and garbage only when its memory reducer runs, 8 s
// after the last full collection once allocation has stopped; Go's scavenger returns pages over
// seconds too. Both servers get the same quiet time before their RSS with the pods is read again.
const LOADED_SETTLE_MS = 20_000;

/** The fourth column's label (see the file comment). */
const CEILING_LABEL = 'node:https ceiling';

/** One contender's figures, by scenario. */
type Figures = Record<string, number>;

export const sideBySideBenchmark: Benchmark = {
  name: 'reference',
  description:
    'capstan next to kube-apiserver 1.34 on one etcd, each server pinned to one core, the same scenarios in turn',
  run: async (context) => {
    const binary = referenceBinary(context.log);
    const title = (what: string) =>
      `${what}, ${new Date().toISOString().slice(0, 10)}: ${referenceVersion(binary)} and capstan, ${ETCD_BACKEND.describe()}; ` +
      `servers on CPU ${SERVER_CPU}, load on CPU ${LOAD_CPU}; ServiceAccount admission off on both`;
    await withContenders(binary, context.log, async ({ all, pki }) => {
      const figures = await runScenarios(all, pki, context);
      context.compare({
        title: title('Side by side'),
        columns: [...figures.keys()],
        rows: comparisonRows(figures, GOALS),
      });
    });
    await withContenders(binary, context.log, async ({ all }) => {
      const figures = await runWarmSteps(all, context);
      context.compare({
        title: title('Warm: each step the 8 s after a first 8 s of it, fresh servers'),
        columns: [...figures.keys()],
        rows: comparisonRows(figures, STEP_GOALS),
      });
    });
  },
};

async function runScenarios(
  contenders: Contenders['all'],
  pki: ServerPki,
  context: BenchmarkContext,
): Promise<Map<string, Figures>> {
  const figures = new Map(contenders.map((contender) => [contender.label, {} as Figures]));
  const each = (scenario: string, measure: Measure) => eachContender(contenders, context.log, scenario, measure);
  const record = (contender: Contender, values: Figures) => Object.assign(figures.get(contender.label)!, values);

  await each('idle RSS', async (contender) => {
    await sleep(IDLE_SETTLE_MS);
    record(contender, { idleRssMiB: rssMiB(contender.pid()) });
  });
  await each('namespaces', async (_contender, target) => {
    for (const name of ['bench', 'fanout', 'fill']) await createNamespace(target, name);
  });
  const createdConfigMaps = new Map<string, number>();
  await each('create ConfigMap', async (contender, target) => {
    const result = await step(contender, target, createConfigMapStep());
    createdConfigMaps.set(contender.label, result.operations);
    record(contender, stepFigures('create', result));
  });
  await each('update ConfigMap', async (contender, target) => {
    const result = await step(contender, target, updateConfigMapStep(createdConfigMaps.get(contender.label) ?? 0));
    record(contender, stepFigures('update', result));
  });
  await each(`create ${PODS} pods`, createPods);
  await each('consistent GET', async (contender, target) => {
    const result = await step(contender, target, getStep(''));
    record(contender, stepFigures('get', result));
  });
  await each('GET resourceVersion=0', async (contender, target) => {
    const result = await step(contender, target, getStep('?resourceVersion=0'));
    record(contender, stepFigures('cachedGet', result));
  });
  await each('consistent LIST', async (contender, target) => {
    const durations = await timeRuns({
      run: () => expectStatus(target, { method: 'GET', path: '/api/v1/namespaces/bench/pods' }, 200),
      runs: 10,
      maxMs: 20_000,
    });
    record(contender, { listMs: median(durations), rssListedMiB: rssMiB(contender.pid()) });
    await sleep(LOADED_SETTLE_MS);
    record(contender, { rssSettledMiB: rssMiB(contender.pid()) });
  });
  const [, onEtcd] = contenders;
  figures.set(CEILING_LABEL, await ceilingFigures(onEtcd, pki, context.log, createdConfigMaps.get(onEtcd.label) ?? 0));
  await each('watch fan-out', async (contender, target) => {
    record(contender, { watchEventUs: await watchEventCostUs(contender, target) });
  });
  await each(`fill to ${STORED_OBJECTS} objects`, async (contender, target) => {
    const missing = STORED_OBJECTS - PODS - WATCH_PODS - (createdConfigMaps.get(contender.label) ?? 0);
    const filled = await measureThroughput({
      operation: (index) =>
        expectStatus(
          target,
          {
            method: 'POST',
            path: '/api/v1/namespaces/fill/configmaps',
            body: benchConfigMapRequest({ name: `fill-${index}`, index }),
          },
          201,
        ),
      concurrency: CONCURRENCY,
      maxOperations: missing,
      maxMs: 600_000,
    });
    if (filled.operations < missing)
      throw new Error(`${contender.label}: only ${filled.operations} of ${missing} objects written`);
  });
  const restarts = await timedRestarts(contenders, { runs: RESTARTS, log: context.log });
  for (const contender of contenders) {
    const { wallMs, cpuMs } = medianRestart(restarts.get(contender.label)!);
    record(contender, { startMs: wallMs, startCpuMs: cpuMs });
  }
  return figures;
}

/** What a scenario does with one contender, through a client of its own. */
type Measure = (contender: Contender, target: HttpsTarget) => Promise<void>;

/** Runs `measure` against each contender in turn, each with a client of its own closed after it. */
async function eachContender(
  contenders: readonly Contender[],
  log: (message: string) => void,
  scenario: string,
  measure: Measure,
): Promise<void> {
  for (const contender of contenders) {
    log(`${contender.label}: ${scenario}`);
    const target = httpsTarget({ url: contender.url(), credentials: contender.credentials, maxSockets: CONCURRENCY });
    try {
      await measure(contender, target);
    } finally {
      target.close();
    }
  }
}

/**
 * The steady state of the create, update and GET steps, on servers that have not been quiet
 * before them: each step's requests run for 8 s, then 8 s more are counted, numbered on so that
 * no create repeats a name and no update repeats its data (an update that changes nothing is
 * not written).
 */
async function runWarmSteps(contenders: Contenders['all'], context: BenchmarkContext): Promise<Map<string, Figures>> {
  const figures = new Map(contenders.map((contender) => [contender.label, {} as Figures]));
  const each = (scenario: string, measure: Measure) => eachContender(contenders, context.log, scenario, measure);
  const twice = async (
    contender: Contender,
    target: HttpsTarget,
    name: string,
    definition: (firstIndex: number) => Parameters<typeof measureStep>[0]['step'],
  ) => {
    const first = await step(contender, target, definition(0));
    const warm = await step(contender, target, definition(first.operations));
    Object.assign(figures.get(contender.label)!, stepFigures(name, warm));
    return first.operations + warm.operations;
  };
  await each('namespace', (_contender, target) => createNamespace(target, 'bench'));
  const createdConfigMaps = new Map<string, number>();
  await each('create ConfigMap, twice', async (contender, target) => {
    createdConfigMaps.set(contender.label, await twice(contender, target, 'create', createConfigMapStep));
  });
  await each('update ConfigMap, twice', async (contender, target) => {
    const created = createdConfigMaps.get(contender.label) ?? 0;
    await twice(contender, target, 'update', (firstIndex) => updateConfigMapStep(created, firstIndex));
  });
  await each(`create ${PODS} pods`, createPods);
  await each('consistent GET, twice', async (contender, target) => {
    await twice(contender, target, 'get', () => getStep(''));
  });
  await each('GET resourceVersion=0, twice', async (contender, target) => {
    await twice(contender, target, 'cachedGet', () => getStep('?resourceVersion=0'));
  });
  return figures;
}

/** The `PODS` pods the GET and LIST steps read, in namespace `bench`. */
async function createPods(contender: Contender, target: HttpsTarget): Promise<void> {
  const result = await step(contender, target, {
    metric: 'create pods',
    call: (index) => ({
      method: 'POST',
      path: '/api/v1/namespaces/bench/pods',
      body: benchPodRequest({ namespace: 'bench', name: `pod-${index}`, index }),
    }),
    expectStatus: 201,
    concurrency: CONCURRENCY,
    maxOperations: PODS,
    maxMs: 300_000,
  });
  if (result.operations < PODS)
    throw new Error(`${contender.label}: only ${result.operations} of ${PODS} pods created`);
}

/** A measured step; capstan's longest event-loop delay during it goes with the result. */
async function step(
  contender: Contender,
  target: HttpsTarget,
  definition: Parameters<typeof measureStep>[0]['step'],
): Promise<StepResult & { readonly eventLoopMaxMs: number }> {
  if (contender.hasEventLoop) await eventLoopMaxMs(target);
  const result = await measureStep({ target, step: definition, serverPid: contender.pid() });
  return { ...result, eventLoopMaxMs: contender.hasEventLoop ? await eventLoopMaxMs(target) : Number.NaN };
}

/** The figures a step gives, named `<name>PerSecond`, `<name>P99Ms` and so on. */
function stepFigures(name: string, result: StepResult & { readonly eventLoopMaxMs: number }): Figures {
  return {
    [`${name}PerSecond`]: result.perSecond,
    [`${name}P99Ms`]: result.p99Ms,
    [`${name}P999Ms`]: result.p999Ms,
    [`${name}CpuUs`]: result.serverCpuMsPerRequest * 1000,
    [`${name}EventLoopMaxMs`]: result.eventLoopMaxMs,
  };
}

/**
 * The longest event-loop stop since the last scrape, in ms: prom-client's monitor restarts at
 * every scrape of `/metrics`. Its samples are timer-to-timer intervals, so the sampling interval
 * is taken off (an idle loop then reads about 0).
 */
async function eventLoopMaxMs(target: HttpsTarget): Promise<number> {
  const answer = await target.request({ method: 'GET', path: '/metrics' });
  const line = /^nodejs_eventloop_lag_max_seconds (\S+)$/m.exec(answer.body.toString('utf8'));
  if (answer.status !== 200 || line === null) throw new Error(`/metrics: ${answer.status}, no event-loop delay`);
  return Math.max(0, Number(line[1]) * 1000 - EVENT_LOOP_SAMPLING_MS);
}

/** Creates of ConfigMaps `cm-<firstIndex>` on. */
function createConfigMapStep(firstIndex = 0): Parameters<typeof measureStep>[0]['step'] {
  return {
    metric: 'create ConfigMap',
    call: (index) => ({
      method: 'POST',
      path: '/api/v1/namespaces/bench/configmaps',
      body: benchConfigMapRequest({ name: `cm-${firstIndex + index}`, index: firstIndex + index }),
    }),
    expectStatus: 201,
    concurrency: CONCURRENCY,
    maxOperations: 30_000,
    maxMs: 8_000,
  };
}

/**
 * PUTs of the `created` ConfigMaps without resourceVersion: ConfigMaps allow unconditional
 * updates, so every one succeeds however the clients interleave, and each changes the data,
 * from update number `firstIndex` on.
 */
function updateConfigMapStep(created: number, firstIndex = 0): Parameters<typeof measureStep>[0]['step'] {
  return {
    metric: 'update ConfigMap',
    call: (index) => {
      const number = firstIndex + index;
      return {
        method: 'PUT',
        path: `/api/v1/namespaces/bench/configmaps/cm-${number % created}`,
        body: benchConfigMapRequest({ name: `cm-${number % created}`, index: created + number }),
      };
    },
    expectStatus: 200,
    concurrency: CONCURRENCY,
    maxOperations: 30_000,
    maxMs: 8_000,
  };
}

/**
 * The ceiling's figures for the steps above: a plain `node:https` server pinned where the
 * servers run, answering with the bytes capstan on etcd answers for a pod, a ConfigMap and the
 * pods' list, measured by the same steps.
 */
async function ceilingFigures(
  capstan: Contender,
  pki: ServerPki,
  log: (message: string) => void,
  configMaps: number,
): Promise<Figures> {
  const source = httpsTarget({ url: capstan.url(), credentials: capstan.credentials, maxSockets: 1 });
  const body = async (path: string) => {
    const answer = await source.request({ method: 'GET', path });
    if (answer.status !== 200) throw new Error(`GET ${path} from ${capstan.label}: ${answer.status}`);
    return answer.body;
  };
  const configMap = await body('/api/v1/namespaces/bench/configmaps/cm-0');
  const bodies = {
    get: await body('/api/v1/namespaces/bench/pods/pod-0'),
    list: await body('/api/v1/namespaces/bench/pods'),
    create: configMap,
    update: configMap,
  };
  source.close();
  const ceiling = await startCeilingServer({ pki, bodies });
  execFileSync('taskset', ['-a', '-cp', SERVER_CPU, String(ceiling.pid)], { stdio: 'ignore' });
  const target = httpsTarget({ url: ceiling.url, credentials: capstan.credentials, maxSockets: CONCURRENCY });
  const measured = async (name: string, definition: Parameters<typeof measureStep>[0]['step']) => {
    log(`${CEILING_LABEL}: ${definition.metric}`);
    const result = await measureStep({ target, step: definition, serverPid: ceiling.pid });
    return stepFigures(name, { ...result, eventLoopMaxMs: Number.NaN });
  };
  try {
    return {
      ...(await measured('create', createConfigMapStep())),
      ...(await measured('update', updateConfigMapStep(Math.max(configMaps, 1)))),
      ...(await measured('get', getStep(''))),
      ...(await measured('cachedGet', getStep('?resourceVersion=0'))),
      listMs: median(
        await timeRuns({
          run: () => expectStatus(target, { method: 'GET', path: '/api/v1/namespaces/bench/pods' }, 200),
          runs: 10,
          maxMs: 20_000,
        }),
      ),
    };
  } finally {
    target.close();
    await ceiling.stop();
  }
}

function getStep(query: string): Parameters<typeof measureStep>[0]['step'] {
  return {
    metric: `GET${query}`,
    call: (index) => ({ method: 'GET', path: `/api/v1/namespaces/bench/pods/pod-${index % PODS}${query}` }),
    expectStatus: 200,
    concurrency: CONCURRENCY,
    maxOperations: 60_000,
    maxMs: 8_000,
  };
}

/**
 * Server CPU per event delivered: label patches of a few pods with no watcher open, then the
 * same patches with 1,000 watchers reading; the difference in the server's CPU time over the
 * events the watchers read.
 */
async function watchEventCostUs(contender: Contender, target: HttpsTarget): Promise<number> {
  const path = '/api/v1/namespaces/fanout/pods';
  for (let index = 0; index < WATCH_PODS; index++) {
    await expectStatus(
      target,
      { method: 'POST', path, body: benchPodRequest({ namespace: 'fanout', name: `pod-${index}`, index }) },
      201,
    );
  }
  const patches = async (round: string, delivered?: () => boolean) => {
    const cpuBefore = processCpuMs(contender.pid());
    await measureThroughput({
      operation: (index) =>
        expectStatus(
          target,
          {
            method: 'PATCH',
            path: `${path}/pod-${index % WATCH_PODS}`,
            contentType: 'application/merge-patch+json',
            body: json({ metadata: { labels: { round: `${round}-${index}` } } }),
          },
          200,
        ),
      concurrency: WATCH_UPDATE_CONCURRENCY,
      maxOperations: WATCH_UPDATES,
      maxMs: DELIVERY_WAIT_MS,
    });
    const deadline = performance.now() + DELIVERY_WAIT_MS;
    while (delivered && !delivered() && performance.now() < deadline) await sleep(20);
    return processCpuMs(contender.pid()) - cpuBefore;
  };
  const alone = await patches('alone');
  const watchers = await openWatchers({ url: contender.url(), credentials: contender.credentials }, path, WATCHERS);
  try {
    const counted = watchers.delivered();
    const withWatchers = await patches('watched', () => watchers.delivered() - counted >= WATCH_UPDATES * WATCHERS);
    const delivered = watchers.delivered() - counted;
    if (delivered < WATCH_UPDATES * WATCHERS)
      throw new Error(`${contender.label}: ${delivered} of ${WATCH_UPDATES * WATCHERS} watch events delivered`);
    return ((withWatchers - alone) * 1000) / delivered;
  } finally {
    watchers.close();
  }
}

interface Goal {
  readonly metric: string;
  readonly figure: string;
  readonly unit: string;
  /** The goal as written in the table; rows without one are reported only. */
  readonly goal?: string;
  /** Whether capstan on etcd meets the goal, from its figure and the reference's. */
  readonly met?: (capstan: number, reference: number) => boolean;
}

/** capstan's event loop may not stop for longer under load (issue 25's tails). */
const EVENT_LOOP_MAX_MS = 10;

/** One step's rows: throughput, p99, p99.9, server CPU per request and capstan's longest event-loop delay. */
function stepGoals(
  name: string,
  metric: string,
  goals: { perSecond?: [string, Goal['met']]; p99?: [string, Goal['met']]; cpu?: [string, Goal['met']] },
): Goal[] {
  const row = (suffix: string, unit: string, label: string, goal?: [string, Goal['met']]): Goal => ({
    metric: `${metric}${label}`,
    figure: `${name}${suffix}`,
    unit,
    goal: goal?.[0],
    met: goal?.[1],
  });
  return [
    row('PerSecond', 'req/s', '', goals.perSecond),
    row('P99Ms', 'ms', ', p99', goals.p99),
    row('P999Ms', 'ms', ', p99.9'),
    row('CpuUs', 'µs', ', server CPU per request', goals.cpu),
    row('EventLoopMaxMs', 'ms', ", capstan's longest event-loop delay", [
      `≤ ${EVENT_LOOP_MAX_MS} ms`,
      (c) => c <= EVENT_LOOP_MAX_MS,
    ]),
  ];
}

/** The goals of issue 25 for the create, update and GET steps (raised after the 2026-11-24 run). */
const STEP_GOALS: readonly Goal[] = [
  ...stepGoals('get', 'consistent GET by name', {
    perSecond: ['≥ 4×', (c, r) => c >= 4 * r],
    p99: ['≤ ⅓', (c, r) => c * 3 <= r],
  }),
  ...stepGoals('cachedGet', 'GET resourceVersion=0', { perSecond: ['≥ 6×', (c, r) => c >= 6 * r] }),
  ...stepGoals('create', 'create ConfigMap', {
    perSecond: ['≥ 2×', (c, r) => c >= 2 * r],
    p99: ['≤ ½', (c, r) => c * 2 <= r],
    cpu: ['≤ ½', (c, r) => c * 2 <= r],
  }),
  ...stepGoals('update', 'update ConfigMap (PUT)', {}),
];

/** Every goal of issue 25. */
const GOALS: readonly Goal[] = [
  ...STEP_GOALS,
  {
    metric: `consistent LIST ${PODS.toLocaleString('en-US')} pods`,
    figure: 'listMs',
    unit: 'ms',
    goal: '≤ ¼',
    met: (c, r) => c * 4 <= r,
  },
  {
    metric: `server CPU per watch event (${WATCHERS.toLocaleString('en-US')} watchers)`,
    figure: 'watchEventUs',
    unit: 'µs',
    goal: '≤ ½',
    met: (c, r) => c * 2 <= r,
  },
  {
    metric: `start to /readyz, ${STORED_OBJECTS.toLocaleString('en-US')} objects`,
    figure: 'startMs',
    unit: 'ms',
    goal: '≤ ½',
    met: (c, r) => c * 2 <= r,
  },
  {
    metric: `RSS, ${PODS.toLocaleString('en-US')} pods stored and listed`,
    figure: 'rssListedMiB',
    unit: 'MiB',
  },
  {
    metric: `RSS, the same, ${LOADED_SETTLE_MS / 1000} s later`,
    figure: 'rssSettledMiB',
    unit: 'MiB',
    goal: '≤ ¼',
    met: (c, r) => c * 4 <= r,
  },
  {
    metric: 'RSS idle after start',
    figure: 'idleRssMiB',
    unit: 'MiB',
    goal: '< 80 MiB',
    met: (c) => c < 80,
  },
];

function comparisonRows(figures: Map<string, Figures>, goals: readonly Goal[]): ComparisonRow[] {
  const reference = figures.get('reference')!;
  const onEtcd = figures.get('capstan on etcd')!;
  return goals.map((goal) => {
    const ratio = onEtcd[goal.figure] / reference[goal.figure];
    return {
      metric: `${goal.metric}, ${goal.unit}`,
      // A figure a column does not have (the ceiling's start or RSS) shows as a dash.
      values: [...figures.values()].map((contender) => contender[goal.figure] ?? Number.NaN),
      ratio,
      goal:
        goal.goal === undefined || goal.met === undefined
          ? ''
          : `${goal.goal}: ${goal.met(onEtcd[goal.figure], reference[goal.figure]) ? 'met' : 'not met'}`,
    };
  });
}

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN);
  return kib / 1024;
}

function json(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value));
}
