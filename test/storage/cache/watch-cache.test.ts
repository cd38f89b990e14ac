/**
 * The watch cache over both real backends: every row of the resource-version table for get,
 * list and watch, where each is served (cache or store), and the watch stream's rules.
 *
 * "Served by the cache" is observed through object identity: the cache hands out the same
 * object to every reader, the store decodes a new one per read.
 */
import type { WatchCacheTuning } from '../../../storage/cache/watch-cache';
import { ObjectError } from '../../../storage/errors';
import { CONTINUE_EXPIRED_MESSAGE, LIST_EXPIRED_MESSAGE, ResourceStore } from '../../../storage/objects/resource-store';
import { INITIAL_EVENTS_END_ANNOTATION } from '../../../storage/objects/store-watch';
import { EVERYTHING, type ObjectWatchEvent, type Predicate } from '../../../storage/objects/types';
import type { RevisionedStore } from '../../../storage/store';
import { BACKENDS, freshPrefix, type RunningBackend } from '../objects/backends';
import { readWatch } from '../objects/watch-reader';
import { podsResource, type Replica, startReplica, unlistedPodsCache, writeCompactRevision } from './replica';
import { waitUntil } from '../../helpers/wait-for';

import type { KubeObject } from '../../../api/objects';
async function objectError(promise: Promise<unknown>): Promise<ObjectError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ObjectError) return error;
    throw error;
  }
  throw new Error('expected an ObjectError');
}

function pod(
  name: string,
  options: { namespace?: string; labels?: Record<string, string>; n?: number } = {},
): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: options.namespace ?? 'ns', labels: options.labels ?? {} },
    spec: { n: options.n ?? 0 },
  };
}

const labelled = (app: string): Predicate => ({
  everything: false,
  matches: (object) => object.metadata.labels?.app === app,
});

const named = (name: string): Predicate => ({
  everything: false,
  name,
  matches: (object) => object.metadata.name === name,
});

const rvOf = (object: KubeObject): number => Number(object.metadata.resourceVersion);
const summary = (events: ObjectWatchEvent[]): string[] =>
  events.map((event) =>
    event.type === 'ERROR'
      ? `ERROR ${event.error.message}`
      : `${event.type} ${event.object.metadata.name ?? ''}@${event.object.metadata.resourceVersion}`,
  );

const FAST: WatchCacheTuning = { tooLargeWaitMs: 300, readyWaitMs: 1_000 };

describe.each(BACKENDS)('WatchCache on $name', (backend) => {
  let running: RunningBackend;
  let store: RevisionedStore;
  const replicas: Replica[] = [];

  beforeAll(async () => {
    running = await backend.start();
    store = await running.connect();
  });
  afterEach(() => {
    for (const replica of replicas.splice(0)) replica.stop();
  });
  afterAll(() => running.stop());

  /** A replica with one pods cache under a fresh prefix, and the direct store for comparison. */
  async function setup(tuning: WatchCacheTuning = FAST) {
    const keyPrefix = freshPrefix('pods');
    const replica = await startReplica({ store, resources: [podsResource(keyPrefix)], tuning });
    replicas.push(replica);
    const cache = replica.cacheFor(keyPrefix);
    const direct = new ResourceStore({ store, ...podsResource(keyPrefix) });
    const create = (name: string, options?: Parameters<typeof pod>[1]) =>
      cache.create({ namespace: options?.namespace ?? 'ns', name }, pod(name, options));
    /** Waits until the cache has seen `object`'s write (reads at "0" may be older until then). */
    const settled = async (object: KubeObject) => {
      expect(await replica.feed.waitForRevision(rvOf(object), 2_000)).toBe(true);
    };
    const modify = (name: string, change: (object: KubeObject) => void, namespace = 'ns') =>
      cache
        .update({ namespace, name }, (current) => {
          const next = current as KubeObject;
          change(next);
          return next;
        })
        .then((result) => result.object);
    return { keyPrefix, replica, cache, direct, create, modify, settled };
  }

  describe('get', () => {
    it('serves "", "0" and N from the cache, "" once it has every acknowledged write', async () => {
      const { cache, create, modify } = await setup();
      await create('a');
      const updated = await modify('a', (object) => {
        object.spec = { n: 1 };
      });
      // No waiting for the feed: a consistent read sees the write acknowledged before it.
      const consistent = await cache.get({ namespace: 'ns', name: 'a' });
      expect(consistent).toEqual(updated);
      expect(await cache.get({ namespace: 'ns', name: 'a' })).toBe(consistent);

      const any = await cache.get({ namespace: 'ns', name: 'a' }, { resourceVersion: '0' });
      const notOlder = await cache.get(
        { namespace: 'ns', name: 'a' },
        { resourceVersion: updated.metadata.resourceVersion },
      );
      expect(notOlder).toBe(any);
      expect(notOlder).toEqual(updated);

      const missing = await objectError(cache.get({ namespace: 'ns', name: 'nope' }, { resourceVersion: '0' }));
      expect([missing.reason, missing.message]).toEqual(['NotFound', 'pods "nope" not found']);
      // A key the cache lacks is the store's to answer.
      const missingNow = await objectError(cache.get({ namespace: 'ns', name: 'nope' }));
      expect([missingNow.reason, missingNow.message]).toEqual(['NotFound', 'pods "nope" not found']);
    });

    it('shares one store revision request among a burst of consistent reads', async () => {
      let revisionRequests = 0;
      const counting = new Proxy(store, {
        get(target, property) {
          if (property === 'currentRevision') {
            return () => {
              revisionRequests++;
              return target.currentRevision();
            };
          }
          const value: unknown = Reflect.get(target, property, target);
          return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
        },
      });
      const keyPrefix = freshPrefix('pods');
      const replica = await startReplica({ store: counting, resources: [podsResource(keyPrefix)], tuning: FAST });
      replicas.push(replica);
      const cache = replica.cacheFor(keyPrefix);
      const names = Array.from({ length: 20 }, (_, i) => `p${i}`);
      const written = await Promise.all(names.map((name) => cache.create({ namespace: 'ns', name }, pod(name))));

      revisionRequests = 0;
      const [gets, lists] = await Promise.all([
        Promise.all(names.map((name) => cache.get({ namespace: 'ns', name }))),
        Promise.all(names.map(() => cache.list({ namespace: 'ns' }, { predicate: EVERYTHING }))),
      ]);
      // One request answers the burst; one more at most for reads that came while it was in flight.
      expect(revisionRequests).toBeLessThanOrEqual(2);
      expect(gets).toEqual(written);
      const inKeyOrder = [...written].sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
      for (const list of lists) expect(list.items).toEqual(inKeyOrder);
      // Served from memory: the cache's own objects.
      for (const [i, name] of names.entries())
        expect(gets[i]).toBe(await cache.get({ namespace: 'ns', name }, { resourceVersion: '0' }));
    });

    it('answers 504 for a revision not reached within the wait', async () => {
      const { cache, replica } = await setup();
      const current = replica.feed.revision;
      const started = Date.now();
      const error = await objectError(
        cache.get({ namespace: 'ns', name: 'a' }, { resourceVersion: String(current + 100) }),
      );
      expect(Date.now() - started).toBeGreaterThanOrEqual(290);
      expect([error.reason, error.message, error.details.retryAfterSeconds]).toEqual([
        'TooLargeResourceVersion',
        `Timeout: Too large resource version: ${current + 100}, current: ${current}`,
        1,
      ]);
    });
  });

  describe('list', () => {
    it('serves a consistent list from the cache once it has the latest write', async () => {
      const { cache, create } = await setup();
      const created = await create('a');
      const list = await cache.list({ namespace: 'ns' }, { predicate: EVERYTHING });
      expect(list.items).toEqual([created]);
      expect(Number(list.resourceVersion)).toBeGreaterThanOrEqual(rvOf(created));
      const again = await cache.list({}, { predicate: EVERYTHING });
      expect(again.items[0]).toBe(list.items[0]);
    });

    it('serves rv "0" whole from the cache, ignoring the limit', async () => {
      const { cache, create, settled } = await setup();
      for (const name of ['a', 'b', 'c']) await settled(await create(name));
      const list = await cache.list({}, { resourceVersion: '0', limit: 1, predicate: EVERYTHING });
      expect(list.items.map((item) => item.metadata.name)).toEqual(['a', 'b', 'c']);
      expect(list.continue).toBeUndefined();
    });

    it('serves NotOlderThan once reached, and 504 after the wait otherwise', async () => {
      const { cache, create, replica } = await setup();
      const created = await create('a');
      const list = await cache.list(
        {},
        {
          resourceVersion: created.metadata.resourceVersion,
          resourceVersionMatch: 'NotOlderThan',
          predicate: EVERYTHING,
        },
      );
      expect(list.items).toHaveLength(1);
      expect(Number(list.resourceVersion)).toBeGreaterThanOrEqual(rvOf(created));
      const unlimited = await cache.list(
        {},
        { resourceVersion: created.metadata.resourceVersion, predicate: EVERYTHING },
      );
      expect(unlimited.items[0]).toBe(list.items[0]);

      const limited = await cache.list(
        {},
        {
          resourceVersion: created.metadata.resourceVersion,
          resourceVersionMatch: 'NotOlderThan',
          limit: 5,
          predicate: EVERYTHING,
        },
      );
      expect(limited.items[0]).toBe(list.items[0]);
      const any = await cache.list(
        {},
        { resourceVersion: '0', resourceVersionMatch: 'NotOlderThan', predicate: EVERYTHING },
      );
      expect(any.items[0]).toBe(list.items[0]);

      const future = replica.feed.revision + 50;
      const error = await objectError(
        cache.list(
          {},
          { resourceVersion: String(future), resourceVersionMatch: 'NotOlderThan', predicate: EVERYTHING },
        ),
      );
      expect(error.reason).toBe('TooLargeResourceVersion');
      expect(error.message).toBe(`Timeout: Too large resource version: ${future}, current: ${replica.feed.revision}`);
    });

    it('serves Exact (and N with a limit) as the state at N, equal to the store', async () => {
      const { cache, direct, create, modify } = await setup();
      await create('a');
      await create('b');
      const atB = (await create('c')).metadata.resourceVersion as string;
      await modify('a', (object) => {
        object.spec = { n: 9 };
      });
      await cache.delete({ namespace: 'ns', name: 'b' });
      await create('d');

      for (const options of [
        { resourceVersion: atB, resourceVersionMatch: 'Exact' as const, predicate: EVERYTHING },
        { resourceVersion: atB, limit: 2, predicate: EVERYTHING },
        { resourceVersion: atB, limit: 10, predicate: labelled('none') },
      ]) {
        const fromCache = await cache.list({ namespace: 'ns' }, options);
        const fromStore = await direct.list({ namespace: 'ns' }, options);
        expect(fromCache).toEqual(fromStore);
        expect(fromCache.resourceVersion).toBe(atB);
      }
      const exact = await cache.list(
        {},
        { resourceVersion: atB, resourceVersionMatch: 'Exact', predicate: EVERYTHING },
      );
      expect(exact.items.map((item) => `${item.metadata.name}@${item.metadata.resourceVersion}`)).toEqual(
        (
          await direct.list({}, { resourceVersion: atB, resourceVersionMatch: 'Exact', predicate: EVERYTHING })
        ).items.map((item) => `${item.metadata.name}@${item.metadata.resourceVersion}`),
      );
    });

    it('leaves an Exact or continue read past its revision to the store: a 504 at once, no retry', async () => {
      const { cache, create } = await setup();
      await create('a');
      await create('b');
      const page = await cache.list({ namespace: 'ns' }, { limit: 1, predicate: EVERYTHING });
      const future = Number(page.resourceVersion) + 1_000;
      const token = JSON.parse(Buffer.from(page.continue as string, 'base64url').toString()) as { rv: number };
      const futureToken = Buffer.from(JSON.stringify({ ...token, rv: future })).toString('base64url');
      for (const options of [
        { resourceVersion: String(future), resourceVersionMatch: 'Exact' as const, predicate: EVERYTHING },
        { resourceVersion: String(future), limit: 1, predicate: EVERYTHING },
        { continue: futureToken, limit: 1, predicate: EVERYTHING },
      ]) {
        const started = Date.now();
        const error = await objectError(cache.list({ namespace: 'ns' }, options));
        // The reference's etcd read refuses it at once; the cache's wait (FAST: 300 ms) is not taken.
        expect(Date.now() - started).toBeLessThan(FAST.tooLargeWaitMs as number);
        expect(error.reason).toBe('TooLargeResourceVersion');
        expect(error.message).toMatch(new RegExp(`^Timeout: Too large resource version: ${future}, current: \\d+$`));
        expect(error.details.retryAfterSeconds).toBe(0);
      }
    });

    it('pages with the store tokens, so a page can continue on the store and back', async () => {
      const { cache, direct, create, modify } = await setup();
      for (let i = 0; i < 7; i++)
        await create(`p${i}`, { namespace: i % 2 === 0 ? 'even' : 'odd', labels: { app: i < 4 ? 'web' : 'db' } });
      for (const predicate of [EVERYTHING, labelled('web')]) {
        const first = await cache.list({}, { limit: 2, predicate });
        const firstFromStore = await direct.list({}, { limit: 2, resourceVersion: first.resourceVersion, predicate });
        expect(first).toEqual(firstFromStore);
        expect(first.continue).toBeDefined();
        // Writes after the first page do not show in later pages: they are read at its revision.
        await modify(
          'p2',
          (object) => {
            object.spec = { n: 5 };
          },
          'even',
        );
        await create(`late-${predicate.everything ? 'e' : 'w'}`, { namespace: 'even', labels: { app: 'web' } });

        const pages: string[][] = [];
        let token = first.continue;
        let fromCache = true;
        for (let page = 0; token !== undefined && page < 10; page++) {
          // resourceVersion "0" may come with a continue token (it is then ignored).
          const options = { limit: 2, continue: token, predicate, ...(page === 1 ? { resourceVersion: '0' } : {}) };
          const cached = await cache.list({}, options);
          const stored = await direct.list({}, options);
          expect(cached).toEqual(stored);
          const next = fromCache ? cached : stored;
          pages.push(next.items.map((item) => `${item.metadata.name}@${item.metadata.resourceVersion}`));
          expect(next.resourceVersion).toBe(first.resourceVersion);
          token = next.continue;
          fromCache = !fromCache;
        }
        expect(token).toBeUndefined();
        expect(pages.flat().some((entry) => entry.startsWith('late'))).toBe(false);
      }
    });

    it('falls back to the store for an exact revision older than the ring, and answers 410 once compacted', async () => {
      const { cache, create, modify, settled } = await setup({
        ...FAST,
        ring: { initialCapacity: 2, minCapacity: 2, maxCapacity: 2 },
      });
      const first = await create('a');
      for (let n = 1; n <= 4; n++) await settled(await modify('a', (object) => void (object.spec = { n })));
      expect(cache.stats().windowStart).toBeGreaterThan(rvOf(first));
      const page = await cache.list(
        {},
        { resourceVersion: first.metadata.resourceVersion, limit: 1, predicate: EVERYTHING },
      );
      expect(page.items).toEqual([first]);
      expect(page.resourceVersion).toBe(first.metadata.resourceVersion);
      await create('b');
      const firstPage = await cache.list({}, { limit: 1, predicate: EVERYTHING });
      expect(firstPage.continue).toBeDefined();
      await modify('a', (object) => void (object.spec = { n: 5 }));

      // Compact as the compactor does: announce the revision, then compact.
      const target = await store.currentRevision();
      await writeCompactRevision(store, target);
      await store.compact(target);
      await waitUntil('the compaction in the cache window', () => cache.stats().windowStart >= target - 1, 3_000, 10);

      const exact = await objectError(
        cache.list(
          {},
          { resourceVersion: first.metadata.resourceVersion, resourceVersionMatch: 'Exact', predicate: EVERYTHING },
        ),
      );
      expect([exact.reason, exact.message]).toEqual(['Expired', LIST_EXPIRED_MESSAGE]);
      const continued = await objectError(
        cache.list({}, { limit: 1, continue: firstPage.continue, predicate: EVERYTHING }),
      );
      expect([continued.reason, continued.message]).toEqual(['Expired', CONTINUE_EXPIRED_MESSAGE]);
      const latest = await cache.list(
        {},
        { limit: 1, continue: continued.details.continueToken, predicate: EVERYTHING },
      );
      expect(latest.items.map((item) => item.metadata.name)).toEqual(['b']);
    });

    it('answers a consistent list from the store when the cache does not catch up in time', async () => {
      const { cache, create, replica, settled } = await setup();
      await settled(await create('a'));
      replica.feed.stop(); // the cache stays ready but learns of no more writes
      const b = await create('b');
      const list = await cache.list({}, { predicate: EVERYTHING });
      expect(list.items.map((item) => item.metadata.name)).toEqual(['a', 'b']);
      expect(list.items[1]).toEqual(b);
      expect((await cache.list({}, { resourceVersion: '0', predicate: EVERYTHING })).items).toHaveLength(1);
    });

    it.each([
      [
        { resourceVersionMatch: 'Exact' as const },
        'resourceVersionMatch is forbidden unless resourceVersion is provided',
      ],
      [
        { resourceVersion: '0', resourceVersionMatch: 'Exact' as const },
        'resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
      ],
      [{ resourceVersion: '5', continue: 'x' }, 'specifying resource version is not allowed when using continue'],
      [
        { continue: 'not a token!' },
        'invalid continue token: continue key is not valid: illegal base64 data at input byte 3',
      ],
    ])('refuses %j like the store', async (options, message) => {
      const { cache, direct } = await setup();
      for (const storage of [cache, direct]) {
        const error = await objectError(storage.list({}, { ...options, predicate: EVERYTHING }));
        expect([error.reason, error.message]).toEqual(['BadRequest', message]);
      }
    });

    it('reads from the store until the first list is done', async () => {
      const { cache, stop } = await unlistedPodsCache({
        store,
        keyPrefix: freshPrefix('pods'),
        seed: pod('a'),
        tuning: { readyWaitMs: 50 },
      });
      try {
        expect(cache.ready).toBe(false);
        const one = await cache.list({}, { resourceVersion: '0', predicate: EVERYTHING });
        const two = await cache.list({}, { resourceVersion: '0', predicate: EVERYTHING });
        expect(one.items).toEqual(two.items);
        expect(one.items[0]).not.toBe(two.items[0]);
        const watch = await cache.watch({}, { resourceVersion: '0', predicate: EVERYTHING });
        expect(summary(await readWatch(watch).take(1))).toEqual([`ADDED a@${one.items[0].metadata.resourceVersion}`]);
        watch.stop();
      } finally {
        stop();
      }
    });
  });

  describe('objectsNow and objectNow (in-process reads of the current state)', () => {
    it('answer what a list and a get at "0" answer, the same objects', async () => {
      const { cache, create, settled } = await setup();
      for (const [name, namespace] of [
        ['a', 'ns'],
        ['b', 'other'],
        ['c', 'ns'],
      ])
        await settled(await create(name, { namespace }));
      const all = await cache.list({}, { resourceVersion: '0', predicate: EVERYTHING });
      expect(cache.objectsNow({})).toEqual(all.items);
      expect(cache.objectsNow({})!.every((object, index) => object === all.items[index])).toBe(true);
      const inNs = cache.objectsNow({ namespace: 'ns' })!;
      expect(inNs.map((object) => object.metadata.name)).toEqual(['a', 'c']);
      expect(inNs[0]).toBe(await cache.get({ namespace: 'ns', name: 'a' }, { resourceVersion: '0' }));
      expect(cache.objectsNow({ namespace: 'empty' })).toEqual([]);

      expect(cache.objectNow({ namespace: 'other', name: 'b' })).toBe(all.items[2]);
      expect(cache.objectNow({ namespace: 'other', name: 'a' })).toBeNull();
    });

    it("keep the whole cache's objects until a write changes them", async () => {
      const { cache, create, modify, settled } = await setup();
      await settled(await create('a'));
      const first = cache.objectsNow({})!;
      expect(cache.objectsNow({})).toBe(first);
      // A namespace's objects are read each time; only the whole cache's are kept.
      expect(cache.objectsNow({ namespace: 'ns' })).not.toBe(cache.objectsNow({ namespace: 'ns' }));

      await settled(await create('b'));
      const second = cache.objectsNow({})!;
      expect(second).not.toBe(first);
      expect(second.map((object) => object.metadata.name)).toEqual(['a', 'b']);
      expect(cache.objectsNow({})).toBe(second);

      const updated = await modify('a', (object) => {
        object.spec = { n: 7 };
      });
      await settled(updated);
      expect(cache.objectsNow({})![0]).toEqual(updated);

      await settled(await cache.delete({ namespace: 'ns', name: 'b' }));
      expect(cache.objectsNow({})!.map((object) => object.metadata.name)).toEqual(['a']);
      expect(cache.objectNow({ namespace: 'ns', name: 'b' })).toBeNull();
    });

    it('cannot answer (undefined) until the first list is done', async () => {
      const { cache, stop } = await unlistedPodsCache({ store, keyPrefix: freshPrefix('pods'), seed: pod('a') });
      try {
        expect(cache.objectsNow({})).toBeUndefined();
        expect(cache.objectsNow({ namespace: 'ns' })).toBeUndefined();
        expect(cache.objectNow({ namespace: 'ns', name: 'a' })).toBeUndefined();
      } finally {
        stop();
      }
    });
  });

  describe('watch', () => {
    it('resumes from N with the ring events after it; DELETED carries the deletion revision', async () => {
      const { cache, create, modify } = await setup();
      const a = await create('a');
      const b = await create('b');
      const a2 = await modify('a', (object) => {
        object.spec = { n: 1 };
      });
      const deleted = await cache.delete({ namespace: 'ns', name: 'b' });
      expect(rvOf(deleted)).toBeGreaterThan(rvOf(a2));
      const watch = await cache.watch({}, { resourceVersion: a.metadata.resourceVersion, predicate: EVERYTHING });
      const reader = readWatch(watch);
      expect(summary(await reader.take(3))).toEqual([
        `ADDED b@${rvOf(b)}`,
        `MODIFIED a@${rvOf(a2)}`,
        `DELETED b@${rvOf(deleted)}`,
      ]);
      const c = await create('c');
      expect(summary(await reader.take(1))).toEqual([`ADDED c@${rvOf(c)}`]);
      watch.stop();
      expect(await reader.next()).toBe('end');
    });

    it('serves a revision older than the ring from the store, and answers 410 in-band once compacted', async () => {
      const { cache, create, modify, settled } = await setup({
        ...FAST,
        ring: { initialCapacity: 2, minCapacity: 2, maxCapacity: 2 },
      });
      const a = await create('a');
      const modified: KubeObject[] = [];
      for (let n = 1; n <= 3; n++) {
        modified.push(await modify('a', (object) => void (object.spec = { n })));
        await settled(modified[modified.length - 1]);
      }
      expect(cache.stats().windowStart).toBeGreaterThan(rvOf(a));
      const fromStore = await cache.watch({}, { resourceVersion: a.metadata.resourceVersion, predicate: EVERYTHING });
      expect(summary(await readWatch(fromStore).take(3))).toEqual(
        modified.map((object) => `MODIFIED a@${rvOf(object)}`),
      );
      expect(cache.stats().historyWatches).toBe(1);
      fromStore.stop();
      expect(cache.stats().historyWatches).toBe(0);

      const target = await store.currentRevision();
      await writeCompactRevision(store, target);
      await store.compact(target);
      await waitUntil('the compaction in the cache window', () => cache.stats().windowStart >= target - 1, 3_000, 10);
      const oldest = cache.stats().windowStart;
      const watch = await cache.watch({}, { resourceVersion: a.metadata.resourceVersion, predicate: EVERYTHING });
      const reader = readWatch(watch);
      const event = await reader.next();
      expect(event !== 'end' && event.type === 'ERROR' && event.error).toBeInstanceOf(ObjectError);
      const error = (event as { error: Error }).error as ObjectError;
      expect([error.reason, error.message]).toEqual(['Expired', `too old resource version: ${rvOf(a)} (${oldest})`]);
      expect(await reader.next()).toBe('end');
      // The window start itself is still resumable.
      const fromOldest = await cache.watch({}, { resourceVersion: String(oldest), predicate: EVERYTHING });
      expect((await readWatch(fromOldest).next()) as ObjectWatchEvent).toMatchObject({ type: 'MODIFIED' });
      fromOldest.stop();
    });

    it('starts "" and "0" with the state as ADDED, then live events', async () => {
      const { cache, create, settled } = await setup();
      const a = await create('a');
      const b = await create('b', { namespace: 'other' });
      // Key order: namespace, then name.
      const state = [`ADDED a@${rvOf(a)}`, `ADDED b@${rvOf(b)}`];
      for (const resourceVersion of [undefined, '0']) {
        if (resourceVersion === '0') await settled(b);
        const watch = await cache.watch({}, { resourceVersion, predicate: EVERYTHING });
        const reader = readWatch(watch);
        expect(summary(await reader.take(state.length))).toEqual(state);
        expect(await reader.quietFor(50)).toBe(true);
        const c = await create(`c${state.length}`);
        expect(summary(await reader.take(1))).toEqual([`ADDED ${c.metadata.name}@${rvOf(c)}`]);
        await settled(c);
        state.splice(state.length - 1, 0, `ADDED ${c.metadata.name}@${rvOf(c)}`); // before other/b
        watch.stop();
      }
      const scoped = await cache.watch({ namespace: 'other' }, { resourceVersion: '0', predicate: EVERYTHING });
      const scopedReader = readWatch(scoped);
      expect(summary(await scopedReader.take(1))).toEqual([`ADDED b@${rvOf(b)}`]);
      await create('d');
      const e = await create('e', { namespace: 'other' });
      expect(summary(await scopedReader.take(1))).toEqual([`ADDED e@${rvOf(e)}`]);
      scoped.stop();
    });

    it('sends the initial-events-end bookmark after the initial state', async () => {
      const { cache, create, replica } = await setup();
      const a = await create('a');
      const watch = await cache.watch(
        {},
        {
          resourceVersion: a.metadata.resourceVersion,
          sendInitialEvents: true,
          allowWatchBookmarks: true,
          predicate: EVERYTHING,
        },
      );
      const [added, bookmark] = await readWatch(watch).take(2);
      expect(summary([added])).toEqual([`ADDED a@${rvOf(a)}`]);
      expect(bookmark).toEqual({
        type: 'BOOKMARK',
        object: {
          metadata: {
            resourceVersion: String(replica.feed.revision),
            annotations: { [INITIAL_EVENTS_END_ANNOTATION]: 'true' },
          },
        },
      });
      watch.stop();

      const future = String(replica.feed.revision + 50);
      const tooLarge = await cache.watch(
        {},
        { resourceVersion: future, sendInitialEvents: true, predicate: EVERYTHING },
      );
      const event = await readWatch(tooLarge).next();
      expect(event !== 'end' && event.type === 'ERROR' && (event.error as ObjectError).reason).toBe(
        'TooLargeResourceVersion',
      );
    });

    it('sends periodic bookmarks to watchers that asked, and one before the deadline', async () => {
      const { cache, create } = await setup({ ...FAST, bookmarkIntervalMs: 150, deadlineBookmarkLeadMs: 300 });
      await create('a');
      const asked = await cache.watch({}, { resourceVersion: '0', allowWatchBookmarks: true, predicate: EVERYTHING });
      const notAsked = await cache.watch({}, { resourceVersion: '0', predicate: EVERYTHING });
      const askedReader = readWatch(asked);
      const notAskedReader = readWatch(notAsked);
      await askedReader.take(1);
      await notAskedReader.take(1);
      const [bookmark] = await askedReader.take(1, 2_000);
      expect(bookmark.type).toBe('BOOKMARK');
      expect(await notAskedReader.quietFor(400)).toBe(true);
      asked.stop();
      notAsked.stop();

      // Deadline 1 s, interval longer than that: the one bookmark comes about 300 ms before the end.
      const { cache: slowBookmarks } = await setup({
        ...FAST,
        bookmarkIntervalMs: 60_000,
        deadlineBookmarkLeadMs: 300,
      });
      const started = Date.now();
      const timed = await slowBookmarks.watch(
        {},
        { resourceVersion: '0', allowWatchBookmarks: true, timeoutSeconds: 1, predicate: EVERYTHING },
      );
      const timedReader = readWatch(timed);
      const deadlineBookmark = await timedReader.next(2_000);
      expect(deadlineBookmark !== 'end' && deadlineBookmark.type).toBe('BOOKMARK');
      const at = Date.now() - started;
      expect(at).toBeGreaterThanOrEqual(600);
      expect(at).toBeLessThan(1_000);
      expect(await timedReader.next(2_000)).toBe('end');
      expect(Date.now() - started).toBeGreaterThanOrEqual(990);
    });

    it('applies the enter/leave rule of selectors and indexes watchers by name', async () => {
      const { cache, create, modify } = await setup();
      const web = await cache.watch({}, { resourceVersion: '0', predicate: labelled('web') });
      const byName = await cache.watch({ namespace: 'ns' }, { resourceVersion: '0', predicate: named('x') });
      const webReader = readWatch(web);
      const nameReader = readWatch(byName);
      const x = await create('x', { labels: { app: 'db' } });
      const entered = await modify('x', (object) => void (object.metadata.labels = { app: 'web' }));
      const changed = await modify('x', (object) => void (object.spec = { n: 2 }));
      const left = await modify('x', (object) => void (object.metadata.labels = { app: 'db' }));
      await create('y', { labels: { app: 'web' } });
      const deleted = await cache.delete({ namespace: 'ns', name: 'x' });

      expect(summary(await webReader.take(4))).toEqual([
        `ADDED x@${rvOf(entered)}`,
        `MODIFIED x@${rvOf(changed)}`,
        `DELETED x@${rvOf(left)}`,
        `ADDED y@${rvOf(left) + 1}`,
      ]);
      expect(await webReader.quietFor(50)).toBe(true);
      expect(summary(await nameReader.take(5))).toEqual([
        `ADDED x@${rvOf(x)}`,
        `MODIFIED x@${rvOf(entered)}`,
        `MODIFIED x@${rvOf(changed)}`,
        `MODIFIED x@${rvOf(left)}`,
        `DELETED x@${rvOf(deleted)}`,
      ]);
      // The leaving object is the old state at the new revision.
      web.stop();
      byName.stop();
    });

    it('ends the stream at timeoutSeconds', async () => {
      const { cache } = await setup();
      const started = Date.now();
      const watch = await cache.watch({}, { resourceVersion: '0', timeoutSeconds: 1, predicate: EVERYTHING });
      expect(await readWatch(watch).next(3_000)).toBe('end');
      expect(Date.now() - started).toBeGreaterThanOrEqual(990);
      expect(cache.stats().watchers).toBe(0);
    });

    it('drops a watcher that does not read while the others keep up', async () => {
      const { cache, create } = await setup({
        ...FAST,
        watcherBufferSize: 5,
        dispatchBudget: { maxMs: 20, refillMsPerSecond: 20 },
      });
      const slow = await cache.watch({}, { resourceVersion: '0', predicate: EVERYTHING });
      const fast = await cache.watch({}, { resourceVersion: '0', predicate: EVERYTHING });
      const fastReader = readWatch(fast);
      const received: ObjectWatchEvent[] = [];
      // The fast reader keeps up with each write; the slow one never reads.
      for (let i = 0; i < 40; i++) {
        await create(`p${i}`);
        received.push(...(await fastReader.take(1)));
      }
      expect(received.map((event) => (event.type === 'ERROR' ? '' : event.object.metadata.name))).toEqual(
        Array.from({ length: 40 }, (_, i) => `p${i}`),
      );
      await waitUntil('the slow watcher closed', () => cache.stats().terminatedWatchers === 1, 3_000, 10);
      expect(await readWatch(slow).next()).toBe('end');
      expect(cache.stats().watchers).toBe(1);
      fast.stop();
    });

    it('drops a watcher whose queue holds too many bytes, well before too many events', async () => {
      // Each pod is a few hundred bytes stored: 2 KiB of them fill the queue long before 1,000 events do.
      const { cache, create } = await setup({
        ...FAST,
        watcherBufferSize: 1_000,
        watcherBufferBytes: 2_048,
        dispatchBudget: { maxMs: 20, refillMsPerSecond: 20 },
      });
      const slow = await cache.watch({}, { resourceVersion: '0', predicate: EVERYTHING });
      let ended = false;
      void slow.done.then(() => (ended = true));
      for (let i = 0; i < 40 && !ended; i++) await create(`p${i}`);
      await waitUntil('the slow watcher closed', () => cache.stats().terminatedWatchers === 1, 3_000, 10);
      expect(ended).toBe(true);
      expect(await readWatch(slow).next()).toBe('end');
      expect(cache.stats().watchers).toBe(0);
    });
  });

  describe('after the feed lost events', () => {
    it('closes the watchers, reads from the store while listing again, then serves again', async () => {
      const { cache, create, settled } = await setup();
      const a = await create('a');
      await settled(a);
      const watch = await cache.watch({}, { resourceVersion: '0', predicate: EVERYTHING });
      const reader = readWatch(watch);
      await reader.take(1);

      cache.onReset(); // what the feed calls when it had to restart past a compacted revision
      expect(cache.ready).toBe(false);
      const [one, two] = await Promise.all(
        [0, 1].map(() => cache.list({}, { resourceVersion: '0', predicate: EVERYTHING })),
      );
      expect(one.items).toEqual([a]);
      expect(one.items[0]).not.toBe(two.items[0]);
      expect(await reader.next()).toBe('end');

      expect(await cache.whenReady(2_000)).toBe(true);
      const b = await create('b');
      await settled(b);
      const list = await cache.list({}, { resourceVersion: '0', predicate: EVERYTHING });
      expect(list.items).toEqual([a, b]);
      expect((await cache.list({}, { resourceVersion: '0', predicate: EVERYTHING })).items[0]).toBe(list.items[0]);
    });
  });

  describe('compaction announced through compact_rev_key', () => {
    it('expires watches from before the compacted revision', async () => {
      const { cache, create } = await setup();
      const a = await create('a');
      await create('b');
      const target = await store.currentRevision();
      await writeCompactRevision(store, target);
      await store.compact(target);
      await waitUntil('the compaction in the cache window', () => cache.stats().windowStart >= target - 1, 3_000, 10);
      const watch = await cache.watch({}, { resourceVersion: String(rvOf(a) - 1), predicate: EVERYTHING });
      const event = await readWatch(watch).next();
      expect(event !== 'end' && event.type === 'ERROR' && (event.error as ObjectError).reason).toBe('Expired');
    });
  });
});
