import { getHeapSpaceStatistics } from 'node:v8';
import { runInNewContext } from 'node:vm';
import {
  processMemoryProbe,
  releaseAfterLoads,
  releaseStartUpMemory,
  releaseStartUpMemoryWhenQuiet,
  shouldRelease,
  type MemoryFigures,
  type MemoryProbe,
} from '../../server/memory-release';
import { waitUntil } from '../helpers/wait-for';

/** Committed bytes of V8's young generation. */
function youngGenerationBytes(): number {
  const space = getHeapSpaceStatistics().find(({ space_name }) => space_name === 'new_space');
  if (!space) throw new Error('no new_space in the heap statistics');
  return space.physical_space_size;
}

/** Bytes V8 uses in one of its heap spaces. */
function spaceUsedBytes(name: string): number {
  const space = getHeapSpaceStatistics().find(({ space_name }) => space_name === name);
  if (!space) throw new Error(`no ${name} in the heap statistics`);
  return space.space_used_size;
}

/** Allocates short-lived objects fast, as start-up does, so that V8 grows the young generation. */
function allocateLikeStartUp(): number {
  let kept = 0;
  for (let round = 0; round < 200; round++) {
    const batch = Array.from({ length: 20_000 }, (_, index) => ({ index, name: `object-${round}-${index}` }));
    kept += batch.length;
  }
  return kept;
}

describe('releaseStartUpMemory', () => {
  it('shrinks the young generation that a burst of allocation grew', () => {
    allocateLikeStartUp();
    const grown = youngGenerationBytes();
    expect(grown).toBeGreaterThanOrEqual(8 * 1024 * 1024);

    releaseStartUpMemory();

    expect(youngGenerationBytes()).toBeLessThanOrEqual(grown / 4);
  });

  it('flushes the bytecode of functions run once and not since, as start-up runs its own', () => {
    // Kept alive, each compiled to its own bytecode (V8 keeps bytecode in its trusted space).
    // The space also holds whatever else this process compiled, which may or may not be flushed,
    // so the test judges only the share these functions added.
    const before = spaceUsedBytes('trusted_space');
    const functions = Array.from(
      { length: 3_000 },
      (_, index) =>
        new Function(
          `let sum = 0; for (let k = 0; k < 3; k++) sum += k * ${index}; return { sum, name: 'f${index}' };`,
        ) as () => unknown,
    );
    for (const run of functions) run();
    const compiled = spaceUsedBytes('trusted_space');

    releaseStartUpMemory();

    expect(spaceUsedBytes('trusted_space') - before).toBeLessThan((compiled - before) / 2);
    expect(functions.map((run) => run())).toHaveLength(3_000);
  });

  it('leaves gc unexposed to contexts made afterwards', () => {
    releaseStartUpMemory();
    expect(runInNewContext('typeof gc')).toBe('undefined');
  });
});

describe('shouldRelease', () => {
  const MiB = 1 << 20;
  const settled = { youngCommitted: 1 * MiB, oldCommitted: 100 * MiB, oldUsed: 95 * MiB };
  const afterLoad = { ...settled, youngCommitted: 128 * MiB };
  const fragmented = { ...settled, oldCommitted: 200 * MiB };

  it.each([
    [
      'a grown young generation after two quiet windows',
      { quietWindows: 2, msSinceRelease: 120_000, heap: afterLoad },
      true,
    ],
    [
      'old pages committed and unused after two quiet windows',
      { quietWindows: 3, msSinceRelease: 120_000, heap: fragmented },
      true,
    ],
    [
      'a grown heap after one quiet window: a pause in a load',
      { quietWindows: 1, msSinceRelease: 120_000, heap: afterLoad },
      false,
    ],
    [
      'a grown heap within 20 s of the last release',
      { quietWindows: 5, msSinceRelease: 10_000, heap: afterLoad },
      false,
    ],
    ['a settled heap, however quiet', { quietWindows: 10, msSinceRelease: 600_000, heap: settled }, false],
    [
      'old pages unused, but no more than the last release left',
      { quietWindows: 10, msSinceRelease: 600_000, heap: fragmented, slackAfterRelease: 90 * MiB },
      false,
    ],
    [
      'a grown heap whose release would stop the server for 500 ms',
      { quietWindows: 10, msSinceRelease: 600_000, heap: { ...afterLoad, oldUsed: 500 * MiB } },
      false,
    ],
    [
      'the same heap at a pace that keeps the release within 400 ms',
      { quietWindows: 10, msSinceRelease: 600_000, heap: { ...afterLoad, oldUsed: 500 * MiB }, pauseMsPerUsedMiB: 0.7 },
      true,
    ],
    [
      "the side-by-side benchmark's heap at the assumed pace: about 280 ms",
      { quietWindows: 10, msSinceRelease: 600_000, heap: { ...afterLoad, oldUsed: 93 * MiB }, pauseMsPerUsedMiB: 3 },
      true,
    ],
    [
      "the same benchmark's heap on SQLite at the pace its CPU time gave: about 310 ms",
      { quietWindows: 10, msSinceRelease: 600_000, heap: { ...afterLoad, oldUsed: 95 * MiB }, pauseMsPerUsedMiB: 3.25 },
      true,
    ],
    [
      'a heap of 40,000 pods at its measured pace: about 490 ms',
      {
        quietWindows: 10,
        msSinceRelease: 600_000,
        heap: { ...afterLoad, oldUsed: 151 * MiB },
        pauseMsPerUsedMiB: 3.27,
      },
      false,
    ],
  ])('%s', (_case, state, expected) => {
    expect(shouldRelease({ slackAfterRelease: 0, pauseMsPerUsedMiB: 1, ...state })).toBe(expected);
  });
});

/** A probe with a fixed heap that counts its reads. */
interface ScriptedProbe extends MemoryProbe {
  windows(): number;
  cpuReads(): number;
  /** Adds CPU time the process used apart from the scripted windows' (a release's). */
  spendCpuMs(ms: number): void;
}

/** A probe whose CPU time advances by each read's scripted milliseconds (then none), and by what is spent. */
function scriptedProbe(cpuMsPerWindow: number[], heap: MemoryFigures): ScriptedProbe {
  let cpuMicros = 0;
  let windows = 0;
  let cpuReads = 0;
  return {
    cpuMicros: () => {
      cpuReads++;
      return (cpuMicros += (cpuMsPerWindow.shift() ?? 0) * 1000);
    },
    spendCpuMs: (ms) => (cpuMicros += ms * 1000),
    heap: () => {
      windows++;
      return heap;
    },
    windows: () => windows,
    cpuReads: () => cpuReads,
  };
}
const grown = { youngCommitted: 64 << 20, oldCommitted: 0, oldUsed: 0 };
const until = (what: () => boolean) => waitUntil('the release watch', what, 5_000, 10);

describe('releaseStartUpMemoryWhenQuiet', () => {
  it('waits out the settle, then releases at the first quiet window, not while the server is busy', async () => {
    // The first read is the baseline; then three windows at 80% of a 50 ms window, then quiet ones.
    const probe = scriptedProbe([0, 40, 40, 40], grown);
    let releasedAtRead = 0;
    const began = performance.now();
    await releaseStartUpMemoryWhenQuiet({
      settleMs: 200,
      windowMs: 50,
      probe,
      release: () => (releasedAtRead = probe.cpuReads()),
    });
    expect(performance.now() - began).toBeGreaterThanOrEqual(200 + 4 * 50 - 5);
    // The baseline, three busy windows, the quiet one, and the read that times the release.
    expect(releasedAtRead).toBe(1 + 3 + 1 + 1);
  });

  it('releases nothing while a load lasts, and releases once it ends', async () => {
    let busy = true;
    let cpuMicros = 0;
    let reads = 0;
    const probe: MemoryProbe = {
      cpuMicros: () => {
        reads++;
        return (cpuMicros += busy ? 40_000 : 0);
      },
      heap: () => grown,
    };
    let released = false;
    const done = releaseStartUpMemoryWhenQuiet({ settleMs: 0, windowMs: 20, probe, release: () => (released = true) });
    await until(() => reads >= 10);
    expect(released).toBe(false);
    busy = false;
    await done;
    expect(released).toBe(true);
  });
});

/**
 * A release that keeps the thread busy for `ms`, as a collection stops it, and uses `cpuMs` of
 * the probe's CPU time meanwhile: all of it, unless the core was shared with other processes.
 */
function busyRelease(
  probe: ScriptedProbe,
  ms: number,
  options: { cpuMs?: number; onRelease?: () => void } = {},
): () => void {
  return () => {
    options.onRelease?.();
    const until = performance.now() + ms;
    while (performance.now() < until);
    probe.spendCpuMs(options.cpuMs ?? ms);
  };
}

/** How many releases a load watch on `probe` runs over its baseline read and six 20 ms windows. */
async function releasesOverSixWindows(probe: ScriptedProbe, minReleaseIntervalMs: number): Promise<number> {
  let releases = 0;
  const watch = releaseAfterLoads({ probe, release: () => releases++, intervalMs: 20, minReleaseIntervalMs });
  try {
    await until(() => probe.windows() >= 1 + 6);
  } finally {
    watch.stop();
  }
  return releases;
}

describe('the pause budget', () => {
  const MiB = 1 << 20;

  it('skips start-up release of a heap too large to collect within 400 ms, at the assumed pace', async () => {
    let released = false;
    const pace = await releaseStartUpMemoryWhenQuiet({
      settleMs: 0,
      windowMs: 20,
      probe: scriptedProbe([], { youngCommitted: 64 * MiB, oldCommitted: 500 * MiB, oldUsed: 400 * MiB }),
      release: () => (released = true),
    });
    expect(released).toBe(false);
    expect(pace).toBe(3);
  });

  it('leaves a heap of 40,000 pods (151 MiB in use, 493 ms of CPU measured) to V8, before any release was timed', async () => {
    const heap = { youngCommitted: 64 * MiB, oldCommitted: 160 * MiB, oldUsed: 151 * MiB };
    let releasedAtStartUp = false;
    const pace = await releaseStartUpMemoryWhenQuiet({
      settleMs: 0,
      windowMs: 20,
      probe: scriptedProbe([], heap),
      release: () => (releasedAtStartUp = true),
    });
    expect(pace).toBe(3);
    expect(releasedAtStartUp).toBe(false);
    expect(await releasesOverSixWindows(scriptedProbe([], heap), 0)).toBe(0);
  });

  it("times start-up's release of a heap large enough to tell its pace", async () => {
    const probe = scriptedProbe([], { youngCommitted: 64 * MiB, oldCommitted: 64 * MiB, oldUsed: 40 * MiB });
    const pace = await releaseStartUpMemoryWhenQuiet({
      settleMs: 0,
      windowMs: 20,
      probe,
      release: busyRelease(probe, 200),
    });
    // 200 ms for 40 MiB (more if the machine is busy, never less), where 3 was assumed.
    expect(pace).toBeGreaterThanOrEqual(5);
  });

  it('learns a slower pace from two releases in a row that took it', async () => {
    const releasedAt: number[] = [];
    // 150 MiB at 1 ms each fits 400 ms; releases then measured at 4 ms per MiB (600 ms): after
    // the second, the median of the last three paces is 4, and none runs again.
    const probe = scriptedProbe([], { youngCommitted: 64 * MiB, oldCommitted: 160 * MiB, oldUsed: 150 * MiB });
    const watch = releaseAfterLoads({
      probe,
      release: busyRelease(probe, 600, { onRelease: () => releasedAt.push(probe.windows()) }),
      intervalMs: 20,
      minReleaseIntervalMs: 0,
      pauseMsPerUsedMiB: 1,
    });
    try {
      await until(() => probe.windows() >= 1 + 2 + 1 + 2 + 12);
    } finally {
      watch.stop();
    }
    // The first after two quiet windows; the second after the read of what the first left, and two more.
    expect(releasedAt).toEqual([1 + 2, 1 + 2 + 1 + 2]);
  });

  it('forgets one slow release: a pace measured once past the budget keeps no later load', async () => {
    const releasedAt: number[] = [];
    // 100 MiB at the 3 ms per MiB given is 300 ms. The first release takes 500 ms (5 ms per
    // MiB: its core shared with a busy process, say); at that pace none would fit again.
    const probe = scriptedProbe([], { youngCommitted: 64 * MiB, oldCommitted: 110 * MiB, oldUsed: 100 * MiB });
    const slowOnce = busyRelease(probe, 500);
    const watch = releaseAfterLoads({
      probe,
      release: () => {
        releasedAt.push(probe.windows());
        if (releasedAt.length === 1) slowOnce();
      },
      intervalMs: 20,
      minReleaseIntervalMs: 0,
      pauseMsPerUsedMiB: 3,
    });
    try {
      await until(() => probe.windows() >= 1 + 2 + 1 + 2);
    } finally {
      watch.stop();
    }
    expect(releasedAt).toEqual([1 + 2, 1 + 2 + 1 + 2]);
  });

  it('learns the pace from the work a release did, not from time the core gave other processes', async () => {
    const releasedAt: number[] = [];
    // 600 ms on the clock, of which the process used 150 ms of CPU: 1 ms per MiB, as given, so
    // the next load is released too (at 4 ms per MiB it would not be, as in the case above).
    const probe = scriptedProbe([], { youngCommitted: 64 * MiB, oldCommitted: 160 * MiB, oldUsed: 150 * MiB });
    const watch = releaseAfterLoads({
      probe,
      release: busyRelease(probe, 600, { cpuMs: 150, onRelease: () => releasedAt.push(probe.windows()) }),
      intervalMs: 20,
      minReleaseIntervalMs: 0,
      pauseMsPerUsedMiB: 1,
    });
    try {
      await until(() => releasedAt.length >= 2);
    } finally {
      watch.stop();
    }
    // The first after two quiet windows; the second after the read of what the first left, and two more.
    expect(releasedAt).toEqual([1 + 2, 1 + 2 + 1 + 2]);
  });
});

describe('releaseAfterLoads', () => {
  it('gives memory back two quiet windows after the load, not while it lasts', async () => {
    const releasedAt: number[] = [];
    // The first read is the baseline; then four windows at 80% of a 50 ms window, then quiet ones.
    const probe = scriptedProbe([0, 40, 40, 40, 40], grown);
    const watch = releaseAfterLoads({
      probe,
      release: () => releasedAt.push(probe.windows()),
      intervalMs: 50,
      minReleaseIntervalMs: 0,
    });
    try {
      await until(() => releasedAt.length > 0);
    } finally {
      watch.stop();
    }
    // The watch's baseline read, four busy windows, two quiet ones.
    expect(releasedAt[0]).toBe(1 + 4 + 2);
  });

  it("runs no release within the minimum interval, start-up's release counting as the last", async () => {
    expect(await releasesOverSixWindows(scriptedProbe([], grown), 60_000)).toBe(0);
  });

  it('shrinks the young generation a burst grew, read from V8 itself', async () => {
    allocateLikeStartUp();
    const grownBytes = youngGenerationBytes();
    expect(grownBytes).toBeGreaterThanOrEqual(8 * 1024 * 1024);
    // This test process's own CPU is not the point here: every window counts as quiet. Nor is
    // the pause budget: jest's worker may hold more heap than a release may stop for.
    const watch = releaseAfterLoads({
      probe: { cpuMicros: () => 0, heap: processMemoryProbe.heap },
      intervalMs: 50,
      minReleaseIntervalMs: 0,
      pauseMsPerUsedMiB: 0,
    });
    try {
      await until(() => youngGenerationBytes() <= grownBytes / 4);
    } finally {
      watch.stop();
    }
    expect(youngGenerationBytes()).toBeLessThanOrEqual(grownBytes / 4);
  });
});
