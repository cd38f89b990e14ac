/**
 * capstan as envtest's API server, next to the reference kube-apiserver 1.34, in one run:
 * both binaries started the way controller-runtime v0.22's envtest starts them
 * (envtest-server.ts: a fresh etcd each start, envtest's flags, its ECDSA P-256 serving pair in
 * `--cert-dir`), the two taking turns so a change in the machine's load shows in both columns.
 *
 * 1. Start: spawn to `/healthz` 200 (anonymous, 100 ms polls) and then to
 *    `GET /api/v1/namespaces/default` 200, as envtest waits; `--help`, which envtest runs before
 *    each start, and the stop (SIGTERM to exit) beside it. Several starts: median and range.
 * 2. A CRD on each fresh server, from the POST to its resource listed in discovery
 *    (`/apis/<group>/<version>`, what envtest's WaitForCRDs reads), polled every 5 ms rather
 *    than envtest's 100 ms so the figure is the server's and not the poll's.
 * 3. controller-runtime's `pkg/envtest` suite, whole, its wall time with each binary as
 *    TEST_ASSET_KUBE_APISERVER.
 *
 * Not in CI: it needs the reference binary and controller-runtime's test binary, both built
 * outside the tree. `npm run bench -- envtest`.
 */
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Benchmark, ComparisonRow } from './benchmark';
import { envtestPki, startAsEnvtest, type EnvtestPki, type EnvtestServer } from './envtest-server';
import type { HttpsTarget } from './https-client';
import { median, sleep } from './measure';
import { controllerRuntimeSuite, runSuite, type SuiteRun } from './outside-suite';
import { referenceBinary, referenceVersion } from './reference-process';
import { ETCD_BACKEND } from './storage-backends';

const CAPSTAN_BINARY = join(__dirname, '..', '..', 'bin', 'kube-apiserver');
const STARTS = 5;
const CRD_POLL_MS = 5;
const CRD_TIMEOUT_MS = 10_000;
const CRD_GROUP = 'bench.capstan.dev';
const CRD_VERSION = 'v1';
const CRD_PLURAL = 'widgets';

interface Contender {
  readonly label: 'reference' | 'capstan';
  readonly binary: string;
}

/** One contender's samples, and why it stopped giving them. */
interface Samples {
  helpMs: number[];
  healthyMs: number[];
  readyMs: number[];
  readyCpuMs: number[];
  crdMs: number[];
  stopMs: number[];
  suite?: SuiteRun;
  failures: string[];
}

export const envtestBenchmark: Benchmark = {
  name: 'envtest',
  description: `capstan as bin/kube-apiserver and kube-apiserver 1.34 started as controller-runtime's envtest starts them: start, a CRD served, the pkg/envtest suite`,
  run: async (context) => {
    const reference = referenceBinary(context.log);
    const contenders: Contender[] = [
      { label: 'reference', binary: reference },
      { label: 'capstan', binary: CAPSTAN_BINARY },
    ];
    const samples = new Map<Contender['label'], Samples>(
      contenders.map((c) => [
        c.label,
        { helpMs: [], healthyMs: [], readyMs: [], readyCpuMs: [], crdMs: [], stopMs: [], failures: [] },
      ]),
    );
    const pki = await envtestPki();
    for (let round = 1; round <= STARTS; round++) {
      for (const contender of contenders) {
        const own = samples.get(contender.label)!;
        // A binary that cannot start under envtest's flags fails the same way every time: once is enough.
        if (own.failures.length > 0) continue;
        context.log(`${contender.label}: start ${round} of ${STARTS}, then a CRD`);
        await startAndCreateCrd(contender, pki, own).catch((error: Error) => own.failures.push(error.message));
      }
    }
    let suiteName = 'pkg/envtest';
    try {
      const suite = controllerRuntimeSuite('envtest');
      suiteName = suite.title;
      for (const contender of contenders) {
        context.log(`${contender.label}: the ${suiteName} suite`);
        const run = await runSuite(suite, contender.binary);
        samples.get(contender.label)!.suite = run;
        context.log(
          `${contender.label}: ${run.passed} of ${run.total} specs passed in ${(run.wallMs / 1000).toFixed(1)} s (exit ${run.exitCode})`,
        );
        for (const line of run.failures) context.log(`${contender.label}:   ${line}`);
      }
    } catch (error) {
      context.log(`suite not run: ${(error as Error).message}`);
    }
    for (const [label, own] of samples) for (const failure of own.failures) context.log(`${label} failed: ${failure}`);
    context.compare({
      title:
        `envtest, ${new Date().toISOString().slice(0, 10)}: ${referenceVersion(reference)} and capstan as bin/kube-apiserver, ` +
        `${STARTS} starts each, taking turns, each on a fresh ${ETCD_BACKEND.describe()}; ${suiteName} once each`,
      columns: contenders.map((contender) => contender.label),
      rows: comparisonRows(samples.get('reference')!, samples.get('capstan')!),
    });
  },
};

async function startAndCreateCrd(contender: Contender, pki: EnvtestPki, own: Samples): Promise<void> {
  const server: EnvtestServer = await startAsEnvtest(contender.binary, pki);
  try {
    own.helpMs.push(server.helpMs);
    own.healthyMs.push(server.healthyMs);
    own.readyMs.push(server.readyMs);
    own.readyCpuMs.push(server.readyCpuMs);
    own.crdMs.push(await crdServedMs(server.admin));
  } finally {
    own.stopMs.push(await server.stop());
  }
}

/** From the POST of a CRD to its resource listed in its group version's discovery; then checks a LIST of it answers. */
async function crdServedMs(admin: HttpsTarget): Promise<number> {
  const began = performance.now();
  const created = await admin.request({
    method: 'POST',
    path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
    body: Buffer.from(JSON.stringify(widgetCrd())),
  });
  if (created.status !== 201)
    throw new Error(`CRD create: ${created.status} ${created.body.toString('utf8').slice(0, 300)}`);
  const discovery = `/apis/${CRD_GROUP}/${CRD_VERSION}`;
  let last = '';
  for (;;) {
    const answer = await admin.request({ method: 'GET', path: discovery });
    if (answer.status === 200 && listsWidgets(answer.body)) break;
    last = `${answer.status} ${answer.body.toString('utf8').slice(0, 200)}`;
    if (performance.now() - began > CRD_TIMEOUT_MS)
      throw new Error(`CRD not in discovery within ${CRD_TIMEOUT_MS} ms; last GET ${discovery}: ${last}`);
    await sleep(CRD_POLL_MS);
  }
  const servedMs = performance.now() - began;
  const listed = await admin.request({ method: 'GET', path: `${discovery}/namespaces/default/${CRD_PLURAL}` });
  if (listed.status !== 200)
    throw new Error(
      `CRD in discovery but its LIST answered ${listed.status}: ${listed.body.toString('utf8').slice(0, 300)}`,
    );
  return servedMs;
}

function listsWidgets(body: Buffer): boolean {
  const list = JSON.parse(body.toString('utf8')) as { resources?: { name?: string }[] };
  return (list.resources ?? []).some((resource) => resource.name === CRD_PLURAL);
}

/** A namespaced CRD with a structural schema, as an operator's test suite installs. */
function widgetCrd(): object {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${CRD_PLURAL}.${CRD_GROUP}` },
    spec: {
      group: CRD_GROUP,
      scope: 'Namespaced',
      names: { plural: CRD_PLURAL, singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
      versions: [
        {
          name: CRD_VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  properties: { replicas: { type: 'integer', minimum: 0 }, image: { type: 'string' } },
                  required: ['image'],
                },
                status: { type: 'object', properties: { ready: { type: 'integer' } } },
              },
            },
          },
        },
      ],
    },
  };
}

interface Row {
  readonly metric: string;
  readonly reference: number;
  readonly capstan: number;
  /** The goal and whether capstan meets it; absent for a row shown for context. */
  readonly goal?: { readonly text: string; readonly met: boolean };
}

function comparisonRows(reference: Samples, capstan: Samples): ComparisonRow[] {
  const low = (values: readonly number[]) => (values.length === 0 ? Number.NaN : Math.min(...values));
  const high = (values: readonly number[]) => (values.length === 0 ? Number.NaN : Math.max(...values));
  const med = (values: readonly number[]) => (values.length === 0 ? Number.NaN : median(values));
  const starts = (samples: Samples) => `${samples.readyMs.length}`;
  const suiteSeconds = (samples: Samples) => (samples.suite?.wallMs ?? Number.NaN) / 1000;
  const allPassed = (samples: Samples) =>
    samples.suite !== undefined && samples.suite.exitCode === 0 && samples.suite.passed === samples.suite.total;
  const rows: Row[] = [
    {
      metric: '`kube-apiserver --help` (envtest runs it first), median, ms',
      reference: med(reference.helpMs),
      capstan: med(capstan.helpMs),
    },
    {
      metric: 'spawn to /healthz 200 (100 ms polls), median, ms',
      reference: med(reference.healthyMs),
      capstan: med(capstan.healthyMs),
    },
    {
      metric: `spawn to ready (then namespaces/default), median of ${starts(reference)}/${starts(capstan)}, ms`,
      reference: med(reference.readyMs),
      capstan: med(capstan.readyMs),
      goal: { text: '< 500 ms', met: med(capstan.readyMs) < 500 },
    },
    { metric: 'spawn to ready, fastest, ms', reference: low(reference.readyMs), capstan: low(capstan.readyMs) },
    { metric: 'spawn to ready, slowest, ms', reference: high(reference.readyMs), capstan: high(capstan.readyMs) },
    {
      metric: 'server CPU by ready, median, ms',
      reference: med(reference.readyCpuMs),
      capstan: med(capstan.readyCpuMs),
    },
    {
      metric: `CRD create to served in discovery (${CRD_POLL_MS} ms polls), median, ms`,
      reference: med(reference.crdMs),
      capstan: med(capstan.crdMs),
      goal: { text: '< 100 ms', met: med(capstan.crdMs) < 100 },
    },
    { metric: 'CRD served, fastest, ms', reference: low(reference.crdMs), capstan: low(capstan.crdMs) },
    { metric: 'CRD served, slowest, ms', reference: high(reference.crdMs), capstan: high(capstan.crdMs) },
    { metric: 'stop (SIGTERM to exit), median, ms', reference: med(reference.stopMs), capstan: med(capstan.stopMs) },
    {
      metric: 'pkg/envtest suite wall time, s',
      reference: suiteSeconds(reference),
      capstan: suiteSeconds(capstan),
      goal: {
        text: '≥ 2× faster, all specs passed',
        met: allPassed(capstan) && suiteSeconds(capstan) * 2 <= suiteSeconds(reference),
      },
    },
    {
      metric: `pkg/envtest specs passed (of ${reference.suite?.total ?? capstan.suite?.total ?? '?'})`,
      reference: reference.suite?.passed ?? Number.NaN,
      capstan: capstan.suite?.passed ?? Number.NaN,
    },
  ];
  return rows.map((row) => ({
    metric: row.metric,
    values: [row.reference, row.capstan],
    ratio: row.capstan / row.reference,
    goal:
      row.goal === undefined
        ? '—'
        : `${row.goal.text}: ${row.goal.met ? 'met' : Number.isNaN(row.capstan) ? 'not met (no figure)' : 'not met'}`,
  }));
}
