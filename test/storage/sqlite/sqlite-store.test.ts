/**
 * What only the SQLite backend has to show: durability across reopen, what compaction removes
 * from the file, and watch delivery order when writes race a replay or come from a watcher.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore } from '../../../storage/sqlite/sqlite-store';
import type { RevisionedStore } from '../../../storage/store';
import { recordWatch, text } from '../backend-harness';
import { waitUntil } from '../../helpers/wait-for';

const value = (s: string): Buffer => Buffer.from(s, 'utf8');

describe('SQLite store', () => {
  let dir: string;
  let path: string;
  let store: RevisionedStore;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'capstan-sqlite-'));
    path = join(dir, 'store.db');
    store = await openSqliteStore({ path });
  });

  afterEach(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  function logRowCount(): number {
    const db = new DatabaseSync(path, { readOnly: true });
    try {
      return (db.prepare('SELECT COUNT(*) AS count FROM log').get() as { count: number }).count;
    } finally {
      db.close();
    }
  }

  test('a reopened store has the same keys, revision and compacted revision', async () => {
    const created = await store.create('/a', value('v1'));
    const updated = await store.update('/a', value('v2'), created.revision);
    await store.create('/b', value('b'));
    await store.compact(updated.revision);
    await store.close();

    store = await openSqliteStore({ path });
    expect(await store.currentRevision()).toBe(3);
    expect(await store.compactedRevision()).toBe(updated.revision);
    expect((await store.range({ prefix: '/' })).kvs.map((kv) => [kv.key, text(kv.value)])).toEqual([
      ['/a', 'v2'],
      ['/b', 'b'],
    ]);
    expect((await store.create('/c', value('c'))).revision).toBe(4);
  });

  test('keys whose TTL passed while the store was closed are deleted when it opens; a stale expiry deletes nothing', async () => {
    await store.create('/ttl/expired', value('e'), { ttlSeconds: 3600 });
    const kept = await store.create('/ttl/kept', value('k'));
    await store.close();
    // The hour passed while closed; and '/ttl/kept' has an expiry of an earlier incarnation, as
    // a process that died between a write and clearing its old expiry leaves behind.
    const db = new DatabaseSync(path);
    db.prepare('UPDATE expiry SET expires_at = 0').run();
    db.prepare('INSERT INTO expiry (name, expires_at, revision) VALUES (?, 0, ?)').run(
      value('/ttl/kept'),
      kept.revision - 1,
    );
    db.close();

    store = await openSqliteStore({ path });
    const recorded = recordWatch(store, { prefix: '/ttl/', fromRevision: kept.revision + 1 });
    await recorded.until(() => recorded.events.length === 1);
    expect(recorded.events[0]).toMatchObject({
      type: 'delete',
      kv: { key: '/ttl/expired', modRevision: kept.revision + 1 },
      prevKv: { value: value('e') },
    });
    expect((await store.get('/ttl/expired')).kv).toBeUndefined();
    expect((await store.get('/ttl/kept')).kv?.value).toEqual(value('k'));
    recorded.watch.close();
  });

  test('compaction removes superseded rows and tombstones below the target, in chunks, and keeps every read at or after it', async () => {
    const keys = ['/k/0', '/k/1', '/k/2'];
    const latest = new Map<string, number>();
    for (const key of keys) latest.set(key, (await store.create(key, value('0'))).revision);
    for (let round = 1; round <= 1_500; round++) {
      const key = keys[round % keys.length];
      latest.set(key, (await store.update(key, value(String(round)), latest.get(key) ?? 0)).revision);
    }
    const gone = await store.create('/k/gone', value('x'));
    await store.delete('/k/gone', gone.revision);
    const target = await store.currentRevision();
    const expected = await store.range({ prefix: '/k/' });
    const afterTarget = await store.update('/k/0', value('after'), latest.get('/k/0') ?? 0);

    await store.compact(target);

    // The live keys' rows at the target, the deletion at the target itself (a watch from the
    // target replays it) and the write after it.
    expect(logRowCount()).toBe(keys.length + 2);
    expect(await store.range({ prefix: '/k/', revision: target })).toEqual(expected);
    expect(text((await store.get('/k/0')).kv?.value)).toBe('after');
    const recorded = recordWatch(store, { prefix: '/k/', fromRevision: target });
    await recorded.until(() => recorded.events.length === 2);
    recorded.watch.close();
    expect(recorded.events.map((event) => [event.type, event.kv.modRevision])).toEqual([
      ['delete', target],
      ['put', afterTarget.revision],
    ]);
  });

  test('writes landing while a watch replays are delivered once, in order, after the replayed ones', async () => {
    for (let i = 0; i < 1_200; i++) await store.create(`/r/${i}`, value(String(i)));
    const recorded = recordWatch(store, { prefix: '/r/', fromRevision: 1 });
    // Writes interleave with the replay steps, which yield to the event loop between batches.
    for (let i = 1_200; i < 1_300; i++) {
      await store.create(`/r/${i}`, value(String(i)));
      await new Promise((resolve) => setImmediate(resolve));
    }
    await recorded.until(() => recorded.events.length >= 1_300);
    recorded.watch.close();
    expect(recorded.events.map((event) => event.kv.modRevision)).toEqual(
      Array.from({ length: 1_300 }, (_, i) => i + 1),
    );
  });

  test('a write made by a watch callback during its replay is delivered to that watch', async () => {
    await store.create('/r/first', value('1'));
    const seen: string[] = [];
    const watch = store.watch({
      prefix: '/r/',
      fromRevision: 1,
      onEvents: (events) => {
        for (const event of events) {
          seen.push(event.kv.key);
          // Written while the watch still replays: offered to it, and ignored until now.
          if (event.kv.key === '/r/first') void store.create('/r/second', value('2'));
        }
      },
      onError: (error) => {
        throw error;
      },
    });
    await waitUntil('both keys seen', () => seen.length >= 2, 2_000, 5);
    watch.close();
    expect(seen).toEqual(['/r/first', '/r/second']);
  });

  test('a write made inside a watch callback reaches every watcher after the write that triggered it', async () => {
    const seen: number[][] = [[], []];
    const live = [false, false];
    const watches = seen.map((revisions, index) =>
      store.watch({
        prefix: '/w/',
        fromRevision: 1,
        // A watch reports progress once its replay is over and it follows the writes.
        onProgress: () => (live[index] = true),
        onEvents: (events) => {
          for (const event of events) {
            revisions.push(event.kv.modRevision);
            if (index === 0 && event.kv.key === '/w/first') void store.create('/w/second', value('2'));
          }
        },
        onError: (error) => {
          throw error;
        },
      }),
    );
    await waitUntil('both watches live', () => live.every(Boolean), 2_000, 5);
    await store.create('/w/first', value('1'));
    await waitUntil('both watchers at revision 2', () => seen.every((revisions) => revisions.length >= 2), 2_000, 5);
    for (const watch of watches) watch.close();
    expect(seen).toEqual([
      [1, 2],
      [1, 2],
    ]);
  });
});
