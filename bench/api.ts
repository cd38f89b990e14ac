/**
 * The HTTP API benchmark: the whole server as a client meets it, over HTTPS with the admin
 * client certificate and a keep-alive agent, 32 requests in flight (2 for lists of 10,000).
 *
 * For capstan on SQLite, then on a bench-started etcd (each a fresh server process):
 * 1. create 10,000 pods (POST), which the later steps read;
 * 2. GET by name, consistent (no resourceVersion: a store read) and `resourceVersion=0` (cache);
 * 3. update (PUT, unconditional, a label changed);
 * 4. LIST of the 10,000 as JSON, `resourceVersion=0` and consistent.
 * Then the same requests against the ceiling (ceiling-server.ts): a plain `node:https` server
 * with the same TLS answering the bytes capstan answered. Each figure stops at a count or a
 * deadline, whichever comes first, so the whole benchmark stays within a few minutes.
 *
 * Server CPU per request is the server process's user+system time over the step (from
 * /proc), so the cost of a request can be told from the client's share of the two cores.
 */
import { performance } from 'node:perf_hooks';
import type { Benchmark, BenchmarkContext, ResultRow } from './benchmark';
import { startCapstanProcess, type CapstanProcess, type ServerPki } from './capstan-process';
import { startCeilingServer, type CeilingBodies } from './ceiling-server';
import { createNamespace, httpsTarget, type HttpsCall, type HttpsTarget } from './https-client';
import { measureThroughput, percentile, processCpuMs } from './measure';
import { benchPod } from './pod';
import { ETCD_BACKEND } from './storage-backends';

const PODS = 10_000;
const NAMESPACE = 'bench';
const CONCURRENCY = 32;
const LIST_CONCURRENCY = 2;
const POD_PATH = `/api/v1/namespaces/${NAMESPACE}/pods`;

export interface Step {
  readonly metric: string;
  readonly call: (index: number) => HttpsCall;
  readonly expectStatus: number;
  readonly concurrency: number;
  readonly maxOperations: number;
  readonly maxMs: number;
}

const STEPS = {
  create: {
    metric: 'create (POST)',
    call: (index) => ({ method: 'POST', path: POD_PATH, body: podBody(index) }),
    expectStatus: 201,
    concurrency: CONCURRENCY,
    maxOperations: PODS,
    maxMs: 60_000,
  },
  getConsistent: {
    metric: 'GET by name, consistent',
    call: (index) => ({ method: 'GET', path: `${POD_PATH}/${podName(index % PODS)}` }),
    expectStatus: 200,
    concurrency: CONCURRENCY,
    maxOperations: 30_000,
    maxMs: 8_000,
  },
  getCached: {
    metric: 'GET by name, resourceVersion=0',
    call: (index) => ({ method: 'GET', path: `${POD_PATH}/${podName(index % PODS)}?resourceVersion=0` }),
    expectStatus: 200,
    concurrency: CONCURRENCY,
    maxOperations: 30_000,
    maxMs: 8_000,
  },
  update: {
    metric: 'update (PUT)',
    call: (index) => ({
      method: 'PUT',
      path: `${POD_PATH}/${podName(index % PODS)}`,
      body: podBody(index % PODS, { round: String(index) }, ADMITTED_SPEC),
    }),
    expectStatus: 200,
    concurrency: CONCURRENCY,
    maxOperations: PODS,
    maxMs: 10_000,
  },
  listCached: {
    metric: `LIST ${PODS.toLocaleString('en-US')} pods, resourceVersion=0`,
    call: () => ({ method: 'GET', path: `${POD_PATH}?resourceVersion=0` }),
    expectStatus: 200,
    concurrency: LIST_CONCURRENCY,
    maxOperations: 40,
    maxMs: 12_000,
  },
  listConsistent: {
    metric: `LIST ${PODS.toLocaleString('en-US')} pods, consistent`,
    call: () => ({ method: 'GET', path: POD_PATH }),
    expectStatus: 200,
    concurrency: LIST_CONCURRENCY,
    maxOperations: 40,
    maxMs: 12_000,
  },
} satisfies Record<string, Step>;

export const apiBenchmark: Benchmark = {
  name: 'api',
  description: `GET, create, update and LIST of ${PODS.toLocaleString('en-US')} pods over HTTPS with a client certificate, next to a plain node:https server`,
  run: async (context) => {
    let captured: { pki: ServerPki; bodies: CeilingBodies } | undefined;
    for (const backend of ['sqlite', 'etcd'] as const) {
      context.log(`capstan on ${backend}: starting`);
      // The storage benchmark's etcd (its store client stays idle), reached by the server process.
      const etcd = backend === 'etcd' ? await ETCD_BACKEND.open() : undefined;
      try {
        const server = await startCapstanProcess({
          etcdEndpoint: etcd?.address.kind === 'etcd' ? etcd.address.endpoint : undefined,
        });
        try {
          const { rows, bodies } = await benchCapstan(server, (message) =>
            context.log(`capstan on ${backend}: ${message}`),
          );
          captured ??= { pki: server.pki, bodies };
          const store = etcd ? ETCD_BACKEND.describe() : 'embedded SQLite (file on disk)';
          context.report({ title: `capstan on ${store}`, rows });
        } finally {
          await server.stop();
        }
      } finally {
        await etcd?.close();
      }
    }
    if (captured) await benchCeiling(captured, context);
  },
};

/**
 * Pods of a new namespace need its `default` ServiceAccount, which a controller makes just after
 * the namespace (ServiceAccount admission waits only a moment for it): wait as a user must, so
 * that the create step measures creates, not that wait.
 */
async function defaultServiceAccount(target: ReturnType<typeof httpsTarget>): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const answer = await target.request({
      method: 'GET',
      path: `/api/v1/namespaces/${NAMESPACE}/serviceaccounts/default`,
    });
    if (answer.status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the default ServiceAccount of ${NAMESPACE} did not appear within 30 s`);
}

async function benchCapstan(
  server: CapstanProcess,
  log: (message: string) => void,
): Promise<{ rows: ResultRow[]; bodies: CeilingBodies }> {
  const target = httpsTarget({ url: server.url, credentials: server.pki.client, maxSockets: CONCURRENCY });
  try {
    await createNamespace(target, NAMESPACE);
    await defaultServiceAccount(target);
    const measure = (step: Step) => {
      log(step.metric);
      return measureStep({ target, step, serverPid: server.pid });
    };
    const create = await measure(STEPS.create);
    // Every later step reads the pods this one made.
    if (create.operations < PODS)
      throw new Error(`only ${create.operations} of ${PODS} pods were created in ${STEPS.create.maxMs} ms`);
    const getConsistent = await measure(STEPS.getConsistent);
    const getCached = await measure(STEPS.getCached);
    const update = await measure(STEPS.update);
    const listCached = await measure(STEPS.listCached);
    const listConsistent = await measure(STEPS.listConsistent);
    const list = JSON.parse(listConsistent.sample.toString('utf8')) as { items: unknown[] };
    if (list.items.length !== PODS) throw new Error(`the list held ${list.items.length} pods, expected ${PODS}`);
    return {
      rows: [create, getConsistent, getCached, update, listCached, listConsistent].map(resultRow),
      bodies: { create: create.sample, get: getCached.sample, update: update.sample, list: listConsistent.sample },
    };
  } finally {
    target.close();
  }
}

async function benchCeiling(
  captured: { pki: ServerPki; bodies: CeilingBodies },
  context: BenchmarkContext,
): Promise<void> {
  context.log('ceiling: starting');
  const ceiling = await startCeilingServer(captured);
  const target = httpsTarget({ url: ceiling.url, credentials: captured.pki.client, maxSockets: CONCURRENCY });
  try {
    const rows: ResultRow[] = [];
    // GET answers the same bytes with or without resourceVersion, so one GET figure.
    for (const step of [STEPS.create, STEPS.getCached, STEPS.update, STEPS.listCached]) {
      context.log(`ceiling: ${step.metric}`);
      const metric =
        step === STEPS.getCached
          ? 'GET by name'
          : step === STEPS.listCached
            ? `LIST ${PODS.toLocaleString('en-US')} pods`
            : step.metric;
      rows.push(resultRow({ ...(await measureStep({ target, step, serverPid: ceiling.pid })), metric }));
    }
    const sizes = `pod ${captured.bodies.get.length.toLocaleString('en-US')} B, list ${(captured.bodies.list.length / 1024 / 1024).toFixed(1)} MiB`;
    context.report({ title: `Ceiling: plain node:https, same TLS, same bytes (${sizes})`, rows });
  } finally {
    target.close();
    await ceiling.stop();
  }
}

export interface StepResult {
  readonly metric: string;
  readonly operations: number;
  readonly elapsedMs: number;
  readonly perSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly p999Ms: number;
  readonly concurrency: number;
  /** Server process CPU time over the step, per request. */
  readonly serverCpuMsPerRequest: number;
  /** The body of one answer, for the ceiling to send. */
  readonly sample: Buffer;
}

export async function measureStep(options: {
  target: HttpsTarget;
  step: Step;
  serverPid: number;
}): Promise<StepResult> {
  const { target, step, serverPid } = options;
  const latencies: number[] = [];
  let sample: Buffer | undefined;
  const cpuBefore = processCpuMs(serverPid);
  const throughput = await measureThroughput({
    operation: async (index) => {
      const call = step.call(index);
      const begin = performance.now();
      const answer = await target.request(call);
      latencies.push(performance.now() - begin);
      if (answer.status !== step.expectStatus) {
        throw new Error(
          `${call.method} ${call.path}: ${answer.status} (expected ${step.expectStatus}): ${answer.body.toString('utf8').slice(0, 500)}`,
        );
      }
      sample ??= answer.body;
    },
    concurrency: step.concurrency,
    maxOperations: step.maxOperations,
    maxMs: step.maxMs,
  });
  const cpuMs = processCpuMs(serverPid) - cpuBefore;
  if (sample === undefined) throw new Error(`${step.metric}: no request completed`);
  return {
    metric: step.metric,
    operations: throughput.operations,
    elapsedMs: throughput.elapsedMs,
    perSecond: throughput.perSecond,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    p999Ms: percentile(latencies, 99.9),
    concurrency: step.concurrency,
    serverCpuMsPerRequest: cpuMs / throughput.operations,
    sample,
  };
}

function resultRow(result: StepResult): ResultRow {
  const ms = (value: number) => `${Number(value.toPrecision(3))} ms`;
  return {
    metric: result.metric,
    value: result.perSecond,
    unit: 'req/s',
    note:
      `p50 ${ms(result.p50Ms)}, p99 ${ms(result.p99Ms)}; server CPU ${ms(result.serverCpuMsPerRequest)}/req; ` +
      `${result.operations.toLocaleString('en-US')} in ${(result.elapsedMs / 1000).toFixed(1)} s, ${result.concurrency} in flight`,
  };
}

function podName(index: number): string {
  return `pod-${index}`;
}

/**
 * The storage benchmark's pod as a client sends it: no uid, timestamps or status (the server
 * sets those), and no owner (the garbage collector would delete pods of a missing ReplicaSet).
 */
/**
 * What the default admission plugins (Priority, DefaultTolerationSeconds) add to a pod at create:
 * a replacing PUT carries it, as one made from a GET does, since a pod's spec may not change.
 */
const ADMITTED_SPEC = {
  priority: 0,
  preemptionPolicy: 'PreemptLowerPriority',
  tolerations: [
    { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
  ],
};

function podBody(index: number, extraLabels: Record<string, string> = {}, admitted: object = {}): Buffer {
  const pod = benchPod({ namespace: NAMESPACE, name: podName(index), index });
  const { name, namespace, labels } = pod.metadata;
  const metadata = { name, namespace, labels: { ...labels, ...extraLabels } };
  return Buffer.from(
    JSON.stringify({
      apiVersion: pod.apiVersion,
      kind: pod.kind,
      metadata,
      spec: { ...(pod.spec as object), ...admitted },
    }),
  );
}
