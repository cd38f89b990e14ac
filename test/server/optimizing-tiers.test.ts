/**
 * V8's optimizing compilers stay off until the process has been busy for a second
 * (server/optimizing-tiers.ts). Whether a function was optimized is read in a child process
 * with V8's natives syntax (%GetOptimizationStatus), which the test runner's own process lacks.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { busyStreakMs, operatorChoosesTiers, timeToOptimize } from '../../server/optimizing-tiers';
import { ensureBuilt, ROOT } from '../helpers/capstan-process';

/** V8's OptimizationStatus bits (src/runtime/runtime.h) for code from Maglev and TurboFan. */
const MAGLEVVED = 1 << 5;
const TURBOFANNED = 1 << 6;

/**
 * Runs a hot function in a child that holds the tiers, for `busyMs` in slices that let timers
 * run, and answers whether V8 had optimized it by then.
 */
function optimizedAfterBusy(busyMs: number, nodeArguments: readonly string[] = []): boolean {
  const script = `
    const { holdOptimizingTiersUntilBusy } = require(${JSON.stringify(join(ROOT, 'dist', 'server', 'optimizing-tiers.js'))});
    holdOptimizingTiersUntilBusy();
    function hot(x) { let sum = 0; for (let i = 0; i < 50; i++) sum += (i * x) % 7; return sum; }
    const end = performance.now() + ${busyMs};
    let total = 0;
    (function slice() {
      const sliceEnd = Math.min(end, performance.now() + 20);
      while (performance.now() < sliceEnd) for (let i = 0; i < 1000; i++) total += hot(i);
      if (performance.now() < end) return setImmediate(slice);
      process.stdout.write(String(%GetOptimizationStatus(hot)));
    })();
  `;
  const child = spawnSync(process.execPath, ['--allow-natives-syntax', ...nodeArguments, '-e', script], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  if (child.status !== 0) throw new Error(`child failed (${child.status}): ${child.stderr}`);
  return (Number(child.stdout) & (MAGLEVVED | TURBOFANNED)) !== 0;
}

describe('holdOptimizingTiersUntilBusy', () => {
  beforeAll(() => ensureBuilt());

  it('keeps a hot function out of Maglev and TurboFan while the process has been busy under a second', () => {
    expect(optimizedAfterBusy(400)).toBe(false);
  });

  it('lets V8 optimize once the process has been busy for a second', () => {
    expect(optimizedAfterBusy(2_500)).toBe(true);
  });

  it('leaves the tiers alone when the operator chose them', () => {
    expect(optimizedAfterBusy(400, ['--turbofan'])).toBe(true);
  });
});

describe('operatorChoosesTiers', () => {
  it.each([
    [['--turbofan'], undefined],
    [['--no-maglev'], undefined],
    [['--max-opt=2'], undefined],
    [['--no_turbofan'], undefined],
    [[], '--max-old-space-size=512 --no-opt'],
  ])('sees the choice in %j and NODE_OPTIONS %j', (execArgv, nodeOptions) => {
    expect(operatorChoosesTiers(execArgv, nodeOptions)).toBe(true);
  });

  it.each([
    [['--max-semi-space-size=16', '--turbo-inlining'], undefined],
    [['--allow-natives-syntax'], '--max-old-space-size=512'],
  ])('finds none in %j and NODE_OPTIONS %j', (execArgv, nodeOptions) => {
    expect(operatorChoosesTiers(execArgv, nodeOptions)).toBe(false);
  });
});

describe('busyStreakMs', () => {
  it('adds a window in which the process used at least half a core', () => {
    expect(busyStreakMs(500, { cpuMicros: 125_000, wallMs: 250 })).toBe(750);
  });

  it('counts a window the event loop was held past its length as busy for all of it', () => {
    expect(busyStreakMs(0, { cpuMicros: 410_000, wallMs: 409 })).toBe(409);
  });

  it('starts again after a window under half a core', () => {
    expect(busyStreakMs(750, { cpuMicros: 100_000, wallMs: 250 })).toBe(0);
  });
});

describe('timeToOptimize', () => {
  const MiB = 1 << 20;

  it('waits while the process has been busy under a second and the heap is small', () => {
    expect(timeToOptimize({ busyStreakMs: 750, heapUsedBytes: 32 * MiB })).toBe(false);
  });

  it('optimizes after a busy second', () => {
    expect(timeToOptimize({ busyStreakMs: 1_000, heapUsedBytes: 20 * MiB })).toBe(true);
  });

  it('optimizes once the heap holds more than an empty start grows it to, as a large store does', () => {
    expect(timeToOptimize({ busyStreakMs: 0, heapUsedBytes: 51 * MiB })).toBe(true);
  });
});
