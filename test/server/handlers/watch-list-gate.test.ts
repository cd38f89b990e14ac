/**
 * The WatchList gate, as kube-apiserver 1.34.4 answered with it at its default (on) and off.
 * On, a watch that names no version (or "0") and says nothing of initial events is defaulted to
 * a watch list: its state ends with the initial-events-end bookmark when bookmarks are allowed.
 * (The reference here said so in-band with an error: it ran on an etcd too old for the progress
 * requests its cache wants, which is what the defaulted `sendInitialEvents` asked for.) Off, a
 * watch may not ask for initial events. A watch by the legacy `/watch/` path without the `watch`
 * parameter is checked with a list's rules under either value.
 */
import { openTestStore, serveResourceApi, type ServedApi, type TestStore } from '../../helpers/in-process-api';

const CM = '/api/v1/namespaces/default/configmaps';
const LEGACY_WATCH = '/api/v1/watch/namespaces/default/configmaps';
const INVALID = 'ListOptions.meta.k8s.io "" is invalid: ';
const GATE_OFF =
  'sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled';

let testStore: TestStore;
let servers: Record<'on' | 'off', ServedApi>;

beforeAll(async () => {
  testStore = await openTestStore();
  servers = {
    on: await serveResourceApi(testStore.storageFor),
    off: await serveResourceApi(testStore.storageFor, { featureGates: { WatchList: false } }),
  };
  const response = await fetch(servers.on.base + CM, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'one' } }),
  });
  expect(response.status).toBe(201);
});

afterAll(async () => {
  await Promise.all(Object.values(servers ?? {}).map((server) => server.close()));
  await testStore?.close();
});

/** The events of a watch that ends after a second, as `TYPE name-or-annotations`. */
async function watchEvents(gate: 'on' | 'off', path: string): Promise<string[]> {
  const response = await fetch(`${servers[gate].base}${path}&timeoutSeconds=1`);
  expect(response.status).toBe(200);
  const lines = (await response.text()).trim().split('\n').filter(Boolean);
  return lines.map((line) => {
    const { type, object } = JSON.parse(line) as {
      type: string;
      object: { metadata: { name?: string; annotations?: Record<string, string> } };
    };
    return `${type} ${object.metadata.name ?? JSON.stringify(object.metadata.annotations)}`;
  });
}

async function refusal(gate: 'on' | 'off', path: string): Promise<string> {
  const response = await fetch(servers[gate].base + path);
  expect(response.status).toBe(422);
  return ((await response.json()) as { message: string }).message;
}

const END_BOOKMARK = 'BOOKMARK {"k8s.io/initial-events-end":"true"}';

describe('on (the default)', () => {
  test('a watch from no version or "0" with bookmarks is a watch list, ended by its bookmark', async () => {
    expect(await watchEvents('on', `${CM}?watch=1&allowWatchBookmarks=true`)).toEqual(['ADDED one', END_BOOKMARK]);
    expect(await watchEvents('on', `${CM}?watch=1&resourceVersion=0&allowWatchBookmarks=true`)).toEqual([
      'ADDED one',
      END_BOOKMARK,
    ]);
    expect(await watchEvents('on', `${CM}?watch=1`)).toEqual(['ADDED one']);
  });

  test('asked for initial events, or told not to send them, it does as told', async () => {
    const explicit = `${CM}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`;
    expect(await watchEvents('on', explicit)).toEqual(['ADDED one', END_BOOKMARK]);
    const without = `${CM}?watch=1&sendInitialEvents=false&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`;
    expect(await watchEvents('on', without)).toEqual([]);
  });

  test('the legacy path without the watch parameter keeps a legacy watch, checked as a list', async () => {
    expect(await watchEvents('on', `${LEGACY_WATCH}?allowWatchBookmarks=true`)).toEqual(['ADDED one']);
    expect(await watchEvents('on', `${LEGACY_WATCH}?watch=1&allowWatchBookmarks=true`)).toEqual([
      'ADDED one',
      END_BOOKMARK,
    ]);
    expect(await refusal('on', `${LEGACY_WATCH}?sendInitialEvents=true&resourceVersionMatch=NotOlderThan`)).toBe(
      `${INVALID}[resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided, sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list]`,
    );
  });
});

describe('off', () => {
  test('a watch may not ask for initial events, whichever way', async () => {
    for (const value of ['true', 'false']) {
      const path = `${CM}?watch=1&sendInitialEvents=${value}&resourceVersionMatch=NotOlderThan`;
      expect(await refusal('off', path)).toBe(INVALID + GATE_OFF);
    }
    expect(await refusal('off', `${CM}?watch=1&sendInitialEvents=true`)).toBe(
      `${INVALID}[resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan, ${GATE_OFF}]`,
    );
  });

  test('a watch from no version or "0" is a legacy watch: its state, and no bookmark ends it', async () => {
    expect(await watchEvents('off', `${CM}?watch=1&allowWatchBookmarks=true`)).toEqual(['ADDED one']);
    expect(await watchEvents('off', `${CM}?watch=1&resourceVersion=0&allowWatchBookmarks=true`)).toEqual(['ADDED one']);
  });

  test('the legacy path is checked as a list, as with the gate on', async () => {
    expect(await refusal('off', `${LEGACY_WATCH}?sendInitialEvents=true&resourceVersionMatch=NotOlderThan`)).toContain(
      'sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list',
    );
  });
});
