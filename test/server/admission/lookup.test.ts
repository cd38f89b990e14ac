/**
 * Admission's lookups read a watch cache's current state directly, and go through the storage's
 * own list or get (at resourceVersion 0) only when the cache cannot answer or there is no cache.
 * On SQLite; the cache's own reads are tested on both backends (test/storage/cache/).
 */
import { getCached, listCached } from '../../../server/admission/lookup';
import { ResourceStore } from '../../../storage/objects/resource-store';
import type { ObjectStorage } from '../../../storage/objects/types';
import type { RevisionedStore } from '../../../storage/store';
import { BACKENDS, freshPrefix, type RunningBackend } from '../../storage/objects/backends';
import { podsResource, type Replica, startReplica, unlistedPodsCache } from '../../storage/cache/replica';

import type { KubeObject } from '../../../api/objects';

const SQLITE = BACKENDS.find((backend) => backend.name === 'sqlite')!;

function pod(name: string, namespace = 'ns'): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace }, spec: {} };
}

/** `storage` with its list and get calls counted. */
function counted(storage: ObjectStorage): { lists: () => number; gets: () => number } {
  const list = jest.spyOn(storage, 'list');
  const get = jest.spyOn(storage, 'get');
  return { lists: () => list.mock.calls.length, gets: () => get.mock.calls.length };
}

describe('admission lookups', () => {
  let running: RunningBackend;
  let store: RevisionedStore;
  let replica: Replica | undefined;

  beforeAll(async () => {
    running = await SQLITE.start();
    store = await running.connect();
  });
  afterEach(() => replica?.stop());
  afterAll(() => running.stop());

  async function readyCache(names: readonly [string, string][]) {
    const keyPrefix = freshPrefix('pods');
    const direct = new ResourceStore({ store, ...podsResource(keyPrefix) });
    for (const [namespace, name] of names) await direct.create({ namespace, name }, pod(name, namespace));
    replica = await startReplica({ store, resources: [podsResource(keyPrefix)] });
    return { cache: replica.cacheFor(keyPrefix), direct };
  }

  it("read a ready cache's state without a list or a get", async () => {
    const { cache } = await readyCache([
      ['ns', 'a'],
      ['other', 'b'],
    ]);
    const { lists, gets } = counted(cache);
    const all = await listCached(cache);
    expect(all.map((object) => object.metadata.name)).toEqual(['a', 'b']);
    expect(await listCached(cache)).toBe(all);
    expect((await listCached(cache, 'other')).map((object) => object.metadata.name)).toEqual(['b']);
    expect(await getCached(cache, 'a', 'ns')).toBe(all[0]);
    expect(await getCached(cache, 'a', 'other')).toBeUndefined();
    expect([lists(), gets()]).toEqual([0, 0]);
  });

  it('ask the storage at resourceVersion 0 when there is no cache, or it cannot answer yet', async () => {
    const {
      cache: notReady,
      direct,
      stop,
    } = await unlistedPodsCache({
      store,
      keyPrefix: freshPrefix('pods'),
      seed: pod('a'),
    });
    try {
      for (const storage of [direct, notReady]) {
        const { lists, gets } = counted(storage);
        expect((await listCached(storage)).map((object) => object.metadata.name)).toEqual(['a']);
        expect((await listCached(storage, 'ns')).map((object) => object.metadata.name)).toEqual(['a']);
        expect((await getCached(storage, 'a', 'ns'))?.metadata.name).toBe('a');
        expect(await getCached(storage, 'b', 'ns')).toBeUndefined();
        expect([lists(), gets()]).toEqual([2, 2]);
        jest.restoreAllMocks();
      }
    } finally {
      stop();
    }
  });
});
