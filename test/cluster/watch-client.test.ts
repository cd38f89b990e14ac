/**
 * The reconnecting watcher of the cluster tests, against a capstan whose history is compacted
 * every second: told 410 for a compacted resource version, it stops with the error, or, with
 * `relistOnExpiry`, lists and watches on from the list's version, recording the list.
 */
import { startServer, type TestServer } from '../helpers/server';
import { openWatchStream, startReconnectingWatcher, type WatchEvent } from './watch-client';

const NAMESPACE = 'relisted';
const CONFIGMAPS = `/api/v1/namespaces/${NAMESPACE}/configmaps`;
const COMPACTION_TIMEOUT_MS = 20_000;
const EVENT_TIMEOUT_MS = 10_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let server: TestServer;
/** A resource version compacted away. */
let compacted: string;

async function create(name: string): Promise<string> {
  const answer = await server.request('POST', CONFIGMAPS, { body: JSON.stringify({ metadata: { name } }) });
  expect(answer.status).toBe(201);
  return answer.json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion;
}

/** The first event of a watch from `resourceVersion`, or undefined when none comes within a second. */
async function firstEvent(resourceVersion: string): Promise<WatchEvent | undefined> {
  let first: WatchEvent | undefined;
  const stream = openWatchStream({
    url: server.url,
    credentials: server.credentials,
    path: `${CONFIGMAPS}?watch=1&resourceVersion=${resourceVersion}`,
    onEvent: (event) => (first ??= event),
  });
  await Promise.race([stream.ended, sleep(1_000)]);
  stream.close();
  return first;
}

beforeAll(async () => {
  server = await startServer({ flags: ['--etcd-compaction-interval=1s'] });
  expect(
    (await server.request('POST', '/api/v1/namespaces', { body: JSON.stringify({ metadata: { name: NAMESPACE } }) }))
      .status,
  ).toBe(201);
  compacted = await create('old');
  await create('newer');
  // Bounded: until a watch from the first version is told 410.
  for (let i = 0; i < COMPACTION_TIMEOUT_MS / 1_000; i++) {
    if ((await firstEvent(compacted))?.object.code === 410) return;
    await create(`filler-${i}`);
  }
  throw new Error(`resource version ${compacted} was not compacted within ${COMPACTION_TIMEOUT_MS} ms`);
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

async function until(what: string, done: () => boolean): Promise<void> {
  for (let i = 0; i < EVENT_TIMEOUT_MS / 50 && !done(); i++) await sleep(50);
  if (!done()) throw new Error(`${what}: not within ${EVENT_TIMEOUT_MS} ms`);
}

test('without relistOnExpiry, a 410 ends the watcher with the error', async () => {
  const watcher = startReconnectingWatcher({
    url: server.url,
    credentials: server.credentials,
    path: CONFIGMAPS,
    resourceVersion: compacted,
  });
  await until('the 410', () => watcher.errors.length > 0);
  await watcher.stop();
  expect(watcher.errors.map((error) => error.code)).toEqual([410]);
  expect(watcher.relists).toEqual([]);
  expect(watcher.events).toEqual([]);
});

test('with relistOnExpiry, a 410 makes the watcher list and watch on from the list', async () => {
  const watcher = startReconnectingWatcher({
    url: server.url,
    credentials: server.credentials,
    path: CONFIGMAPS,
    resourceVersion: compacted,
    relistOnExpiry: true,
  });
  await until('the list', () => watcher.relists.length > 0);
  const created = await create('after-the-list');
  await until('the event after the list', () => watcher.events.length > 0);
  await watcher.stop();
  expect(watcher.errors).toEqual([]);
  expect(watcher.relists).toEqual([
    { afterEvents: 0, expiredResourceVersion: compacted, resourceVersion: expect.any(String), at: expect.any(Number) },
  ]);
  expect(Number(watcher.relists[0].resourceVersion)).toBeLessThan(Number(created));
  expect(watcher.events).toEqual([{ type: 'ADDED', name: 'after-the-list', resourceVersion: created }]);
});
