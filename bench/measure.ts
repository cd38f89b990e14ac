/**
 * Bounded measuring loops and the statistics the benchmarks report. Every loop stops at a
 * count and at a deadline, whichever comes first, so a slow backend makes a run shorter in
 * samples, never longer in time.
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

export interface Throughput {
  readonly operations: number;
  readonly elapsedMs: number;
  readonly perSecond: number;
}

/**
 * Runs `operation(0)`, `operation(1)`, ... with `concurrency` of them in flight until
 * `maxOperations` have started or `maxMs` has passed.
 */
export async function measureThroughput(options: {
  operation: (index: number) => Promise<unknown>;
  concurrency: number;
  maxOperations: number;
  maxMs: number;
}): Promise<Throughput> {
  const { operation, concurrency, maxOperations, maxMs } = options;
  let started = 0;
  let completed = 0;
  const begin = performance.now();
  const deadline = begin + maxMs;
  const worker = async () => {
    while (started < maxOperations && performance.now() < deadline) {
      await operation(started++);
      completed++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsedMs = performance.now() - begin;
  return { operations: completed, elapsedMs, perSecond: (completed / elapsedMs) * 1000 };
}

/** Durations (ms) of `run`, one after another, at most `runs` times and until `maxMs` has passed. */
export async function timeRuns(options: {
  run: () => Promise<unknown>;
  runs: number;
  maxMs: number;
}): Promise<number[]> {
  const durations: number[] = [];
  const deadline = performance.now() + options.maxMs;
  while (durations.length < options.runs && performance.now() < deadline) {
    const begin = performance.now();
    await options.run();
    durations.push(performance.now() - begin);
  }
  return durations;
}

/** The nearest-rank percentile (0 < p ≤ 100) of `values`; NaN when there are none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

export interface MemoryUsage {
  readonly rssBytes: number;
  readonly heapUsedBytes: number;
}

/**
 * Memory after a full collection, when the process runs with `--expose-gc` (undefined
 * otherwise: without a collection the figures mostly measure garbage).
 */
export function settledMemory(): MemoryUsage | undefined {
  const collect = globalThis.gc;
  if (collect === undefined) return undefined;
  // A second pass collects what the first one's finalizers released.
  collect();
  collect();
  const usage = process.memoryUsage();
  return { rssBytes: usage.rss, heapUsedBytes: usage.heapUsed };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** User + system CPU time of a process so far (Linux /proc), in ms. */
export function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Linux's USER_HZ, the unit of those fields, is 100 on every architecture Node runs on.
  const ticksPerSecond = 100;
  return ((Number(fields[11]) + Number(fields[12])) / ticksPerSecond) * 1000;
}

/** A process's resident memory (Linux /proc), in MiB: all of it, and the anonymous and file-backed parts. */
export interface ResidentMemory {
  readonly rssMiB: number;
  /** The heap, stacks and the like: what the process allocated. */
  readonly anonymousMiB: number;
  /** Pages of mapped files, mostly the node binary's code and data, shared with other node processes. */
  readonly fileMiB: number;
}

export function residentMemory(pid: number): ResidentMemory {
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(rollup)?.[1] ?? Number.NaN);
  const rss = kib('Rss');
  const anonymous = kib('Anonymous');
  return { rssMiB: rss / 1024, anonymousMiB: anonymous / 1024, fileMiB: (rss - anonymous) / 1024 };
}

/** The most a process has held resident since it started (Linux /proc's high-water mark), in MiB. */
export function peakResidentMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1] ?? Number.NaN) / 1024;
}
