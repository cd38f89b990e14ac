/**
 * The in-process informer over a watch cache on a real SQLite store: it lists in pages at one
 * revision (so a large type is decoded a page at a time, with requests let in between), and
 * the watch from that revision brings what was written while the pages were read, once. One
 * scoped to a namespace lists, watches and holds only that namespace's objects.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startInformer, type Informer } from '../../../server/client/informer';
import { startCacheSet, type CacheSet } from '../../../storage/cache/cache-set';
import { encodeObject } from '../../../storage/objects/codec';
import type { ListOptions, ListResult, ObjectStorage } from '../../../storage/objects/types';
import { openSqliteStore } from '../../../storage/sqlite/sqlite-store';
import type { RevisionedStore } from '../../../storage/store';
import { waitUntil } from '../../helpers/wait-for';

import type { KubeObject } from '../../../api/objects';

const KEY_PREFIX = '/registry/configmaps';
const STORED = 2_500;

function configMap(name: string, namespace = 'ns'): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: { name } };
}

describe('startInformer', () => {
  let dir: string;
  let store: RevisionedStore;
  let caches: CacheSet;
  let informer: Informer | undefined;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'capstan-informer-'));
    store = await openSqliteStore({ path: join(dir, 'store.db') });
    for (let index = 0; index < STORED; index++)
      await store.create(`${KEY_PREFIX}/ns/cm-${index}`, encodeObject(configMap(`cm-${index}`)));
    caches = await startCacheSet({
      store,
      resources: [
        { keyPrefix: KEY_PREFIX, qualifiedResource: { group: '', resource: 'configmaps' }, namespaced: true },
      ],
    });
    expect(await caches.whenReady(10_000)).toBe(true);
  });

  afterAll(async () => {
    informer?.stop();
    caches.stop();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('lists in pages at one revision; a write made between pages comes by the watch, once', async () => {
    const cache = caches.cacheFor(KEY_PREFIX);
    const lists: { options: ListOptions; result: ListResult }[] = [];
    const recording: ObjectStorage = Object.assign(Object.create(cache) as ObjectStorage, {
      list: async (scope: Parameters<ObjectStorage['list']>[0], options: ListOptions) => {
        const result = await cache.list(scope, options);
        lists.push({ options, result });
        if (lists.length === 1) await cache.create({ namespace: 'ns', name: 'late' }, configMap('late'));
        return result;
      },
    });
    const upserted: string[] = [];
    informer = startInformer(recording, {
      onUpsert: (object) => upserted.push(String(object.metadata.name)),
    });
    await informer.synced;
    await waitUntil('every object and the late one', () => informer!.objects.size === STORED + 1, 5_000);

    expect(lists.map(({ options }) => options.limit)).toEqual([1_000, 1_000, 1_000]);
    expect(lists.map(({ options }) => options.continue !== undefined)).toEqual([false, true, true]);
    const revisions = new Set(lists.map(({ result }) => result.resourceVersion));
    expect(revisions.size).toBe(1);
    expect(lists.flatMap(({ result }) => result.items)).toHaveLength(STORED);
    expect(upserted.filter((name) => name === 'late')).toHaveLength(1);
    expect(upserted).toHaveLength(STORED + 1);
  });

  test("one scoped to a namespace lists, is told of and holds only that namespace's objects", async () => {
    const cache = caches.cacheFor(KEY_PREFIX);
    await cache.create({ namespace: 'kept', name: 'before' }, configMap('before', 'kept'));
    const upserted: string[] = [];
    const deleted: string[] = [];
    const scoped = startInformer(
      cache,
      {
        onUpsert: (object) => upserted.push(`${object.metadata.namespace}/${object.metadata.name}`),
        onDelete: (object) => deleted.push(`${object.metadata.namespace}/${object.metadata.name}`),
      },
      { namespace: 'kept' },
    );
    try {
      await scoped.synced;
      await cache.create({ namespace: 'ns', name: 'elsewhere' }, configMap('elsewhere'));
      await cache.create({ namespace: 'kept', name: 'after' }, configMap('after', 'kept'));
      await cache.delete({ namespace: 'ns', name: 'elsewhere' });
      await cache.delete({ namespace: 'kept', name: 'before' });
      await waitUntil('the kept namespace deletion', () => deleted.length === 1, 5_000);
      expect(upserted).toEqual(['kept/before', 'kept/after']);
      expect(deleted).toEqual(['kept/before']);
      expect([...scoped.objects.keys()]).toEqual(['kept/after']);
    } finally {
      scoped.stop();
    }
  });
});
