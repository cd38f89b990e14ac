/**
 * The contract of `RevisionedStore` (storage/store.ts), checked against every backend: SQLite on
 * a real file and etcd as a real process. Each test works under its own key prefix, so the tests
 * of one suite share a store without seeing each other's keys.
 */
import {
  CompactedError,
  FutureRevisionError,
  MAX_STORED_BYTES,
  StoreUnavailableError,
  ValueTooLargeError,
} from '../../storage/errors';
import type { RevisionedStore } from '../../storage/store';
import { BackendEnvironment, backends, recordWatch, settle, text } from './backend-harness';

const value = (s: string): Buffer => Buffer.from(s, 'utf8');

describe.each(backends)('$name backend conformance', (backend) => {
  let environment: BackendEnvironment;
  let store: RevisionedStore;
  let testNumber = 0;
  /** A prefix of this test's own, e.g. `/conformance/7/`. */
  let prefix: string;

  beforeAll(async () => {
    environment = await backend.start();
    store = await environment.openStore();
  });

  afterAll(async () => {
    await store?.close();
    await environment?.stop();
  });

  beforeEach(() => {
    prefix = `/conformance/${++testNumber}/`;
  });

  test('create writes only an absent key and advances the revision by one', async () => {
    const before = await store.currentRevision();
    const created = await store.create(`${prefix}a`, value('v1'));
    expect(created).toEqual({
      succeeded: true,
      revision: before + 1,
      kv: { key: `${prefix}a`, value: value('v1'), createRevision: before + 1, modRevision: before + 1 },
    });

    const again = await store.create(`${prefix}a`, value('v2'));
    expect(again.succeeded).toBe(false);
    expect(again.revision).toBe(before + 1);
    expect(text(again.kv?.value)).toBe('v1');
    expect(again.kv?.modRevision).toBe(before + 1);
    expect(await store.currentRevision()).toBe(before + 1);
  });

  test('both backends store up to MAX_STORED_BYTES and refuse more with ValueTooLargeError, writing nothing', async () => {
    const key = `${prefix}big`;
    const fits = Buffer.alloc(MAX_STORED_BYTES - Buffer.byteLength(key), 0x61);
    const created = await store.create(key, fits);
    expect(created.succeeded).toBe(true);
    const before = await store.currentRevision();
    const tooLarge = Buffer.alloc(2 * 1024 * 1024, 0x62);
    await expect(store.update(key, tooLarge, created.revision)).rejects.toBeInstanceOf(ValueTooLargeError);
    await expect(store.create(`${prefix}bigger`, tooLarge)).rejects.toBeInstanceOf(ValueTooLargeError);
    expect(await store.currentRevision()).toBe(before);
    expect((await store.get(key)).kv?.value.length).toBe(fits.length);
  });

  test('update writes only at the expected mod revision; a failed compare returns the current value', async () => {
    const created = await store.create(`${prefix}a`, value('v1'));
    const updated = await store.update(`${prefix}a`, value('v2'), created.revision);
    expect(updated).toEqual({
      succeeded: true,
      revision: created.revision + 1,
      kv: {
        key: `${prefix}a`,
        value: value('v2'),
        createRevision: created.revision,
        modRevision: created.revision + 1,
      },
    });

    const stale = await store.update(`${prefix}a`, value('v3'), created.revision);
    expect(stale).toEqual({ succeeded: false, revision: updated.revision, kv: updated.kv });
    expect(await store.currentRevision()).toBe(updated.revision);

    const absent = await store.update(`${prefix}missing`, value('x'), updated.revision);
    expect(absent).toEqual({ succeeded: false, revision: updated.revision, kv: undefined });
    const zero = await store.update(`${prefix}missing`, value('x'), 0);
    expect(zero).toEqual({ succeeded: false, revision: updated.revision, kv: undefined });
    expect((await store.get(`${prefix}missing`)).kv).toBeUndefined();
  });

  test('delete removes only at the expected mod revision and returns the deleted value at the deletion revision', async () => {
    const created = await store.create(`${prefix}a`, value('v1'));
    const updated = await store.update(`${prefix}a`, value('v2'), created.revision);

    const stale = await store.delete(`${prefix}a`, created.revision);
    expect(stale).toEqual({ succeeded: false, revision: updated.revision, kv: updated.kv });

    const deleted = await store.delete(`${prefix}a`, updated.revision);
    expect(deleted).toEqual({
      succeeded: true,
      revision: updated.revision + 1,
      kv: {
        key: `${prefix}a`,
        value: value('v2'),
        createRevision: created.revision,
        modRevision: updated.revision + 1,
      },
    });
    expect(await store.get(`${prefix}a`)).toEqual({ revision: deleted.revision, kv: undefined });

    const absent = await store.delete(`${prefix}a`, deleted.revision);
    expect(absent).toEqual({ succeeded: false, revision: deleted.revision, kv: undefined });

    // A new incarnation of the key starts its own create revision.
    const recreated = await store.create(`${prefix}a`, value('v3'));
    expect(recreated.kv?.createRevision).toBe(deleted.revision + 1);
  });

  test('get reads the value as of a past revision', async () => {
    const created = await store.create(`${prefix}a`, value('v1'));
    const updated = await store.update(`${prefix}a`, value('v2'), created.revision);
    const deleted = await store.delete(`${prefix}a`, updated.revision);

    expect(await store.get(`${prefix}a`, { revision: created.revision - 1 })).toEqual({
      revision: created.revision - 1,
      kv: undefined,
    });
    const atCreate = await store.get(`${prefix}a`, { revision: created.revision });
    expect(atCreate).toEqual({ revision: created.revision, kv: created.kv });
    expect(text((await store.get(`${prefix}a`, { revision: updated.revision })).kv?.value)).toBe('v2');
    expect((await store.get(`${prefix}a`, { revision: deleted.revision })).kv).toBeUndefined();
    expect((await store.get(`${prefix}a`)).kv).toBeUndefined();
  });

  test('range returns keys in byte order with limit, start key, remaining count and past revisions', async () => {
    const names = ['a', 'a-b', 'a.b', 'a/b', 'a~b', 'ab', 'B', 'ä', 'é', '日本', 'z', 'zz'];
    for (const name of names) await store.create(`${prefix}${name}`, value(name));
    // Neighbours that share the prefix's characters but not the prefix.
    await store.create(prefix.slice(0, -1), value('parent'));
    await store.create(`${prefix.slice(0, -1)}0`, value('sibling'));
    const afterCreates = await store.currentRevision();

    const byteOrder = [...names].sort((x, y) => Buffer.compare(value(x), value(y)));
    const all = await store.range({ prefix });
    expect(all.revision).toBe(afterCreates);
    expect(all.remaining).toBe(0);
    expect(all.kvs.map((kv) => kv.key)).toEqual(byteOrder.map((name) => `${prefix}${name}`));
    expect(all.kvs.map((kv) => text(kv.value))).toEqual(byteOrder);

    // Paging: each page starts just after the last key of the one before.
    const pages: string[][] = [];
    let startKey: string | undefined;
    for (let page = 0; page < 10; page++) {
      const result = await store.range({ prefix, startKey, limit: 5, revision: afterCreates });
      pages.push(result.kvs.map((kv) => kv.key.slice(prefix.length)));
      expect(result.remaining).toBe(byteOrder.length - pages.flat().length);
      if (result.remaining === 0) break;
      startKey = `${result.kvs[result.kvs.length - 1].key}\0`;
    }
    expect(pages).toEqual([byteOrder.slice(0, 5), byteOrder.slice(5, 10), byteOrder.slice(10)]);

    const fromKey = await store.range({ prefix, startKey: `${prefix}z` });
    expect(fromKey.kvs.map((kv) => kv.key)).toEqual(
      byteOrder.slice(byteOrder.indexOf('z')).map((name) => `${prefix}${name}`),
    );
    expect(byteOrder.slice(byteOrder.indexOf('z'))).toEqual(['z', 'zz', 'ä', 'é', '日本']);

    // A write after the read revision does not show in a range at that revision.
    const first = all.kvs[0];
    await store.delete(first.key, first.modRevision);
    const atPast = await store.range({ prefix, revision: afterCreates, limit: 1 });
    expect(atPast).toEqual({ revision: afterCreates, kvs: [first], remaining: byteOrder.length - 1 });
    expect((await store.range({ prefix })).kvs).toHaveLength(byteOrder.length - 1);

    expect(await store.range({ prefix: `${prefix}nothing/` })).toEqual({
      revision: await store.currentRevision(),
      kvs: [],
      remaining: 0,
    });
  });

  test('every successful write advances the revision by exactly one; failed writes do not', async () => {
    let expected = await store.currentRevision();
    for (let i = 0; i < 5; i++) {
      const created = await store.create(`${prefix}${i}`, value('x'));
      expect(created.revision).toBe(++expected);
      await store.create(`${prefix}${i}`, value('y'));
      const updated = await store.update(`${prefix}${i}`, value('z'), created.revision);
      expect(updated.revision).toBe(++expected);
      await store.update(`${prefix}${i}`, value('w'), created.revision);
      expect(await store.currentRevision()).toBe(expected);
    }
  });

  test('watch replays history from an old revision, then follows live writes in order with previous values', async () => {
    const created = await store.create(`${prefix}a`, value('v1'));
    const updated = await store.update(`${prefix}a`, value('v2'), created.revision);
    await store.create(`${prefix}b`, value('b1'));
    await store.create(`/elsewhere${prefix}`, value('not watched'));

    const recorded = recordWatch(store, { prefix, fromRevision: created.revision });
    await recorded.until(() => recorded.events.length === 3);
    const deleted = await store.delete(`${prefix}a`, updated.revision);
    const recreated = await store.create(`${prefix}a`, value('v3'));
    await recorded.until(() => recorded.events.length === 5);
    recorded.watch.close();

    expect(recorded.errors).toEqual([]);
    expect(
      recorded.events.map((event) => [
        event.type,
        event.kv.key.slice(prefix.length),
        text(event.kv.value),
        text(event.prevKv?.value),
      ]),
    ).toEqual([
      ['put', 'a', 'v1', undefined],
      ['put', 'a', 'v2', 'v1'],
      ['put', 'b', 'b1', undefined],
      ['delete', 'a', '', 'v2'],
      ['put', 'a', 'v3', undefined],
    ]);
    const revisions = recorded.events.map((event) => event.kv.modRevision);
    expect(revisions).toEqual([...revisions].sort((x, y) => x - y));
    expect(revisions[0]).toBe(created.revision);
    expect(recorded.events[1].prevKv).toEqual(created.kv);
    expect(revisions[4]).toBe(recreated.revision);
    expect(recorded.events[3].kv.modRevision).toBe(deleted.revision);
  });

  test('watch delivers a delete with an empty value at the deletion revision and the deleted value as previous', async () => {
    const created = await store.create(`${prefix}gone`, value('last words'));
    const recorded = recordWatch(store, { prefix, fromRevision: created.revision + 1 });
    await settle(100);
    const deleted = await store.delete(`${prefix}gone`, created.revision);
    await recorded.until(() => recorded.events.length === 1);
    recorded.watch.close();

    const [event] = recorded.events;
    expect(event.type).toBe('delete');
    expect(event.kv.key).toBe(`${prefix}gone`);
    expect(event.kv.value).toHaveLength(0);
    expect(event.kv.modRevision).toBe(deleted.revision);
    expect(event.prevKv).toEqual(created.kv);
  });

  test('a replay longer than one batch arrives whole and in order, then live events follow', async () => {
    const count = 600;
    const first = await store.create(`${prefix}0`, value('0'));
    for (let i = 1; i < count; i++) await store.create(`${prefix}${i}`, value(String(i)));

    const recorded = recordWatch(store, { prefix, fromRevision: first.revision });
    const live = store.create(`${prefix}live`, value('live'));
    await recorded.until(() => recorded.events.length === count + 1, 15_000);
    recorded.watch.close();

    expect(recorded.errors).toEqual([]);
    const revisions = recorded.events.map((event) => event.kv.modRevision);
    expect(new Set(revisions).size).toBe(count + 1);
    expect(revisions).toEqual([...revisions].sort((x, y) => x - y));
    expect(revisions[count]).toBe((await live).revision);
  });

  test('watch from a revision not reached yet delivers only events from that revision', async () => {
    const current = await store.currentRevision();
    const recorded = recordWatch(store, { prefix, fromRevision: current + 3 });
    await settle(100);
    for (let i = 0; i < 4; i++) await store.create(`${prefix}${i}`, value(String(i)));
    await recorded.until(() => recorded.events.length === 2);
    await settle(100);
    recorded.watch.close();
    expect(recorded.events.map((event) => event.kv.modRevision)).toEqual([current + 3, current + 4]);
  });

  test('watch reports progress once every event up to a revision was delivered', async () => {
    const recorded = recordWatch(store, { prefix, fromRevision: (await store.currentRevision()) + 1 });
    await settle(100);
    const outside = await store.create(`/elsewhere${prefix}x`, value('x'));
    // etcd notifies progress on its own schedule (every second in tests).
    await recorded.until(() => recorded.progress.some((revision) => revision >= outside.revision), 10_000);
    recorded.watch.close();
    expect(recorded.events).toEqual([]);
  });

  test('watch with prefix "" sees keys everywhere, in and outside any prefix', async () => {
    const recorded = recordWatch(store, { prefix: '', fromRevision: (await store.currentRevision()) + 1 });
    await settle(100);
    const keys = [`${prefix}x`, 'compact_rev_key', '/registry/pods/default/p', '\u0001low', '~high'];
    for (const key of keys) {
      const existing = await store.get(key);
      if (existing.kv) await store.delete(key, existing.kv.modRevision);
    }
    const start = await store.currentRevision();
    for (const key of keys) await store.create(key, value(key));
    await recorded.until(() => recorded.events.some((event) => event.kv.modRevision === start + keys.length));
    recorded.watch.close();
    const afterStart = recorded.events.filter((event) => event.kv.modRevision > start);
    expect(afterStart.map((event) => event.kv.key)).toEqual(keys);
  });

  test('concurrent updates with the same expected revision: exactly one wins each round', async () => {
    let current = await store.create(`${prefix}counter`, value('0'));
    for (let round = 1; round <= 5; round++) {
      const expected = current.revision;
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, writer) =>
          store.update(`${prefix}counter`, value(`${round}:${writer}`), expected),
        ),
      );
      const winners = results.filter((result) => result.succeeded);
      expect(winners).toHaveLength(1);
      const [winner] = winners;
      expect(winner.revision).toBe(expected + 1);
      for (const loser of results.filter((result) => !result.succeeded)) {
        expect(loser.kv?.modRevision).toBeGreaterThanOrEqual(expected + 1);
      }
      current = winner;
    }
    expect((await store.get(`${prefix}counter`)).kv).toEqual(current.kv);
  });

  test('compaction: reads and watches below the compacted revision fail; at it they work', async () => {
    const created = await store.create(`${prefix}a`, value('v1'));
    const updated = await store.update(`${prefix}a`, value('v2'), created.revision);
    const target = updated.revision;
    await store.create(`${prefix}b`, value('b1'));

    await store.compact(target);
    expect(await store.compactedRevision()).toBe(target);

    await expect(store.get(`${prefix}a`, { revision: created.revision })).rejects.toEqual(
      new CompactedError(created.revision, target),
    );
    await expect(store.range({ prefix, revision: target - 1 })).rejects.toBeInstanceOf(CompactedError);
    expect(text((await store.get(`${prefix}a`, { revision: target })).kv?.value)).toBe('v2');
    expect((await store.range({ prefix, revision: target })).kvs.map((kv) => kv.key)).toEqual([`${prefix}a`]);

    const tooOld = recordWatch(store, { prefix, fromRevision: created.revision });
    await tooOld.until(() => tooOld.errors.length === 1);
    expect(tooOld.errors[0]).toBeInstanceOf(CompactedError);
    expect((tooOld.errors[0] as CompactedError).compactedRevision).toBe(target);
    expect(tooOld.events).toEqual([]);

    const fromTarget = recordWatch(store, { prefix, fromRevision: target });
    await fromTarget.until(() => fromTarget.events.length === 2);
    fromTarget.watch.close();
    expect(fromTarget.events.map((event) => text(event.kv.value))).toEqual(['v2', 'b1']);

    await expect(store.compact(target)).rejects.toBeInstanceOf(CompactedError);
  });

  test('reads above the current revision fail with FutureRevisionError', async () => {
    const current = await store.currentRevision();
    await expect(store.get(`${prefix}a`, { revision: current + 10 })).rejects.toEqual(
      new FutureRevisionError(current + 10, current),
    );
    await expect(store.range({ prefix, revision: current + 1 })).rejects.toBeInstanceOf(FutureRevisionError);
    await expect(store.compact(current + 10)).rejects.toBeInstanceOf(FutureRevisionError);
  });

  test('close ends watches and makes later calls fail with StoreUnavailableError', async () => {
    const own = await environment.openStore();
    const recorded = recordWatch(own, { prefix, fromRevision: (await own.currentRevision()) + 1 });
    await own.create(`${prefix}before`, value('x'));
    await recorded.until(() => recorded.events.length === 1);
    await own.close();

    await store.create(`${prefix}after`, value('y'));
    await settle(200);
    expect(recorded.events).toHaveLength(1);
    await expect(own.currentRevision()).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(own.create(`${prefix}late`, value('z'))).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  test('a key written with a TTL is deleted once it passes, by a delete event; a write without a TTL keeps its key', async () => {
    const start = await store.currentRevision();
    const recorded = recordWatch(store, { prefix, fromRevision: start + 1 });
    const expiring = await store.create(`${prefix}expiring`, value('e'), { ttlSeconds: 1 });
    const kept = await store.create(`${prefix}kept`, value('k1'), { ttlSeconds: 1 });
    // Written again without a TTL: permanent from then on, as a put without a lease in etcd.
    const keptUpdate = await store.update(`${prefix}kept`, value('k2'), kept.revision);
    const renewed = await store.create(`${prefix}renewed`, value('r1'), { ttlSeconds: 1 });
    await store.update(`${prefix}renewed`, value('r2'), renewed.revision, { ttlSeconds: 4 });

    await recorded.until(
      () => recorded.events.some((event) => event.type === 'delete' && event.kv.key === `${prefix}expiring`),
      15_000,
    );
    const deletion = recorded.events.find((event) => event.type === 'delete')!;
    expect(deletion).toMatchObject({
      kv: { key: `${prefix}expiring` },
      prevKv: { value: value('e'), modRevision: expiring.revision },
    });
    expect(deletion.kv.modRevision).toBeGreaterThan(expiring.revision);
    expect((await store.get(`${prefix}expiring`)).kv).toBeUndefined();
    // The renewed key's new TTL (4 s) runs from its update: it outlives the first one.
    expect((await store.get(`${prefix}renewed`)).kv?.value).toEqual(value('r2'));

    await recorded.until(
      () => recorded.events.some((event) => event.type === 'delete' && event.kv.key === `${prefix}renewed`),
      15_000,
    );
    expect((await store.get(`${prefix}renewed`)).kv).toBeUndefined();
    expect((await store.get(`${prefix}kept`)).kv).toMatchObject({
      value: value('k2'),
      modRevision: keptUpdate.revision,
    });
    expect(recorded.events.filter((event) => event.type === 'delete').map((event) => event.kv.key)).toEqual([
      `${prefix}expiring`,
      `${prefix}renewed`,
    ]);
    recorded.watch.close();
  }, 30_000);
});
