/**
 * What the store's client costs by itself, in a fresh child process (the benchmark process has
 * loaded and run everything else, so its RSS says nothing about one client): the process's RSS
 * once the store is open and idle, then the CPU time of a sequential run of single-key reads
 * (one Range each) and of updates (one Txn each), per call. CPU is the child's own
 * (`process.cpuUsage`, user + system), so the store server's work is not in it.
 *
 * This file is both the parent's function and the child's entry point (run with --expose-gc).
 */
import { settledMemory, sleep } from './measure';
import { answerProbe, runProbe } from './child-probe';
import { openStoreAt, type StoreAddress } from './storage-backends';

export interface StoreClientCosts {
  /** RSS of a process that opened the store and did nothing else, after GC. */
  readonly idleRssBytes: number;
  readonly idleHeapUsedBytes: number;
  readonly cpuMicrosPerRead: number;
  readonly cpuMicrosPerUpdate: number;
  readonly reads: number;
  readonly updates: number;
}

const CHILD_TIMEOUT_MS = 60_000;
const READS = 5_000;
const UPDATES = 2_000;
/** Calls before each measured run, so the figures are of warm (optimised) code. */
const WARM_UP_CALLS = 500;
const MAX_RUN_MS = 15_000;
const KEY = '/registry/bench-client/key';

export function measureStoreClientCosts(address: StoreAddress): Promise<StoreClientCosts> {
  return runProbe<StoreAddress, StoreClientCosts>(__filename, address, {
    name: 'the store client probe',
    timeoutMs: CHILD_TIMEOUT_MS,
  });
}

/** CPU µs per call of `count` sequential calls (fewer when the time bound ends the run first). */
async function cpuPerCall(
  count: number,
  call: (index: number) => Promise<unknown>,
): Promise<{ micros: number; calls: number }> {
  for (let i = 0; i < WARM_UP_CALLS; i++) await call(i);
  const started = Date.now();
  const before = process.cpuUsage();
  let calls = 0;
  while (calls < count && Date.now() - started < MAX_RUN_MS) await call(calls++);
  const used = process.cpuUsage(before);
  return { micros: (used.user + used.system) / calls, calls };
}

async function probe(address: StoreAddress): Promise<StoreClientCosts> {
  const store = await openStoreAt(address);
  try {
    // Idle: let start-up work (lazy compilation, first connections) finish before settling.
    await sleep(1_000);
    const idle = settledMemory();
    if (idle === undefined) throw new Error('no gc(): run with --expose-gc');
    const created = await store.create(KEY, Buffer.from('0'));
    let modRevision = created.succeeded ? created.revision : created.kv!.modRevision;
    const reads = await cpuPerCall(READS, () => store.get(KEY));
    const updates = await cpuPerCall(UPDATES, async (index) => {
      const result = await store.update(KEY, Buffer.from(String(index)), modRevision);
      if (!result.succeeded) throw new Error('the benchmark key was changed by someone else');
      modRevision = result.revision;
    });
    return {
      idleRssBytes: idle.rssBytes,
      idleHeapUsedBytes: idle.heapUsedBytes,
      cpuMicrosPerRead: reads.micros,
      cpuMicrosPerUpdate: updates.micros,
      reads: reads.calls,
      updates: updates.calls,
    };
  } finally {
    await store.close();
  }
}

if (require.main === module) answerProbe(probe);
