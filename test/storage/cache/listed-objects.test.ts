/**
 * What a watch cache lists at start stays the store's bytes until it is read: listing decodes
 * nothing, the first read decodes an object once and every later read shares it. Bytes that do
 * not decode leave the cache ready for everything else; a read that meets them is answered by
 * the store, exactly as the store answers it. On both real backends.
 */
import { ObjectError } from '../../../storage/errors';
import { encodeObject, JSON_VALUE_CODEC, type ValueCodec } from '../../../storage/objects/codec';
import { ResourceStore } from '../../../storage/objects/resource-store';
import { EVERYTHING, type ObjectWatch, type ObjectWatchEvent } from '../../../storage/objects/types';
import type { WatchCache } from '../../../storage/cache/watch-cache';
import type { RevisionedStore } from '../../../storage/store';
import { BACKENDS, freshPrefix, type RunningBackend } from '../objects/backends';
import { podsResource, type Replica, startReplica } from './replica';

import type { KubeObject } from '../../../api/objects';

const OBJECTS = 50;

function pod(name: string): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'ns' }, spec: { n: 0 } };
}

/** JSON, counting the values it decodes. */
function countingCodec(): ValueCodec & { readonly decoded: () => number } {
  let decoded = 0;
  return {
    encode: JSON_VALUE_CODEC.encode,
    decode: (value) => {
      decoded++;
      return JSON_VALUE_CODEC.decode(value);
    },
    decoded: () => decoded,
  };
}

async function objectError(promise: Promise<unknown>): Promise<ObjectError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ObjectError) return error;
    throw error;
  }
  throw new Error('expected an ObjectError');
}

describe.each(BACKENDS)('objects a watch cache listed, on $name', (backend) => {
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

  /** `objects` pods written before the replica starts (so it lists them), and the replica, ready. */
  async function listedBy(options: { corrupt?: string; objects?: number } = {}) {
    const keyPrefix = freshPrefix('pods');
    const codec = countingCodec();
    const names = Array.from(
      { length: options.objects ?? OBJECTS },
      (_, index) => `pod-${String(index).padStart(2, '0')}`,
    );
    for (let first = 0; first < names.length; first += OBJECTS)
      await Promise.all(
        names
          .slice(first, first + OBJECTS)
          .map((name) => store.create(`${keyPrefix}/ns/${name}`, encodeObject(pod(name)))),
      );
    if (options.corrupt !== undefined)
      await store.create(`${keyPrefix}/ns/${options.corrupt}`, Buffer.from('\u0000not an object'));
    const resource = { ...podsResource(keyPrefix), codec };
    const replica = await startReplica({ store, resources: [resource] });
    replicas.push(replica);
    return {
      codec,
      cache: replica.cacheFor(keyPrefix),
      direct: new ResourceStore({ store, ...resource }),
    };
  }

  it('decodes nothing at start, each object on its first read, and shares it afterwards', async () => {
    const { codec, cache } = await listedBy();
    expect(codec.decoded()).toBe(0);

    const first = await cache.get({ namespace: 'ns', name: 'pod-07' }, { resourceVersion: '0' });
    expect(first.metadata).toMatchObject({ name: 'pod-07', resourceVersion: expect.stringMatching(/^\d+$/) });
    expect(codec.decoded()).toBe(1);
    expect(await cache.get({ namespace: 'ns', name: 'pod-07' })).toBe(first);
    expect(codec.decoded()).toBe(1);

    const listed = await cache.list({ namespace: 'ns' }, { predicate: EVERYTHING, resourceVersion: '0' });
    expect(listed.items).toHaveLength(OBJECTS);
    expect(listed.items[7]).toBe(first);
    expect(codec.decoded()).toBe(OBJECTS);
    const again = await cache.list({ namespace: 'ns' }, { predicate: EVERYTHING });
    expect(again.items.every((item, index) => item === listed.items[index])).toBe(true);
    expect(codec.decoded()).toBe(OBJECTS);
  });

  it.each([
    [
      "a watch's first state",
      async (cache: WatchCache) =>
        (await cache.watch({ namespace: 'ns' }, { predicate: EVERYTHING, resourceVersion: '0' })).stop(),
    ],
    [
      'a list from the cache (resourceVersion=0)',
      async (cache: WatchCache) =>
        expect((await cache.list({}, { predicate: EVERYTHING, resourceVersion: '0' })).items).toHaveLength(2_500),
    ],
    [
      'a consistent list with no limit',
      async (cache: WatchCache) => expect((await cache.list({}, { predicate: EVERYTHING })).items).toHaveLength(2_500),
    ],
  ])('decodes what %s reads in slices, the event loop running between them', async (_case, read) => {
    const objects = 2_500;
    const { codec, cache } = await listedBy({ objects });
    const seenBetween: number[] = [];
    const sample = () => {
      seenBetween.push(codec.decoded());
      if (codec.decoded() < objects) setImmediate(sample);
    };
    setImmediate(sample);
    await read(cache);
    expect(codec.decoded()).toBe(objects);
    expect(seenBetween.some((decoded) => decoded > 0 && decoded < objects)).toBe(true);
  });

  it('lists keys whose byte order is not string order (characters beyond U+D7FF)', async () => {
    const keyPrefix = freshPrefix('pods');
    // The store answers U+FF61 first (UTF-8 EF BD A1 < F0 9F 98 80); JavaScript's order puts
    // U+1F600 (surrogates D83D DE00) first.
    const names = ['\uFF61', '\u{1F600}'];
    for (const name of names) await store.create(`${keyPrefix}/ns/${name}`, encodeObject(pod(name)));
    const replica = await startReplica({ store, resources: [podsResource(keyPrefix)] });
    replicas.push(replica);
    const cache = replica.cacheFor(keyPrefix);
    for (const name of names)
      expect((await cache.get({ namespace: 'ns', name }, { resourceVersion: '0' })).metadata.name).toBe(name);
  });

  it('with bytes that do not decode, is ready and lets the store answer the reads that meet them', async () => {
    const { cache, direct } = await listedBy({ corrupt: 'zz-broken' });
    const broken = { namespace: 'ns', name: 'zz-broken' };

    const fromStore = await objectError(direct.get(broken));
    expect(fromStore.message).toMatch(/^StorageError: corrupt object, Code: 7, Key: /);
    expect(await objectError(cache.get(broken))).toEqual(fromStore);
    expect(await objectError(cache.get(broken, { resourceVersion: '0' }))).toEqual(fromStore);

    const listFromStore = await objectError(direct.list({ namespace: 'ns' }, { predicate: EVERYTHING }));
    expect(listFromStore.reason).toBe('StorageReadError');
    for (const resourceVersion of ['', '0'])
      expect(await objectError(cache.list({ namespace: 'ns' }, { predicate: EVERYTHING, resourceVersion }))).toEqual(
        listFromStore,
      );

    // The readable objects are served from the cache: the same object to every reader.
    const fine = { namespace: 'ns', name: 'pod-03' };
    expect(await cache.get(fine, { resourceVersion: '0' })).toBe(await cache.get(fine));
    const page = await cache.list({ namespace: 'ns' }, { predicate: EVERYTHING, limit: 5 });
    expect(page.items.map((item) => item.metadata.name)).toEqual(['pod-00', 'pod-01', 'pod-02', 'pod-03', 'pod-04']);
    expect(page.items[3]).toBe(await cache.get(fine));

    // In-process readers of the current state are told to ask the store for what meets them.
    expect(cache.objectNow(broken)).toBeUndefined();
    expect(cache.objectsNow({ namespace: 'ns' })).toBeUndefined();
    expect(cache.objectsNow({})).toBeUndefined();
    expect(cache.objectNow(fine)).toBe(await cache.get(fine));

    // A watch that starts with the state is the store's: the objects before the unreadable one,
    // its error, and the end, as the reference's etcd watcher sends them.
    const watchOptions = { predicate: EVERYTHING, resourceVersion: '0' };
    const eventsOf = async (watch: ObjectWatch) => {
      const events: ObjectWatchEvent[] = [];
      for await (const event of watch) events.push(event);
      return events;
    };
    const watchFromStore = await eventsOf(await direct.watch({ namespace: 'ns' }, watchOptions));
    expect(watchFromStore.map((event) => event.type)).toEqual([...Array(OBJECTS).fill('ADDED'), 'ERROR']);
    expect(watchFromStore.at(-1)).toEqual({ type: 'ERROR', error: fromStore });
    expect(await eventsOf(await cache.watch({ namespace: 'ns' }, watchOptions))).toEqual(watchFromStore);
  });
});
