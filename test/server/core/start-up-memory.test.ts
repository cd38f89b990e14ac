import { getHeapSpaceStatistics } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { releaseStartUpMemory } from '../../../server/start-up-memory';

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
      (_, index) => new Function(`let sum = 0; for (let k = 0; k < 3; k++) sum += k * ${index}; return { sum, name: 'f${index}' };`) as () => unknown,
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
