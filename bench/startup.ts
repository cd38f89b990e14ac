/**
 * Start with data, and idle memory: the time from spawning the server to its first `/readyz`
 * 200 with an empty store and with 50,000 pods written beforehand straight into the store (as
 * a restart finds them), on SQLite and on etcd; and the resident memory of the server started
 * on an empty store once it has settled.
 *
 * Readiness waits for every watch cache's first list; before a cache is ready the built-in
 * controllers wait too, so the objects are read once. The server listens before the lists are
 * done and answers meanwhile: "listening" says when it started to.
 *
 * Each row also gives the server's CPU time by the time it was ready, the steadier figure on a
 * shared machine (wall time there is mostly waiting for a core). The first start generates the
 * server's certificates; the starts with pods find them, as a restart does.
 */
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import type { RevisionedStore } from '../storage/store';
import type { Benchmark, BenchmarkContext, ResultRow } from './benchmark';
import { startCapstanProcess } from './capstan-process';
import { processCpuMs, residentMemory, sleep } from './measure';
import { benchPod } from './pod';
import { scratchDir, type ScratchDir } from './scratch';
import { ETCD_BACKEND, openStoreAt } from './storage-backends';

const PODS = 50_000;
const NAMESPACE = 'default';
const FILL_CONCURRENCY = 16;
// Longer than the server waits after start before it gives back start-up memory (main.ts).
const IDLE_SETTLE_MS = 6_000;

interface TimedStart {
  readonly wallMs: number;
  readonly listeningMs: number;
  readonly cpuMs: number;
}

export const startupBenchmark: Benchmark = {
  name: 'startup',
  description: `start to /readyz, empty and with ${PODS.toLocaleString('en-US')} pods stored, on SQLite and etcd; idle RSS`,
  run: async (context) => {
    const dataDir = scratchDir({ prefix: 'capstan-bench-startup-', inMemory: false });
    const rows: ResultRow[] = [];
    try {
      context.log('starting on an empty SQLite store, then idle');
      const idle = await startCapstanProcess({ dataDir, keepDataDir: true });
      await sleep(IDLE_SETTLE_MS);
      const memory = residentMemory(idle.pid);
      await idle.stop();
      rows.push({
        metric: 'RSS idle after start (empty SQLite store)',
        value: Math.round(memory.rssMiB),
        unit: 'MiB',
        note: `anonymous ${Math.round(memory.anonymousMiB)} MiB, file-backed ${Math.round(memory.fileMiB)} MiB (the node binary's pages)`,
      });
      rows.push(startRow('empty SQLite store', await timedStart(context, { dataDir })));

      context.log(`writing ${PODS} pods into the SQLite file`);
      await fill(await openStoreAt({ kind: 'sqlite', path: join(dataDir.path, 'capstan.db') }));
      rows.push(startRow(`${PODS.toLocaleString('en-US')} pods on SQLite`, await timedStart(context, { dataDir })));

      const etcd = await ETCD_BACKEND.open();
      try {
        const etcdEndpoint = etcd.address.kind === 'etcd' ? etcd.address.endpoint : '';
        context.log(`writing ${PODS} pods into etcd`);
        await fill(etcd.store);
        rows.push(
          startRow(
            `${PODS.toLocaleString('en-US')} pods on etcd`,
            await timedStart(context, { dataDir, etcdEndpoint }),
          ),
        );
      } finally {
        await etcd.close();
      }
    } finally {
      await dataDir.remove();
    }
    context.report({ title: 'capstan: spawn to first /readyz 200 (2.4 KB pods), and idle memory', rows });
  },
};

function startRow(what: string, start: TimedStart): ResultRow {
  return {
    metric: `start to /readyz, ${what}`,
    value: Math.round(start.wallMs),
    unit: 'ms',
    note: `server CPU ${Math.round(start.cpuMs)} ms; listening after ${Math.round(start.listeningMs)} ms`,
  };
}

/** Wall time to ready, when the server began to listen, and its CPU time by then. */
async function timedStart(
  context: BenchmarkContext,
  options: { dataDir: ScratchDir; etcdEndpoint?: string },
): Promise<TimedStart> {
  context.log(`starting on ${options.etcdEndpoint ? 'etcd' : 'SQLite'}`);
  const began = performance.now();
  // Resolves once /readyz answers 200 (polled every 50 ms).
  const server = await startCapstanProcess({ ...options, keepDataDir: true });
  const wallMs = performance.now() - began;
  const cpuMs = processCpuMs(server.pid);
  await server.stop();
  return { wallMs, listeningMs: server.listeningMs, cpuMs };
}

/** Writes the pods under the server's key layout (--etcd-prefix /registry), then closes the store. */
async function fill(store: RevisionedStore): Promise<void> {
  let next = 0;
  const writer = async () => {
    while (next < PODS) {
      const index = next++;
      const pod = benchPod({ namespace: NAMESPACE, name: `pod-${index}`, index });
      // No owner: the garbage collector would delete pods of a missing ReplicaSet.
      const { resourceVersion: _stored, ownerReferences: _owners, ...metadata } = pod.metadata;
      await store.create(`/registry/pods/${NAMESPACE}/pod-${index}`, Buffer.from(JSON.stringify({ ...pod, metadata })));
    }
  };
  try {
    await Promise.all(Array.from({ length: FILL_CONCURRENCY }, writer));
  } finally {
    await store.close();
  }
}
