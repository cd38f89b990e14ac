/**
 * Gives back memory the server grew into for a burst of work and no longer needs: start-up's,
 * and a load's once the server has gone quiet.
 *
 * A burst allocates fast (start-up's modules, schema tables and first lists; a load's requests),
 * so V8 grows the young generation to its maximum (32 MiB committed with the 16 MiB semi-spaces
 * bin/capstan asks for, 128 MiB with V8's own default) and grows the old generation, and keeps
 * those pages committed afterwards. V8's own memory reducer gives them back only sometimes:
 * after 8 s without a full collection, and not at all once it has run its few collections
 * (measured: 10,000 pods created and listed, then 20 quiet seconds, RSS still 392 MiB). A
 * memory-reducing full collection (V8's "last resort" collection, what a low-memory notification
 * runs) shrinks the young generation back to its minimum, compacts the old one and returns the
 * freed pages to the system.
 */
import { performance } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** V8's default number of collections a function's bytecode survives unused before it is flushed. */
const DEFAULT_BYTECODE_OLD_AGE = 6;

/** The options V8's `gc` extension takes (src/extensions/gc-extension.cc). */
interface GcOptions {
  readonly type: 'major' | 'minor';
  readonly execution: 'sync' | 'async';
  readonly flavor: 'regular' | 'last-resort';
}

/** Runs one memory-reducing full collection, synchronously: tens to hundreds of milliseconds. */
function collectReducingMemory(): void {
  // V8 offers no other way in from JavaScript: `gc` is installed on contexts made while
  // --expose-gc is set. The flag is reset at once so no other context gets it.
  setFlagsFromString('--expose-gc');
  let gc: (options: GcOptions) => void;
  try {
    gc = runInNewContext('gc') as typeof gc;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
  gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}

/** Start-up's memory, and the bytecode of what only start-up ran; once, when the server has settled. */
export function releaseStartUpMemory(): void {
  // Bytecode and baseline code of functions not run since the previous collection (start-up's
  // own: module bodies, bootstrap) are flushed by this one; they compile again if ever called.
  setFlagsFromString('--bytecode-old-age=1');
  setFlagsFromString('--flush-baseline-code');
  try {
    collectReducingMemory();
  } finally {
    setFlagsFromString(`--bytecode-old-age=${DEFAULT_BYTECODE_OLD_AGE}`);
    setFlagsFromString('--no-flush-baseline-code');
  }
}

/** How often the process's CPU time and heap are looked at. */
const CHECK_INTERVAL_MS = 2_000;
/**
 * The window start-up's release waits to see quiet. Shorter than a load's: start-up's memory is
 * given back once, and an idle server should not keep it for long; but the release stops the
 * event loop for tens of milliseconds (two back-to-back full collections of about 60 ms were
 * measured when it ran, as it once did, 3 s after the start whatever the load), so it waits for
 * a moment with no requests to stall.
 */
const START_UP_QUIET_WINDOW_MS = 500;
/** A window is quiet when the process used less CPU than this share of it. */
const QUIET_CPU_SHARE = 0.05;

/** Whether a window of `windowMs` in which the process used `cpuMicros` of CPU was quiet. */
function quietWindow(cpuMicros: number, windowMs: number): boolean {
  return cpuMicros < windowMs * 1000 * QUIET_CPU_SHARE;
}
/** Quiet windows in a row before memory is given back: a pause between requests is not the end of a load. */
const QUIET_WINDOWS = 2;
/** A young generation committed beyond this was grown by a load (its minimum is 1 MiB). */
const GROWN_YOUNG_GENERATION_BYTES = 8 << 20;
/**
 * Old-generation pages committed and unused beyond what the last release left (a compaction
 * leaves some: fragmentation) by this much are worth compacting away.
 */
const SLACK_OLD_GENERATION_BYTES = 32 << 20;
/** At most one release in this long, so a load that comes and goes costs at most three pauses a minute. */
const MIN_RELEASE_INTERVAL_MS = 20_000;
/**
 * The longest a release may stop the server. "Quiet" is under 5% of a core, which a trickle of
 * requests still is, and every request that arrives meanwhile waits for the whole collection.
 * Measured in CPU time: 250-310 ms after the side-by-side benchmark's load (80-95 MiB of old
 * generation in use: 12,000 ConfigMaps and 10,000 pods, and the LISTs' garbage), 493 ms with
 * 40,000 pods listed (151 MiB in use; a GET every 100 ms meanwhile, the slowest 460 ms). The
 * first gives back 45-110 MiB at once, the young generation and the load's garbage (without it
 * RSS stayed where the load left it for the 20 s measured, about a quarter of the reference's,
 * which had given its memory back by then); a heap as large as the second is left to V8's own
 * memory reducer, which marks incrementally: measured, the slowest GET took 13 ms, and V8's own
 * collections took the heap from 151 to 129 MiB in use within 20 s. At 300 ms the first sat on
 * the edge (the benchmark's server on SQLite predicted 309 ms and kept its memory). A stop of
 * 400 ms once after a load is still well inside the API's latency objectives (1 s for a mutating
 * or single-object request), and leaves the second out (454 ms at the assumed pace).
 */
const RELEASE_PAUSE_BUDGET_MS = 400;
/**
 * Milliseconds of CPU a release pauses per MiB of old generation in use, until one has been
 * timed (then the median of the last few, PACES_KEPT). Measured on the project's 2-core test
 * machine: 2.9-3.3 after the side-by-side's load, 3.3 with 40,000 pods listed; 3.0-4.1 on a
 * slower day of the same machine (2026-12-02: 371 ms for 91 MiB in use after the LISTs).
 */
const ASSUMED_PAUSE_MS_PER_USED_MIB = 3;
const MiB = 1 << 20;

/** The statistics a release is decided on, read from V8 and the process. */
export interface MemoryProbe {
  /** Microseconds of CPU the process has used. */
  cpuMicros(): number;
  heap(): MemoryFigures;
}

/** Committed bytes of the young generation, and committed and used bytes of the old one. */
export interface MemoryFigures {
  readonly youngCommitted: number;
  readonly oldCommitted: number;
  readonly oldUsed: number;
}

/** This process's CPU time and V8's heap spaces. */
export const processMemoryProbe: MemoryProbe = {
  cpuMicros: () => {
    const { user, system } = process.cpuUsage();
    return user + system;
  },
  heap: () => {
    const spaces = getHeapSpaceStatistics();
    const space = (name: string) => spaces.find(({ space_name }) => space_name === name);
    return {
      youngCommitted: space('new_space')?.physical_space_size ?? 0,
      oldCommitted: space('old_space')?.physical_space_size ?? 0,
      oldUsed: space('old_space')?.space_used_size ?? 0,
    };
  },
};

/**
 * Whether to give memory back now: the last windows were quiet, a load grew the heap, no
 * release ran lately, and the release would not stop the server for longer than its budget. A plain function of what was measured, so the policy is tested apart from
 * the timer.
 */
export function shouldRelease(
  state: {
    quietWindows: number;
    msSinceRelease: number;
    heap: MemoryFigures;
    slackAfterRelease: number;
    pauseMsPerUsedMiB: number;
  },
  minReleaseIntervalMs = MIN_RELEASE_INTERVAL_MS,
): boolean {
  if (state.quietWindows < QUIET_WINDOWS || state.msSinceRelease < minReleaseIntervalMs) return false;
  if (predictedReleasePauseMs(state.heap, state.pauseMsPerUsedMiB) > RELEASE_PAUSE_BUDGET_MS) return false;
  return (
    state.heap.youngCommitted > GROWN_YOUNG_GENERATION_BYTES ||
    oldSlack(state.heap) > state.slackAfterRelease + SLACK_OLD_GENERATION_BYTES
  );
}

function oldSlack(heap: MemoryFigures): number {
  return heap.oldCommitted - heap.oldUsed;
}

/** How long a release would stop the server, from the old generation in use and the last release's pace. */
export function predictedReleasePauseMs(heap: MemoryFigures, pauseMsPerUsedMiB: number): number {
  return (heap.oldUsed / MiB) * pauseMsPerUsedMiB;
}

/** Below this much in use a release's time is mostly its fixed cost, and says little of its pace. */
const PACE_MEASURED_FROM_BYTES = 32 * MiB;

/**
 * Runs a release and times it: its pace per MiB in use for the next prediction, or undefined
 * when the heap was too small to tell.
 *
 * The pause counted is the shorter of its wall-clock time and the CPU time the process used
 * meanwhile. The wall clock alone counts the time the core gave other processes: in the
 * side-by-side benchmark, whose servers share one core, a release while the other capstan was
 * under load took 300 ms for 67 MiB in use (4.5 ms a MiB, twice its own work), and the pace it
 * taught then kept every later release of that server past the budget. The CPU time alone
 * counts V8's helper threads, which shorten the pause where there are spare cores.
 */
function timedRelease(release: () => void, heapBefore: MemoryFigures, probe: MemoryProbe): number | undefined {
  const began = performance.now();
  const cpuBefore = probe.cpuMicros();
  release();
  const pauseMs = Math.min(performance.now() - began, (probe.cpuMicros() - cpuBefore) / 1000);
  return heapBefore.oldUsed < PACE_MEASURED_FROM_BYTES ? undefined : pauseMs / (heapBefore.oldUsed / MiB);
}

/**
 * How many of the last releases' paces the next one is predicted from, by their median (the
 * pace given at the start stands in for those not yet timed).
 *
 * One release's pace says as much about its moment as about the heap: in the side-by-side
 * benchmark one server's first release after its creates ran at 5.4 ms a MiB (249 ms for 46
 * MiB in use, its young generation full, the other capstan busy on the same core), its later
 * ones at 3.2-4.1. Predicted from that one figure, the 91 MiB in use after the LISTs would take
 * 493 ms, past the budget; and a release that does not run is not timed, so the figure stayed
 * and the server kept every later load's memory. Their median forgets one such figure and
 * follows two in a row.
 */
const PACES_KEPT = 3;

function predictedPace(recentPaces: readonly number[]): number {
  const sorted = [...recentPaces].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/**
 * Gives start-up's memory back (releaseStartUpMemory) at the first quiet window once `settleMs`
 * have passed, unless that would stop the server past the budget (a start on a large store),
 * then resolves with the release's pace for later predictions; a server under load from its
 * start keeps the memory until the load ends. The timers do not keep the process alive.
 */
export function releaseStartUpMemoryWhenQuiet(options: {
  settleMs: number;
  probe?: MemoryProbe;
  release?: () => void;
  windowMs?: number;
}): Promise<number> {
  const probe = options.probe ?? processMemoryProbe;
  const release = options.release ?? releaseStartUpMemory;
  const windowMs = options.windowMs ?? START_UP_QUIET_WINDOW_MS;
  return new Promise((resolve) => {
    setTimeout(() => {
      let lastCpu = probe.cpuMicros();
      const timer = setInterval(() => {
        const cpu = probe.cpuMicros();
        const quiet = quietWindow(cpu - lastCpu, windowMs);
        lastCpu = cpu;
        if (!quiet) return;
        clearInterval(timer);
        const heap = probe.heap();
        const withinBudget = predictedReleasePauseMs(heap, ASSUMED_PAUSE_MS_PER_USED_MIB) <= RELEASE_PAUSE_BUDGET_MS;
        resolve(
          withinBudget
            ? (timedRelease(release, heap, probe) ?? ASSUMED_PAUSE_MS_PER_USED_MIB)
            : ASSUMED_PAUSE_MS_PER_USED_MIB,
        );
      }, windowMs);
      timer.unref();
    }, options.settleMs).unref();
  });
}

/**
 * Watches for the end of a load and gives its memory back then; stop() ends the watch. The
 * timer does not keep the process alive.
 */
export function releaseAfterLoads(
  options: {
    probe?: MemoryProbe;
    release?: () => void;
    intervalMs?: number;
    minReleaseIntervalMs?: number;
    /** The pace of the last release timed (start-up's), for predicting the next ones' pauses until they are timed. */
    pauseMsPerUsedMiB?: number;
  } = {},
): { stop(): void } {
  const probe = options.probe ?? processMemoryProbe;
  const release = options.release ?? collectReducingMemory;
  const intervalMs = options.intervalMs ?? CHECK_INTERVAL_MS;
  let lastCpu = probe.cpuMicros();
  let quietWindows = 0;
  // Start-up's release has just run.
  let lastReleaseAt = performance.now();
  let slackAfterRelease = oldSlack(probe.heap());
  let recentPaces: number[] = Array(PACES_KEPT).fill(options.pauseMsPerUsedMiB ?? ASSUMED_PAUSE_MS_PER_USED_MIB);
  const timer = setInterval(() => {
    const cpu = probe.cpuMicros();
    quietWindows = quietWindow(cpu - lastCpu, intervalMs) ? quietWindows + 1 : 0;
    lastCpu = cpu;
    const state = {
      quietWindows,
      msSinceRelease: performance.now() - lastReleaseAt,
      heap: probe.heap(),
      slackAfterRelease,
      pauseMsPerUsedMiB: predictedPace(recentPaces),
    };
    if (!shouldRelease(state, options.minReleaseIntervalMs)) return;
    const pace = timedRelease(release, state.heap, probe);
    if (pace !== undefined) recentPaces = [...recentPaces.slice(1), pace];
    lastReleaseAt = performance.now();
    slackAfterRelease = oldSlack(probe.heap());
    quietWindows = 0;
    // The collection's own CPU is not a load.
    lastCpu = probe.cpuMicros();
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
