/**
 * A write of this replica and the watch cache's event of it share one decoded object, whichever
 * of the two has the stored bytes first, and nothing is kept past what it is kept for.
 */
import { WriteDecodes } from '../../../storage/objects/write-decodes';
import { ResourceStore } from '../../../storage/objects/resource-store';
import type { RevisionedStore } from '../../../storage/store';
import { BACKENDS, freshPrefix, type RunningBackend } from '../objects/backends';
import { podsResource, type Replica, startReplica } from './replica';
import { waitUntil } from '../../helpers/wait-for';

import type { KubeObject } from '../../../api/objects';

function pod(name: string, labels: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'ns', labels }, spec: {} };
}

/** A decode that counts its calls and makes a new object each time, as decoding bytes does. */
function counted(name: string): { decode: () => KubeObject; calls: () => number } {
  let calls = 0;
  return {
    decode: () => {
      calls++;
      return pod(name);
    },
    calls: () => calls,
  };
}

/** Runs `during` while a write of `key` is in flight. */
async function inFlight(decodes: WriteDecodes, key: string, during: () => void): Promise<void> {
  await decodes.writing(key, async () => during());
}

describe('WriteDecodes', () => {
  const kv = (key: string, modRevision: number) => ({ key, modRevision });

  test('the write first: its event takes the object the write decoded', async () => {
    const decodes = new WriteDecodes();
    const { decode, calls } = counted('a');
    let answer: KubeObject | undefined;
    await inFlight(decodes, '/a', () => (answer = decodes.forWrite(kv('/a', 5), decode)));
    expect(decodes.forEvent(kv('/a', 5), decode)).toBe(answer);
    expect(calls()).toBe(1);
    // Taken once: a second event at the revision (a list's replay cannot make one, but if it did) decodes.
    expect(decodes.forEvent(kv('/a', 5), decode)).not.toBe(answer);
    expect(calls()).toBe(2);
  });

  test('the event first: the write in flight takes the object the event decoded', async () => {
    const decodes = new WriteDecodes();
    const { decode, calls } = counted('a');
    let fromEvent: KubeObject | undefined;
    let answer: KubeObject | undefined;
    await inFlight(decodes, '/a', () => {
      fromEvent = decodes.forEvent(kv('/a', 7), decode);
      answer = decodes.forWrite(kv('/a', 7), decode);
    });
    expect(answer).toBe(fromEvent);
    expect(calls()).toBe(1);
  });

  test('an event of a key no write here has in flight keeps nothing', async () => {
    const decodes = new WriteDecodes();
    const { decode, calls } = counted('a');
    decodes.forEvent(kv('/a', 3), decode);
    let answer: KubeObject | undefined;
    await inFlight(decodes, '/a', () => (answer = decodes.forWrite(kv('/a', 3), decode)));
    expect(calls()).toBe(2);
    expect(answer).toBeDefined();
  });

  test('what the event kept goes when the last write of its key ends', async () => {
    const decodes = new WriteDecodes();
    const { decode, calls } = counted('a');
    // Another writer's event at revision 4 comes while this replica's write is in flight and fails.
    await inFlight(decodes, '/a', () => decodes.forEvent(kv('/a', 4), decode));
    await inFlight(decodes, '/a', () => decodes.forWrite(kv('/a', 4), decode));
    expect(calls()).toBe(2);
  });

  test('only the same revision is shared', async () => {
    const decodes = new WriteDecodes();
    const { decode, calls } = counted('a');
    await inFlight(decodes, '/a', () => {
      decodes.forEvent(kv('/a', 8), decode);
      decodes.forWrite(kv('/a', 9), decode);
    });
    expect(calls()).toBe(2);
    // The write's object at 9 waits for its event.
    const fromEvent = decodes.forEvent(kv('/a', 9), decode);
    expect(calls()).toBe(2);
    expect(fromEvent.metadata.name).toBe('a');
  });

  test('a write whose event has passed, a later event, a delete, a list or a stopped cache keeps nothing', async () => {
    const decodes = new WriteDecodes();
    const { decode, calls } = counted('a');
    decodes.forEvent(kv('/other', 10), decode);
    await inFlight(decodes, '/a', () => decodes.forWrite(kv('/a', 10), decode));
    decodes.forEvent(kv('/a', 10), decode);
    expect(calls()).toBe(3);

    await inFlight(decodes, '/b', () => decodes.forWrite(kv('/b', 11), decode));
    decodes.forEvent(kv('/b', 12), decode);
    await inFlight(decodes, '/c', () => decodes.forWrite(kv('/c', 13), decode));
    decodes.forDeleteEvent(kv('/c', 14));
    await inFlight(decodes, '/d', () => decodes.forWrite(kv('/d', 15), decode));
    decodes.listedAt(15);
    expect(calls()).toBe(7);
    decodes.forEvent(kv('/b', 11), decode);
    decodes.forEvent(kv('/c', 13), decode);
    decodes.forEvent(kv('/d', 15), decode);
    expect(calls()).toBe(10);

    decodes.close();
    await inFlight(decodes, '/e', () => decodes.forWrite(kv('/e', 16), decode));
    decodes.forEvent(kv('/e', 16), decode);
    expect(calls()).toBe(12);
  });

  test('writes keep at most `capacity` objects for their events', async () => {
    const decodes = new WriteDecodes(2);
    const { decode, calls } = counted('a');
    for (const [key, revision] of [
      ['/a', 1],
      ['/b', 2],
      ['/c', 3],
    ] as const) {
      await inFlight(decodes, key, () => decodes.forWrite(kv(key, revision), decode));
    }
    decodes.forEvent(kv('/a', 1), decode);
    decodes.forEvent(kv('/b', 2), decode);
    expect(calls()).toBe(3);
    decodes.forEvent(kv('/c', 3), decode);
    expect(calls()).toBe(4);
  });

  test('a failed write keeps nothing and passes its error on', async () => {
    const decodes = new WriteDecodes();
    const { decode, calls } = counted('a');
    await expect(
      decodes.writing('/a', async () => {
        decodes.forEvent(kv('/a', 2), decode);
        throw new Error('lost the race');
      }),
    ).rejects.toThrow('lost the race');
    await inFlight(decodes, '/a', () => decodes.forWrite(kv('/a', 2), decode));
    expect(calls()).toBe(2);
  });
});

describe.each(BACKENDS)('writes through a watch cache on $name', (backend) => {
  let running: RunningBackend;
  let store: RevisionedStore;
  let replica: Replica | undefined;

  beforeAll(async () => {
    running = await backend.start();
    store = await running.connect();
  });
  afterEach(() => replica?.stop());
  afterAll(() => running.stop());

  /** The object the cache holds for `name` once it has reached `answer`'s revision. */
  async function cachedAt(prefix: string, answer: KubeObject): Promise<KubeObject> {
    const cache = (replica as Replica).cacheFor(prefix);
    const revision = Number(answer.metadata.resourceVersion);
    await waitUntil('the cache to reach the write', () => cache.stats().revision >= revision, 5_000, 5);
    return cache.get(
      { namespace: 'ns', name: answer.metadata.name as string },
      { resourceVersion: answer.metadata.resourceVersion },
    );
  }

  test('creates and updates, one at a time and 32 in flight, answer the object the cache holds', async () => {
    const prefix = freshPrefix('pods');
    replica = await startReplica({ store, resources: [podsResource(prefix)] });
    const cache = replica.cacheFor(prefix);

    const one = await cache.create({ namespace: 'ns', name: 'one' }, pod('one'));
    expect(await cachedAt(prefix, one)).toBe(one);
    const updated = await cache.update({ namespace: 'ns', name: 'one' }, async (current) => ({
      ...(current as KubeObject),
      metadata: { ...(current as KubeObject).metadata, labels: { changed: 'yes' } },
    }));
    expect(updated.object.metadata.labels).toEqual({ changed: 'yes' });
    expect(await cachedAt(prefix, updated.object)).toBe(updated.object);

    const names = Array.from({ length: 32 }, (_, i) => `many-${i}`);
    const answers = await Promise.all(names.map((name) => cache.create({ namespace: 'ns', name }, pod(name))));
    for (const answer of answers) expect(await cachedAt(prefix, answer)).toBe(answer);
  });

  test("another writer's objects are decoded by the cache, and equal what it stored", async () => {
    const prefix = freshPrefix('pods');
    replica = await startReplica({ store, resources: [podsResource(prefix)] });
    const other = new ResourceStore({ store, ...podsResource(prefix) });
    const written = await other.create({ namespace: 'ns', name: 'elsewhere' }, pod('elsewhere', { a: 'b' }));
    const cached = await cachedAt(prefix, written);
    expect(cached).not.toBe(written);
    expect(cached).toEqual(written);
  });
});
