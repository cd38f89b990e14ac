/**
 * Caches come and go while the replica serves (resource types added and removed), over both
 * real backends: a cache added to a running set lists what the store already holds and then
 * follows the one feed; a removed cache ends its watches and the feed stops handing it events.
 */
import { ResourceStore } from '../../../storage/objects/resource-store';
import { EVERYTHING } from '../../../storage/objects/types';
import type { RevisionedStore } from '../../../storage/store';
import { BACKENDS, freshPrefix, type RunningBackend } from '../objects/backends';
import { readWatch } from '../objects/watch-reader';
import { podsResource, type Replica, startReplica } from './replica';
import { waitUntil } from '../../helpers/wait-for';

import type { KubeObject } from '../../../api/objects';
function pod(name: string): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'ns' }, spec: {} };
}

describe.each(BACKENDS)('a cache set changing while serving, on $name', (backend) => {
  let running: RunningBackend;
  let store: RevisionedStore;
  let replica: Replica | undefined;

  beforeAll(async () => {
    running = await backend.start();
    store = await running.connect();
  });
  afterEach(() => replica?.stop());
  afterAll(() => running.stop());

  test('an added cache lists what is stored, then follows the feed; a removed one ends its watches', async () => {
    const first = freshPrefix('pods');
    const later = freshPrefix('widgets');
    replica = await startReplica({ store, resources: [podsResource(first)] });
    const direct = new ResourceStore({ store, ...podsResource(later) });
    await direct.create({ namespace: 'ns', name: 'before' }, pod('before'));

    expect(replica.has(later)).toBe(false);
    const cache = replica.add(podsResource(later));
    expect(replica.has(later)).toBe(true);
    expect(replica.cacheFor(later)).toBe(cache);
    expect(() => replica?.add(podsResource(later))).toThrow(`a watch cache for ${later} exists`);
    expect(await cache.whenReady(5_000)).toBe(true);
    expect(await replica.whenReady(5_000)).toBe(true);

    // A consistent read, served by the cache once the feed has reached the store's revision;
    // then the feed's events.
    const listed = await cache.list({}, { predicate: EVERYTHING });
    expect(listed.items.map((item) => item.metadata.name)).toEqual(['before']);
    const watch = await cache.watch({}, { resourceVersion: listed.resourceVersion, predicate: EVERYTHING });
    const reader = readWatch(watch);
    const created = await direct.create({ namespace: 'ns', name: 'after' }, pod('after'));
    const event = await reader.next();
    expect(event !== 'end' && event.type === 'ADDED' && event.object.metadata.name).toBe('after');
    await waitUntil(
      'the cache to hold both pods',
      () => cache.stats().objects === 2 && cache.stats().revision >= Number(created.metadata.resourceVersion),
      3_000,
      10,
    );

    // Removed: its watch ends, the set forgets it, and writes under its prefix reach no cache.
    replica.remove(later);
    expect(await reader.next()).toBe('end');
    expect(replica.has(later)).toBe(false);
    expect(() => replica?.cacheFor(later)).toThrow(`no watch cache for ${later}`);
    await direct.create({ namespace: 'ns', name: 'unseen' }, pod('unseen'));
    expect(cache.stats().objects).toBe(2);

    // The other cache goes on.
    const pods = new ResourceStore({ store, ...podsResource(first) });
    const still = await pods.create({ namespace: 'ns', name: 'p' }, pod('p'));
    await waitUntil(
      'the first cache to catch up',
      () => (replica as Replica).cacheFor(first).stats().revision >= Number(still.metadata.resourceVersion),
      3_000,
      10,
    );
    expect((replica as Replica).cacheFor(first).stats().objects).toBe(1);
  });

  test('a watch still waiting for a new cache to list ends when the cache is removed', async () => {
    const first = freshPrefix('pods');
    const later = freshPrefix('widgets');
    replica = await startReplica({ store, resources: [podsResource(first)] });
    const cache = replica.add(podsResource(later));
    // Asked before the first list is done, it waits for it; the removal comes first.
    const pending = cache.watch({}, { predicate: EVERYTHING });
    replica.remove(later);
    const reader = readWatch(await pending);
    expect(await reader.next(2_000)).toBe('end');
  });
});
