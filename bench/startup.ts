/**
 * Start with data: the time from spawning the server to its first `/readyz` 200, on SQLite,
 * with an empty store and with 50,000 pods written beforehand straight into the store file (as
 * a restart finds them). Readiness waits for every watch cache's first list; before a cache
 * is ready the built-in controllers wait too, so the objects are read once.
 * Both starts generate the server's certificates (a fresh data dir each), so the difference
 * between the two rows is what the data costs.
 */
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { openSqliteStore } from '../storage/sqlite/sqlite-store';
import type { Benchmark, BenchmarkContext } from './benchmark';
import { startCapstanProcess } from './capstan-process';
import { processCpuMs } from './measure';
import { benchPod } from './pod';
import { scratchDir, type ScratchDir } from './scratch';

const PODS = 50_000;
const NAMESPACE = 'default';

export const startupBenchmark: Benchmark = {
  name: 'startup',
  description: `start to /readyz on SQLite, empty and with ${PODS.toLocaleString('en-US')} pods stored`,
  run: async (context) => {
    const empty = await timedStart(context, scratchDir({ prefix: 'capstan-bench-startup-', inMemory: false }));
    context.log(`writing ${PODS} pods into the store file`);
    const filled = await filledDataDir(PODS);
    const withPods = await timedStart(context, filled);
    context.report({
      title: 'capstan on embedded SQLite: spawn to first /readyz 200',
      rows: [
        { metric: 'empty store', value: Math.round(empty.wallMs), unit: 'ms', note: `server CPU ${Math.round(empty.cpuMs)} ms; certificates generated` },
        {
          metric: `${PODS.toLocaleString('en-US')} pods stored`,
          value: Math.round(withPods.wallMs),
          unit: 'ms',
          note: `server CPU ${Math.round(withPods.cpuMs)} ms; certificates generated; 2.4 KB pods`,
        },
      ],
    });
  },
};

/** Wall time to ready, and the server's CPU time by then (the steadier figure on a shared machine). */
async function timedStart(context: BenchmarkContext, dataDir: ScratchDir): Promise<{ wallMs: number; cpuMs: number }> {
  context.log('starting');
  const began = performance.now();
  // Resolves once /readyz answers 200 (polled every 50 ms).
  const server = await startCapstanProcess({ dataDir });
  const wallMs = performance.now() - began;
  const cpuMs = processCpuMs(server.pid);
  await server.stop();
  return { wallMs, cpuMs };
}

async function filledDataDir(count: number): Promise<ScratchDir> {
  const dataDir = scratchDir({ prefix: 'capstan-bench-startup-', inMemory: false });
  // The server's own file name and key layout (server/control-plane.ts, --etcd-prefix /registry).
  const store = await openSqliteStore({ path: join(dataDir.path, 'capstan.db') });
  try {
    for (let index = 0; index < count; index++) {
      const pod = benchPod({ namespace: NAMESPACE, name: `pod-${index}`, index });
      // No owner: the garbage collector would delete pods of a missing ReplicaSet.
      const { resourceVersion: _stored, ownerReferences: _owners, ...metadata } = pod.metadata;
      await store.create(`/registry/pods/${NAMESPACE}/pod-${index}`, Buffer.from(JSON.stringify({ ...pod, metadata })));
    }
  } finally {
    await store.close();
  }
  return dataDir;
}
