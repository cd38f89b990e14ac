/**
 * Start with data, side by side: the row "start to /readyz, 100,000 objects" of side-by-side.ts
 * alone, so it can be measured in a few minutes and often. One etcd holds the objects twice,
 * under capstan's prefix and the reference's (the same bytes, copied key by key); capstan on
 * SQLite gets its own copy through its API. Then each server is restarted `--runs` times,
 * taking turns, and timed from spawn to `/readyz` 200; the medians are compared.
 *
 * What "ready" waits for is the same on both: the reference's `storage-readiness` post-start
 * hook holds `/readyz` until every resource's watch cache has its initial list, as capstan's
 * `informer-sync` check does.
 *
 * The objects are those of the side-by-side run: pods (2.4 KB) in `bench` and ConfigMaps (a
 * label and 220 bytes of data) in `fill`, created through the API, so they carry what a server
 * stores (defaults, managed fields). Servers pinned to CPU 0, this process and etcd to CPU 1.
 *
 * Not in CI: it needs the reference binary. `npm run bench -- start-with-data`.
 */
import type { Benchmark, ComparisonRow, ResultRow } from './benchmark';
import {
  type Contender,
  expectStatus,
  LOAD_CPU,
  medianRestart,
  REFERENCE_ETCD_PREFIX,
  type RestartTimes,
  SERVER_CPU,
  timedRestarts,
  withContenders,
} from './contenders';
import { benchConfigMapRequest } from './configmap';
import { httpsTarget, type HttpsTarget } from './https-client';
import { measureThroughput } from './measure';
import { benchPodRequest } from './pod';
import { referenceBinary, referenceVersion } from './reference-process';
import { ETCD_BACKEND } from './storage-backends';
import type { RevisionedStore } from '../storage/store';

const FILL_CONCURRENCY = 32;
const COPY_PAGE = 1_000;
const CAPSTAN_ETCD_PREFIX = '/registry';
/** What the fill creates, as keys under a server's prefix: copied to the reference's. */
const FILLED_KEY_PREFIXES = ['/namespaces/bench', '/namespaces/fill', '/pods/bench/', '/configmaps/fill/'];

export const startWithDataBenchmark: Benchmark = {
  name: 'start-with-data',
  description:
    'spawn to /readyz with objects stored: the reference, capstan on etcd and capstan on SQLite restarted in turn',
  parameters: [
    { name: 'objects', description: 'objects stored in all', defaultValue: 100_000, minimum: 1 },
    { name: 'pods', description: 'of them pods, the rest ConfigMaps', defaultValue: 10_000, minimum: 0 },
    { name: 'runs', description: 'restarts of each server', defaultValue: 5, minimum: 1 },
  ],
  run: async (context) => {
    const { objects, pods, runs } = context.parameters;
    if (pods > objects) throw new Error(`--pods ${pods} is more than --objects ${objects}`);
    const binary = referenceBinary(context.log);
    await withContenders(binary, context.log, async ({ all, etcd }) => {
      const [, onEtcd, onSqlite] = all;
      for (const capstan of [onEtcd, onSqlite]) {
        context.log(`${capstan.label}: creating ${pods} pods and ${objects - pods} ConfigMaps`);
        await fill(capstan, { pods, configMaps: objects - pods });
      }
      context.log('copying them to the reference');
      const copied = await copyKeys(etcd.store, { from: CAPSTAN_ETCD_PREFIX, to: REFERENCE_ETCD_PREFIX });
      context.log(`copied ${copied} keys`);

      const restarts = await timedRestarts(all, { runs, log: context.log });
      context.compare({
        title:
          `Start with ${objects.toLocaleString('en-US')} objects (${pods.toLocaleString('en-US')} pods), ${new Date().toISOString().slice(0, 10)}: ` +
          `${referenceVersion(binary)} and capstan, ${ETCD_BACKEND.describe()}; servers on CPU ${SERVER_CPU}, load on CPU ${LOAD_CPU}; ` +
          `${runs} restarts each, in turn`,
        columns: all.map((contender) => contender.label),
        rows: comparisonRows(all, restarts),
      });
      context.report({ title: 'Each restart', rows: runRows(all, restarts) });
    });
  },
};

/** Creates the namespaces and objects through the contender's API. */
async function fill(contender: Contender, counts: { pods: number; configMaps: number }): Promise<void> {
  const target = httpsTarget({
    url: contender.url(),
    credentials: contender.credentials,
    maxSockets: FILL_CONCURRENCY,
  });
  try {
    for (const name of ['bench', 'fill'])
      await expectStatus(
        target,
        {
          method: 'POST',
          path: '/api/v1/namespaces',
          body: Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } })),
        },
        201,
      );
    await createAll(target, counts.pods, (index) => ({
      method: 'POST',
      path: '/api/v1/namespaces/bench/pods',
      body: benchPodRequest({ namespace: 'bench', name: `pod-${index}`, index }),
    }));
    await createAll(target, counts.configMaps, (index) => ({
      method: 'POST',
      path: '/api/v1/namespaces/fill/configmaps',
      body: benchConfigMapRequest({ name: `fill-${index}`, index }),
    }));
  } finally {
    target.close();
  }
}

async function createAll(
  target: HttpsTarget,
  count: number,
  call: (index: number) => Parameters<HttpsTarget['request']>[0],
): Promise<void> {
  const created = await measureThroughput({
    operation: (index) => expectStatus(target, call(index), 201),
    concurrency: FILL_CONCURRENCY,
    maxOperations: count,
    maxMs: 30 * 60_000,
  });
  if (created.operations < count) throw new Error(`only ${created.operations} of ${count} objects created`);
}

/** Copies the filled keys under `from` to the same keys under `to`, values as they are; answers how many. */
async function copyKeys(store: RevisionedStore, prefixes: { from: string; to: string }): Promise<number> {
  let copied = 0;
  for (const keyPrefix of FILLED_KEY_PREFIXES) {
    const prefix = `${prefixes.from}${keyPrefix}`;
    let startKey = prefix;
    for (;;) {
      const page = await store.range({ prefix, startKey, limit: COPY_PAGE });
      await Promise.all(
        page.kvs.map((kv) => store.create(`${prefixes.to}${kv.key.slice(prefixes.from.length)}`, kv.value)),
      );
      copied += page.kvs.length;
      if (page.remaining === 0 || page.kvs.length === 0) break;
      startKey = `${page.kvs[page.kvs.length - 1].key}\u0000`;
    }
  }
  return copied;
}

function comparisonRows(contenders: readonly Contender[], restarts: Map<string, RestartTimes>): ComparisonRow[] {
  const medians = contenders.map((contender) => medianRestart(restarts.get(contender.label)!));
  const [reference, onEtcd, onSqlite] = medians;
  const ratioRow = (metric: string, figure: 'wallMs' | 'cpuMs'): ComparisonRow => {
    const ratio = onEtcd[figure] / reference[figure];
    const sqliteRatio = onSqlite[figure] / reference[figure];
    const met = ratio <= 0.5 && sqliteRatio <= 0.5;
    return {
      metric,
      values: medians.map((median) => median[figure]),
      ratio,
      goal: `≤ ½ on both (SQLite ${sqliteRatio.toFixed(2)}×): ${met ? 'met' : 'not met'}`,
    };
  };
  return [ratioRow('spawn to /readyz 200, median, ms', 'wallMs'), ratioRow('server CPU by ready, median, ms', 'cpuMs')];
}

/** Every restart's figures, for the spread the medians hide. */
function runRows(contenders: readonly Contender[], restarts: Map<string, RestartTimes>): ResultRow[] {
  return contenders.map((contender) => {
    const { wallMs, cpuMs } = restarts.get(contender.label)!;
    return {
      metric: `${contender.label}: spawn to /readyz 200, median`,
      value: medianRestart({ wallMs, cpuMs }).wallMs,
      unit: 'ms',
      note: `each run ${wallMs.map(Math.round).join(', ')} ms; CPU ${cpuMs.map(Math.round).join(', ')} ms`,
    };
  });
}
