/**
 * The default admission chain's cost per write where nothing applies, in process: a ConfigMap
 * create through both phases of every plugin a server enables by default, with no webhook,
 * admission policy or quota configured. What remains is the chain's own work: each plugin
 * deciding the write is not its concern, and the lookups the chain cannot skip (the namespace,
 * and whether any webhook, policy binding or quota exists), read from the watch caches as a
 * request's are. The control plane is the server's own (embedded store, watch caches); no HTTP.
 * Each figure is the median of several timed rounds, so one busy moment on a shared machine
 * does not move it.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { KubeObject } from '../api/objects';
import type { Admission, AdmissionAttributes } from '../server/admission/types';
import { parseFlags } from '../server/config/flags';
import { startControlPlane, type ControlPlane } from '../server/control-plane';
import { WarningList } from '../server/request/warning-recorder';
import type { Benchmark, ResultRow } from './benchmark';
import { scratchDir } from './scratch';

const ROUNDS = 7;
const WRITES_PER_ROUND = 20_000;
/**
 * Distinct writes a round cycles through, made beforehand: a round of fresh ones would time the
 * collection of their garbage too, which is the request's cost, not the chain's. Nothing
 * applies, so no plugin changes them.
 */
const DISTINCT_WRITES = 64;
const NAMESPACE = 'bench';
const CACHE_READY_TIMEOUT_MS = 10_000;

/** A ConfigMap create's admission attributes as the store makes them, a new uid each. */
function configMapCreate(index: number): AdmissionAttributes {
  const name = `cm-${index}`;
  const object: KubeObject = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name,
      namespace: NAMESPACE,
      uid: randomUUID(),
      creationTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      labels: { app: 'bench' },
    },
    data: { index: String(index), note: 'x'.repeat(200) },
  };
  const core = { group: '', version: 'v1' };
  return {
    uid: randomUUID(),
    kind: { ...core, kind: 'ConfigMap' },
    resource: { ...core, resource: 'configmaps' },
    subResource: '',
    requestKind: { ...core, kind: 'ConfigMap' },
    requestResource: { ...core, resource: 'configmaps' },
    requestSubResource: '',
    name,
    namespace: NAMESPACE,
    operation: 'CREATE',
    options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' },
    userInfo: { name: 'system:admin', groups: ['system:masters', 'system:authenticated'] },
    dryRun: false,
    object,
    warnings: new WarningList(),
    auditAnnotations: {},
  };
}

/** Median µs per write of both admission phases. */
async function microsecondsPerWrite(admission: Admission): Promise<number> {
  const writes = Array.from({ length: DISTINCT_WRITES }, (_, index) => configMapCreate(index));
  const rounds: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const begin = performance.now();
    for (let write = 0; write < WRITES_PER_ROUND; write++) {
      const attributes = writes[write % DISTINCT_WRITES];
      await admission.admit(attributes);
      await admission.validate(attributes);
    }
    rounds.push(((performance.now() - begin) * 1000) / WRITES_PER_ROUND);
  }
  rounds.sort((a, b) => a - b);
  return rounds[Math.floor(ROUNDS / 2)];
}

/** The control plane of a server on a new embedded store, its caches listed and the namespace in them. */
async function startPlane(dataDir: string): Promise<ControlPlane> {
  const parsed = parseFlags(['--data-dir', dataDir]);
  if (!('options' in parsed)) throw new Error('unexpected --help or --version');
  const plane = await startControlPlane(parsed.options);
  if (!(await plane.caches.whenReady(CACHE_READY_TIMEOUT_MS))) throw new Error('watch caches not ready');
  const namespaces = plane.storageFor(plane.registry.find({ group: '', version: 'v1' }, 'namespaces')!);
  await namespaces.create({ name: NAMESPACE }, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });
  const deadline = Date.now() + CACHE_READY_TIMEOUT_MS;
  for (;;) {
    try {
      await namespaces.get({ name: NAMESPACE }, { resourceVersion: '0' });
      return plane;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}

export async function measureAdmission(log: (message: string) => void): Promise<ResultRow[]> {
  const dir = scratchDir({ prefix: 'capstan-bench-admission-', inMemory: true });
  const plane = await startPlane(dir.path);
  try {
    log('timing a ConfigMap create through the default chain');
    return [
      {
        metric: 'ConfigMap create, both phases, nothing applies',
        value: await microsecondsPerWrite(plane.admission),
        unit: 'µs/write',
        note: `median of ${ROUNDS} rounds of ${WRITES_PER_ROUND}`,
      },
    ];
  } finally {
    await plane.stop();
    await dir.remove();
  }
}

export const admissionBenchmark: Benchmark = {
  name: 'admission',
  description: 'the default admission chain per write where nothing applies (in process, one core)',
  async run(context) {
    context.report({ title: 'Admission', rows: await measureAdmission((message) => context.log(message)) });
  },
};
