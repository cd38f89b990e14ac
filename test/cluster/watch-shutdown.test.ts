/**
 * Graceful shutdown as a watch client sees it, on a real server process: after SIGTERM the
 * replica still serves for `--shutdown-delay-duration` (readiness already failing, events still
 * flowing), then every open watch ends its chunked response properly, so the client sees a
 * normal end (no abort, no reset) and can reconnect elsewhere from its last resource version.
 */
import { startServer, type TestServer } from '../helpers/server';
import { openWatchStream, type WatchEvent } from './watch-client';
import { retryUntil } from '../helpers/wait-for';

const JSON_HEADERS = { 'Content-Type': 'application/json' };

describe('a watch open when the server is told to stop', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.kill();
    server = undefined;
  });

  it('ends with the final chunk after the shutdown delay, having seen the writes made during it', async () => {
    server = await startServer({ flags: ['--shutdown-delay-duration=1s'] });
    const namespace = await server.request('POST', '/api/v1/namespaces', {
      body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'draining' } }),
      headers: JSON_HEADERS,
    });
    expect(namespace.status).toBe(201);
    const list = await server.request('GET', '/api/v1/namespaces/draining/configmaps');
    const events: WatchEvent[] = [];
    const stream = openWatchStream({
      url: server.url,
      credentials: server.credentials,
      path: `/api/v1/namespaces/draining/configmaps?watch=1&resourceVersion=${list.json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion}`,
      onEvent: (event) => events.push(event),
    });
    expect(await stream.responded).toBe(200);
    // Two watches of other kinds too: shutdown ends them all, not only the first.
    const others = ['/api/v1/namespaces?watch=1', '/api/v1/namespaces/draining/secrets?watch=1'].map((path) =>
      openWatchStream({ url: server!.url, credentials: server!.credentials, path, onEvent: () => undefined }),
    );
    for (const other of others) expect(await other.responded).toBe(200);

    const running = server;
    server = undefined;
    const stopping = running.stop();
    // During the delay: not ready any more, but still serving, and the watch still flowing.
    const readyz = await retryUntil(
      async () => (await running.request('GET', '/readyz')).status,
      (status) => status === 500,
      500,
      25,
    );
    expect(readyz).toBe(500);
    const created = await running.request('POST', '/api/v1/namespaces/draining/configmaps', {
      body: JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'late' },
        data: { written: 'during the delay' },
      }),
      headers: JSON_HEADERS,
    });
    expect(created.status).toBe(201);

    expect(await stream.ended).toEqual({ how: 'end', status: 200 });
    for (const other of others) expect(await other.ended).toEqual({ how: 'end', status: 200 });
    expect(events.map((event) => [event.type, event.object.metadata?.name])).toEqual([['ADDED', 'late']]);
    await stopping;
  });
});
