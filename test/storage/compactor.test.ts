/** Shared compaction: replicas on one real store agree through `compact_rev_key`. */
import { COMPACT_REVISION_KEY, Compactor } from '../../storage/compactor';
import type { RevisionedStore } from '../../storage/store';
import { BACKENDS, RunningBackend } from './objects/backends';
import { waitUntil } from '../helpers/wait-for';

const INTERVAL_MS = 200;

interface Compaction {
  readonly replica: string;
  readonly revision: number;
}

/** Writes a key every few milliseconds so every compaction interval has history; bounded in count. */
function keepWriting(store: RevisionedStore): { stop(): Promise<void> } {
  let running = true;
  const loop = (async () => {
    for (let i = 0; running && i < 500; i += 1) {
      await store.create(`/compactor-test/${process.pid}/${Date.now()}-${i}`, Buffer.from('x'));
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
    },
  };
}

describe.each(BACKENDS)('Compactor on $name', (backend) => {
  let running: RunningBackend;
  let store: RevisionedStore;
  let compactors: Compactor[] = [];
  let writer: { stop(): Promise<void> } | undefined;
  const compactions: Compaction[] = [];
  const errors: Error[] = [];

  beforeAll(async () => {
    running = await backend.start();
    store = await running.connect();
  });
  afterEach(async () => {
    await writer?.stop();
    await Promise.all(compactors.map((compactor) => compactor.stop()));
    compactors = [];
    compactions.length = 0;
    expect(errors.splice(0)).toEqual([]);
  });
  afterAll(() => running.stop());

  async function startReplica(replica: string, intervalMs = INTERVAL_MS): Promise<Compactor> {
    const replicaStore = await running.connect();
    const compactor = new Compactor({
      store: replicaStore,
      intervalMs,
      onCompacted: (revision) => compactions.push({ replica, revision }),
      onError: (error) => errors.push(error),
    });
    compactors.push(compactor);
    compactor.start();
    return compactor;
  }

  it('compacts once per interval, to the revision of the interval before', async () => {
    writer = keepWriting(store);
    const startedAt = Date.now();
    await startReplica('a');
    await startReplica('b');
    await waitUntil('the compactions', () => compactions.length >= 4, 5_000, 20);
    const elapsedMs = Date.now() - startedAt;
    await Promise.all(compactors.map((compactor) => compactor.stop()));

    // One claim wins per round, whichever replica makes it; the first round only sets a mark.
    expect(compactions.length).toBeLessThanOrEqual(Math.floor(elapsedMs / INTERVAL_MS) + 1);
    const revisions = compactions.map((compaction) => compaction.revision);
    expect(revisions).toEqual([...revisions].sort((x, y) => x - y));
    expect(new Set(revisions).size).toBe(revisions.length);

    // History from the last compaction point on is still readable; before it, it is gone.
    const last = revisions.at(-1) as number;
    expect(await store.compactedRevision()).toBe(last);
    expect(last).toBeLessThan(await store.currentRevision());
    await expect(store.range({ prefix: '/compactor-test/', revision: last })).resolves.toBeDefined();
    await expect(store.range({ prefix: '/compactor-test/', revision: last - 1 })).rejects.toThrow('compacted');
    const key = await store.get(COMPACT_REVISION_KEY);
    expect(key.kv?.value.toString()).toBe(String(revisions.at(-1)));
  });

  it('lets another replica take over when the one compacting stops', async () => {
    writer = keepWriting(store);
    const replicas = new Map([
      ['a', await startReplica('a')],
      ['b', await startReplica('b')],
    ]);
    await waitUntil('the compactions', () => compactions.length >= 2, 5_000, 20);
    const leader = (compactions.at(-1) as Compaction).replica;
    await replicas.get(leader)?.stop();
    const before = compactions.length;

    await waitUntil(
      'the compactions',
      () => compactions.slice(before).some((compaction) => compaction.replica !== leader),
      5_000,
      20,
    );
    expect(compactions.slice(before).every((compaction) => compaction.replica !== leader)).toBe(true);
  });

  it('does nothing with interval 0', async () => {
    const before = await store.get(COMPACT_REVISION_KEY);
    await startReplica('idle', 0);
    // Nothing may happen: three intervals in which a compaction would have shown.
    await new Promise((resolve) => setTimeout(resolve, 3 * INTERVAL_MS));
    expect((await store.get(COMPACT_REVISION_KEY)).kv?.modRevision).toBe(before.kv?.modRevision);
    expect(compactions).toEqual([]);
  });
});
