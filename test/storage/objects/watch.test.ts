/** Watches served straight from both real backends. */
import { ObjectError } from '../../../storage/errors';
import { ResourceStore } from '../../../storage/objects/resource-store';
import {
  INITIAL_EVENTS_END_ANNOTATION,
  startStoreWatch,
  WATCH_EXPIRED_MESSAGE,
} from '../../../storage/objects/store-watch';
import { EVERYTHING, ObjectWatch, ObjectWatchEvent, Predicate } from '../../../storage/objects/types';
import type { RevisionedStore } from '../../../storage/store';
import { BACKENDS, freshPrefix, RunningBackend } from './backends';
import { readWatch } from './watch-reader';

import { KubeObject } from '../../../api/objects';
const summary = (event: ObjectWatchEvent | 'end'): string => {
  if (event === 'end') return 'end';
  if (event.type === 'ERROR') return `ERROR ${event.error.message}`;
  return `${event.type} ${event.object.metadata.name ?? ''}@${event.object.metadata.resourceVersion}`;
};

const blue: Predicate = { everything: false, matches: (object) => object.metadata.labels?.color === 'blue' };

function pod(name: string, labels: Record<string, string> = {}): KubeObject {
  return { kind: 'Pod', metadata: { name, namespace: 'ns', labels } };
}

describe.each(BACKENDS)('ResourceStore watch on $name', (backend) => {
  let running: RunningBackend;
  let store: RevisionedStore;
  const watches: ObjectWatch[] = [];

  beforeAll(async () => {
    running = await backend.start();
    store = await running.connect();
  });
  afterEach(() => {
    for (const watch of watches.splice(0)) watch.stop();
  });
  afterAll(() => running.stop());

  const newResources = (): ResourceStore =>
    new ResourceStore({
      store,
      keyPrefix: freshPrefix('pods'),
      qualifiedResource: { group: '', resource: 'pods' },
      namespaced: true,
    });
  const track = (watch: ObjectWatch): ObjectWatch => {
    watches.push(watch);
    return watch;
  };

  it('from a resourceVersion: the events after it, a deletion at its own revision', async () => {
    const resources = newResources();
    const a = await resources.create({ namespace: 'ns', name: 'a' }, pod('a'));
    const watch = readWatch(
      track(
        await resources.watch(
          { namespace: 'ns' },
          { predicate: EVERYTHING, resourceVersion: a.metadata.resourceVersion },
        ),
      ),
    );

    const modified = await resources.update({ namespace: 'ns', name: 'a' }, (current) => ({
      ...(current as KubeObject),
      spec: { n: 1 },
    }));
    const b = await resources.create({ namespace: 'ns', name: 'b' }, pod('b'));
    await resources.create({ namespace: 'other', name: 'c' }, pod('c'));
    const deleted = await resources.delete({ namespace: 'ns', name: 'a' });

    const events = await watch.take(3);
    expect(events.map(summary)).toEqual([
      `MODIFIED a@${modified.object.metadata.resourceVersion}`,
      `ADDED b@${b.metadata.resourceVersion}`,
      `DELETED a@${deleted.metadata.resourceVersion}`,
    ]);
    // The deletion shows the last state the object had.
    expect((events[2] as { object: KubeObject }).object.spec).toEqual({ n: 1 });
    expect(await watch.quietFor(200)).toBe(true);
  });

  it('without a resourceVersion: the current state as ADDED, then live events', async () => {
    const resources = newResources();
    const b = await resources.create({ namespace: 'ns', name: 'b' }, pod('b'));
    const a = await resources.create({ namespace: 'ns', name: 'a' }, pod('a'));
    const watch = readWatch(track(await resources.watch({}, { predicate: EVERYTHING })));
    expect((await watch.take(2)).map(summary)).toEqual([
      `ADDED a@${a.metadata.resourceVersion}`,
      `ADDED b@${b.metadata.resourceVersion}`,
    ]);

    const c = await resources.create({ namespace: 'ns', name: 'c' }, pod('c'));
    expect(summary(await watch.next())).toBe(`ADDED c@${c.metadata.resourceVersion}`);
  });

  it('without a resourceVersion and without initial events: only what happens next', async () => {
    const resources = newResources();
    await resources.create({ namespace: 'ns', name: 'a' }, pod('a'));
    const watch = readWatch(track(await resources.watch({}, { predicate: EVERYTHING, sendInitialEvents: false })));
    const b = await resources.create({ namespace: 'ns', name: 'b' }, pod('b'));
    expect(summary(await watch.next())).toBe(`ADDED b@${b.metadata.resourceVersion}`);
  });

  it('ends the initial state with an annotated bookmark when asked', async () => {
    const resources = newResources();
    await resources.create({ namespace: 'ns', name: 'a' }, pod('a'));
    const revision = await store.currentRevision();
    const watch = readWatch(
      track(await resources.watch({}, { predicate: EVERYTHING, sendInitialEvents: true, allowWatchBookmarks: true })),
    );
    const [added, bookmark] = await watch.take(2);
    expect(added.type).toBe('ADDED');
    expect(bookmark).toEqual({
      type: 'BOOKMARK',
      object: {
        metadata: { resourceVersion: String(revision), annotations: { [INITIAL_EVENTS_END_ANNOTATION]: 'true' } },
      },
    });
  });

  it('shows objects entering and leaving the selection as ADDED and DELETED', async () => {
    const resources = newResources();
    const key = { namespace: 'ns', name: 'a' };
    const created = await resources.create(key, pod('a', { color: 'red' }));
    const watch = readWatch(
      track(await resources.watch({}, { predicate: blue, resourceVersion: created.metadata.resourceVersion })),
    );
    const paint = (color: string) =>
      resources.update(key, (current) => {
        const object = current as KubeObject;
        return { ...object, metadata: { ...object.metadata, labels: { color } } };
      });

    const entered = await paint('blue');
    const left = await paint('green');
    await resources.delete(key);
    const events = await watch.take(2);
    expect(events.map(summary)).toEqual([
      `ADDED a@${entered.object.metadata.resourceVersion}`,
      `DELETED a@${left.object.metadata.resourceVersion}`,
    ]);
    // Leaving shows the last state the watcher could see, stamped with the change that removed it.
    expect((events[1] as { object: KubeObject }).object.metadata.labels).toEqual({ color: 'blue' });
    expect(await watch.quietFor(200)).toBe(true);
  });

  it('reports a compacted start as an Expired ERROR event, then ends', async () => {
    const resources = newResources();
    const first = await resources.create({ namespace: 'ns', name: 'a' }, pod('a'));
    await resources.create({ namespace: 'ns', name: 'b' }, pod('b'));
    await resources.create({ namespace: 'ns', name: 'c' }, pod('c'));
    // History is kept from the compacted revision on; the watch needs the one after `first`.
    await store.compact(await store.currentRevision());

    const watch = readWatch(
      track(await resources.watch({}, { predicate: EVERYTHING, resourceVersion: first.metadata.resourceVersion })),
    );
    const event = await watch.next();
    expect(summary(event)).toBe(`ERROR ${WATCH_EXPIRED_MESSAGE}`);
    const error = event !== 'end' && event.type === 'ERROR' ? event.error : undefined;
    expect(error).toBeInstanceOf(ObjectError);
    expect((error as ObjectError).reason).toBe('Expired');
    expect(await watch.next()).toBe('end');
  });

  it('ends after timeoutSeconds, and when stopped', async () => {
    const resources = newResources();
    const timed = readWatch(track(await resources.watch({}, { predicate: EVERYTHING, timeoutSeconds: 0.2 })));
    expect(await timed.next(3_000)).toBe('end');

    const stopped = track(await resources.watch({}, { predicate: EVERYTHING }));
    const reader = readWatch(stopped);
    stopped.stop();
    expect(await reader.next()).toBe('end');
  });

  it('drops a reader that falls too far behind', async () => {
    const start = await store.currentRevision();
    const keyPrefix = freshPrefix('pods');
    const slowWatch = track(
      await startStoreWatch({
        store,
        prefix: `${keyPrefix}/`,
        options: { predicate: EVERYTHING, resourceVersion: String(start) },
        bufferSize: 3,
      }),
    );
    const writer = new ResourceStore({
      store,
      keyPrefix,
      qualifiedResource: { group: '', resource: 'pods' },
      namespaced: true,
    });
    for (let i = 0; i < 10; i += 1) await writer.create({ namespace: 'ns', name: `p${i}` }, pod(`p${i}`));
    // A fast reader of the same events gets all ten: the slow one was dropped, not the stream.
    const fast = readWatch(track(await writer.watch({}, { predicate: EVERYTHING, resourceVersion: String(start) })));
    expect(await fast.take(10)).toHaveLength(10);

    const slow = readWatch(slowWatch);
    const received: string[] = [];
    for (let i = 0; i < 11; i += 1) {
      const event = await slow.next();
      if (event === 'end') break;
      received.push(summary(event));
    }
    expect(received.length).toBeLessThan(10);
  });
});
