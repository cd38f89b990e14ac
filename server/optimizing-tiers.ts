/**
 * Keeps V8's optimizing compilers off until the process has been busy for a while.
 *
 * V8 runs a function in its interpreter and baseline compiler (Sparkplug) first and hands it to
 * Maglev, then TurboFan, once it is hot. Those two compilers are megabytes of the node binary's
 * machine code, and every page of it that a compile touches stays in the process's RSS for the
 * process's life (clean file pages, which Node has no way to give back); their working memory
 * comes from malloc. A start runs enough hot loops (decoding the store's first lists, writing
 * the bootstrap objects) for both to compile, and an idle server then keeps their pages for
 * nothing. Measured 10 s after an empty start on SQLite: RSS 84 MiB with the compilers used at
 * start, 75 without (the binary's pages 53 → 46 MiB, anonymous memory 30 → 29).
 *
 * So they are turned off before the server's code is compiled, and on for good once the process
 * has used at least half a core for a second in a row, which a load does within its first second
 * while an empty start (0.6-0.9 s busy) and an idle server's timers (about 1% of a core) do not;
 * or once V8's heap holds more than 48 MiB (an empty start peaks at 32), as it does within the
 * first second of a start on a large store, when the compilers pay for themselves at once and
 * their few MiB are a small share of the process. With 50,000 objects on SQLite, starting with
 * the compilers held until the busy second was about 100 ms slower to ready than with them on
 * (medians of six restarts, 1,578 against 1,476 ms); with the heap rule, 1,437.
 *
 * An operator who chooses the tiers (those flags on the command line or in NODE_OPTIONS) is
 * left alone. V8 accepts a code cache only under the flags it was made with, so the loader
 * takes its cache only while the compilers are still off (bundled-main.ts).
 */
import { performance } from 'node:perf_hooks';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';

/** How often the process's CPU time and heap are looked at. */
const WINDOW_MS = 250;
/** A window is busy when the process used at least this share of a core in it. */
const BUSY_CPU_SHARE = 0.5;
/** Busy time in a row after which the optimizing compilers are turned on. */
const BUSY_MS_BEFORE_OPTIMIZING = 1_000;
/** V8's heap in use beyond which the optimizing compilers are turned on. */
const HEAP_USED_BEFORE_OPTIMIZING_BYTES = 48 << 20;

/** The V8 flags that choose the tiers; an operator who sets any of them keeps their choice. */
const TIER_FLAG = /(^|\s)--(no-)?(maglev|turbofan|opt|max-opt)(=|\s|$)/;

/** Whether the operator chose V8's tiers: in Node's own arguments or NODE_OPTIONS. */
export function operatorChoosesTiers(execArgv: readonly string[], nodeOptions: string | undefined): boolean {
  return [...execArgv, nodeOptions ?? ''].some((argument) => TIER_FLAG.test(argument.replaceAll('_', '-')));
}

/**
 * How long the process has been busy in a row after a window of `wallMs` in which it used
 * `cpuMicros` of CPU, given how long it had been before.
 */
export function busyStreakMs(previousMs: number, window: { cpuMicros: number; wallMs: number }): number {
  return window.cpuMicros >= window.wallMs * 1000 * BUSY_CPU_SHARE ? previousMs + window.wallMs : 0;
}

/** Whether to turn the optimizing compilers on: after a busy second, or with a large heap. */
export function timeToOptimize(state: { busyStreakMs: number; heapUsedBytes: number }): boolean {
  return state.busyStreakMs >= BUSY_MS_BEFORE_OPTIMIZING || state.heapUsedBytes > HEAP_USED_BEFORE_OPTIMIZING_BYTES;
}

/** Whether the watch has begun (it begins once a process), and whether the compilers are off. */
let watching = false;
let held = false;

/** Whether the optimizing compilers are held off at this moment. */
export function optimizingTiersHeld(): boolean {
  return held;
}

function setOptimizingTiers(on: boolean): void {
  const prefix = on ? '--' : '--no-';
  setFlagsFromString(`${prefix}maglev`);
  setFlagsFromString(`${prefix}turbofan`);
}

function cpuMicros(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

/**
 * Turns the optimizing compilers off, and on again once timeToOptimize says so; nothing when the operator chose the tiers, or on a second call.
 * Called first thing, before the server's code is compiled. The timer does not keep the
 * process alive.
 */
export function holdOptimizingTiersUntilBusy(
  options: { execArgv?: readonly string[]; nodeOptions?: string | undefined } = {},
): void {
  if (watching) return;
  watching = true;
  if (operatorChoosesTiers(options.execArgv ?? process.execArgv, options.nodeOptions ?? process.env.NODE_OPTIONS))
    return;
  held = true;
  setOptimizingTiers(false);
  let lastCpu = cpuMicros();
  let lastAt = performance.now();
  let streakMs = 0;
  const timer = setInterval(() => {
    const cpu = cpuMicros();
    const now = performance.now();
    streakMs = busyStreakMs(streakMs, { cpuMicros: cpu - lastCpu, wallMs: now - lastAt });
    lastCpu = cpu;
    lastAt = now;
    if (!timeToOptimize({ busyStreakMs: streakMs, heapUsedBytes: getHeapStatistics().used_heap_size })) return;
    clearInterval(timer);
    setOptimizingTiers(true);
    held = false;
  }, WINDOW_MS);
  timer.unref();
}
