/**
 * Watch clients that never read, against the real server process: under a stream of large
 * updates they are closed (the stream just ends, counted in
 * `apiserver_terminated_watchers_total`), the server's memory stays bounded while they sit
 * there and after, and a watcher that reads gets every event.
 */
import { connect, type TLSSocket } from 'node:tls';
import { request as httpsRequest } from 'node:https';
import { startServer, type TestServer } from '../../helpers/server';
import { retryUntil } from '../../helpers/wait-for';

const OBJECT_BYTES = 500 * 1024;
const UPDATES = 120;
const STUCK_WATCHERS = 3;
/**
 * What the server's RSS may grow by over the run. The watch cache keeps every event of the last
 * 75 s for watches to resume from, by design (the reference does the same): here all of them,
 * 120 objects of 500 KiB, about twice that in memory as decoded objects, and as much again
 * of request and encoding garbage not yet collected at the peak. On top of that each
 * watcher may hold its queue (at most 32 MiB of objects it shares with the cache) and 1 MiB
 * plus one event on its connection: the stuck ones must not add more than that.
 */
const RSS_GROWTH_BOUND_BYTES = 3 * UPDATES * OBJECT_BYTES + 128 * 1024 * 1024;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const PATH = '/api/v1/namespaces/default/configmaps';

function configMap(generation: number): string {
  // Distinct bytes per update, so nothing downstream can share them.
  const filler = String(generation)
    .padStart(8, '0')
    .repeat(OBJECT_BYTES / 8);
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'big', namespace: 'default' },
    data: { filler },
  });
}

/** A Prometheus metric, summed over its samples whose labels include `labels`. */
function sample(metrics: string, name: string, labels = ''): number {
  let total = 0;
  for (const line of metrics.split('\n')) {
    if (!line.startsWith(`${name} `) && !line.startsWith(`${name}{`)) continue;
    if (!line.slice(name.length, line.lastIndexOf(' ')).includes(labels)) continue;
    total += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return total;
}

/** A watch over raw TLS whose client reads the response head and then nothing more. */
function stuckWatch(server: TestServer, resourceVersion: string): Promise<{ socket: TLSSocket; ended: Promise<void> }> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = connect(
      { host: hostname, port: Number(port), ...server.credentials, servername: 'localhost' },
      () => {
        socket.write(
          `GET ${PATH}?watch=1&fieldSelector=metadata.name%3Dbig&resourceVersion=${resourceVersion} HTTP/1.1\r\nHost: ${hostname}\r\nAccept: application/json\r\n\r\n`,
        );
      },
    );
    const ended = new Promise<void>((resolveEnd) => socket.once('close', () => resolveEnd()));
    socket.on('error', () => undefined);
    socket.once('data', (chunk: Buffer) => {
      if (!chunk.toString('latin1').startsWith('HTTP/1.1 200'))
        reject(new Error(chunk.toString('latin1').slice(0, 200)));
      // From here on the client reads nothing: its receive buffer fills, then the server's socket.
      socket.pause();
      resolve({ socket, ended });
    });
    socket.once('error', reject);
  });
}

/** A watcher that reads everything, counting the resource versions of its events. */
function readingWatch(server: TestServer, resourceVersion: string): { revisions: string[]; close: () => void } {
  const revisions: string[] = [];
  const url = new URL(
    `${PATH}?watch=1&fieldSelector=metadata.name%3Dbig&resourceVersion=${resourceVersion}`,
    server.url,
  );
  const req = httpsRequest(url, { ...server.credentials }, (res) => {
    let pending = '';
    res.setEncoding('utf8');
    res.on('data', (text: string) => {
      pending += text;
      let newline = pending.indexOf('\n');
      while (newline >= 0) {
        const event = JSON.parse(pending.slice(0, newline)) as { object: { metadata: { resourceVersion: string } } };
        revisions.push(event.object.metadata.resourceVersion);
        pending = pending.slice(newline + 1);
        newline = pending.indexOf('\n');
      }
    });
  });
  req.on('error', () => undefined);
  req.end();
  return { revisions, close: () => req.destroy() };
}

describe('watchers that never read', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer();
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('are closed and counted, memory stays bounded, and a reading watcher gets every event', async () => {
    const created = await server.request('POST', PATH, {
      body: configMap(0),
      headers: { 'content-type': 'application/json' },
    });
    expect(created.status).toBe(201);
    const startRevision = (JSON.parse(created.body) as { metadata: { resourceVersion: string } }).metadata
      .resourceVersion;

    const stuck = await Promise.all(Array.from({ length: STUCK_WATCHERS }, () => stuckWatch(server, startRevision)));
    const reader = readingWatch(server, startRevision);

    const rss = async () => sample((await server.request('GET', '/metrics')).body, 'process_resident_memory_bytes');
    const startRss = await rss();
    let peakRss = startRss;
    const written: string[] = [];
    for (let generation = 1; generation <= UPDATES; generation++) {
      const updated = await server.request('PUT', `${PATH}/big`, {
        body: configMap(generation),
        headers: { 'content-type': 'application/json' },
      });
      expect(updated.status).toBe(200);
      written.push((JSON.parse(updated.body) as { metadata: { resourceVersion: string } }).metadata.resourceVersion);
      if (generation % 25 === 0) peakRss = Math.max(peakRss, await rss());
    }

    // The server ended the stuck watches although their clients read nothing: only the reader's is
    // open once each stuck connection's 5 s to take the end of its stream (WATCH_END_LINGER_MS) is over.
    let metrics = (await server.request('GET', '/metrics')).body;
    expect(sample(metrics, 'apiserver_terminated_watchers_total')).toBeGreaterThanOrEqual(STUCK_WATCHERS);
    const openWatches = (text = metrics) =>
      sample(text, 'apiserver_longrunning_requests', 'verb="WATCH",group="",version="v1",resource="configmaps"');
    metrics = await retryUntil(
      async () => (await server.request('GET', '/metrics')).body,
      (text) => openWatches(text) === 1,
      10_000,
      250,
    );
    expect(openWatches()).toBe(1);
    // What the stuck clients find when they read again: what was in flight, then the end of the stream.
    for (const { socket } of stuck) socket.resume();
    const closed = await Promise.race([
      Promise.all(stuck.map(({ ended }) => ended)).then(() => true),
      sleep(10_000).then(() => false),
    ]);
    expect(closed).toBe(true);

    // The reading watcher saw every update, in order.
    await retryUntil(
      () => reader.revisions.length,
      (count) => count >= written.length,
      10_000,
      50,
    );
    reader.close();
    expect(reader.revisions).toEqual(written);
    // Every event is counted, however many went out in one write.
    expect(sample(metrics, 'apiserver_watch_events_total', 'resource="configmaps"')).toBeGreaterThanOrEqual(UPDATES);

    peakRss = Math.max(peakRss, sample(metrics, 'process_resident_memory_bytes'));
    const mib = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MiB`;
    console.log(
      `stuck watchers: server RSS ${mib(startRss)} before, peak ${mib(peakRss)} over ${UPDATES} updates of ${OBJECT_BYTES / 1024} KiB (bound: +${mib(RSS_GROWTH_BOUND_BYTES)})`,
    );
    expect(peakRss - startRss).toBeLessThan(RSS_GROWTH_BOUND_BYTES);
    for (const { socket } of stuck) socket.destroy();
    expect(server.output()).not.toContain('MaxListenersExceededWarning');
    // Typically 30-40 s; the margin is for a loaded machine.
  }, 90_000);
});
