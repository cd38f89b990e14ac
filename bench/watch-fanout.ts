/**
 * Watch fan-out over HTTPS: the server's CPU per watch event delivered, with 1,000 watchers on
 * one namespace's pods, each its own TLS connection with the admin client certificate, as
 * informers meet the server.
 *
 * For capstan on SQLite (a fresh server process): 10 pods, then 100 updates with 4 in flight
 * and no watcher open (the cost of the updates alone), then the same updates with the 1,000
 * watchers reading. Server CPU (user + system, from /proc) of the second run minus the first,
 * divided by the events the watchers read, is the fan-out's cost per delivered event.
 */
import { Agent, request as httpsRequest } from 'node:https';
import type { Benchmark } from './benchmark';
import { startCapstanProcess, type CapstanProcess } from './capstan-process';
import { httpsTarget, type ClientCredentials, type HttpsTarget } from './https-client';
import { measureThroughput, processCpuMs, sleep } from './measure';
import { benchPodRequest } from './pod';

const WATCHERS = 1_000;
const PODS = 10;
const UPDATES = 100;
const UPDATE_CONCURRENCY = 4;
const DELIVERY_WAIT_MS = 60_000;
const NAMESPACE = 'fanout';
const POD_PATH = `/api/v1/namespaces/${NAMESPACE}/pods`;

export const watchFanoutBenchmark: Benchmark = {
  name: 'watch',
  description: `server CPU per watch event delivered to ${WATCHERS.toLocaleString('en-US')} watchers over HTTPS`,
  run: async (context) => {
    context.log('capstan on sqlite: starting');
    const server = await startCapstanProcess();
    const target = httpsTarget({ url: server.url, credentials: server.pki.client, maxSockets: UPDATE_CONCURRENCY });
    try {
      await prepare(target);
      context.log(`${UPDATES} updates without watchers`);
      const alone = await timedUpdates(target, server, 0);
      context.log(`opening ${WATCHERS} watchers`);
      const watchers = await openWatchers({ url: server.url, credentials: server.pki.client }, POD_PATH, WATCHERS);
      try {
        context.log(`${UPDATES} updates with ${WATCHERS} watchers`);
        const counted = watchers.delivered();
        const withWatchers = await timedUpdates(target, server, UPDATES, () => watchers.delivered() - counted >= UPDATES * WATCHERS);
        const delivered = watchers.delivered() - counted;
        const perEventUs = ((withWatchers.cpuMs - alone.cpuMs) * 1000) / delivered;
        context.report({
          title: `capstan on embedded SQLite, ${WATCHERS.toLocaleString('en-US')} watchers, ${UPDATES} updates (${UPDATE_CONCURRENCY} in flight)`,
          rows: [
            {
              metric: 'server CPU per watch event delivered',
              value: Number(perEventUs.toPrecision(3)),
              unit: 'µs',
              note: `${delivered.toLocaleString('en-US')} events in ${(withWatchers.elapsedMs / 1000).toFixed(1)} s; updates alone ${alone.cpuMs.toFixed(0)} ms CPU, with watchers ${withWatchers.cpuMs.toFixed(0)} ms`,
            },
            { metric: 'events not delivered', value: UPDATES * WATCHERS - delivered, unit: '' },
          ],
        });
      } finally {
        watchers.close();
      }
    } finally {
      target.close();
      await server.stop();
    }
  },
};

async function prepare(target: HttpsTarget): Promise<void> {
  const namespace = await target.request({
    method: 'POST',
    path: '/api/v1/namespaces',
    body: Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } })),
  });
  if (namespace.status !== 201) throw new Error(`creating the namespace: ${namespace.status} ${namespace.body.toString('utf8')}`);
  for (let index = 0; index < PODS; index++) {
    const created = await target.request({ method: 'POST', path: POD_PATH, body: podBody(index, '0') });
    if (created.status !== 201) throw new Error(`creating a pod: ${created.status} ${created.body.toString('utf8')}`);
  }
}

/** `UPDATES` PUTs, then (when given) waits for `delivered()`; the server's CPU time and the wall time of it all. */
async function timedUpdates(
  target: HttpsTarget,
  server: CapstanProcess,
  round: number,
  delivered?: () => boolean,
): Promise<{ cpuMs: number; elapsedMs: number }> {
  const cpuBefore = processCpuMs(server.pid);
  const began = performance.now();
  await measureThroughput({
    operation: async (index) => {
      const answer = await target.request({ method: 'PUT', path: `${POD_PATH}/pod-${index % PODS}`, body: podBody(index % PODS, `${round}-${index}`) });
      if (answer.status !== 200) throw new Error(`update: ${answer.status} ${answer.body.toString('utf8').slice(0, 300)}`);
    },
    concurrency: UPDATE_CONCURRENCY,
    maxOperations: UPDATES,
    maxMs: DELIVERY_WAIT_MS,
  });
  const deadline = performance.now() + DELIVERY_WAIT_MS;
  while (delivered && !delivered() && performance.now() < deadline) await sleep(20);
  return { cpuMs: processCpuMs(server.pid) - cpuBefore, elapsedMs: performance.now() - began };
}

/** `count` watches of a collection from now, each its own TLS connection, counting the events (JSON lines) it reads. */
export async function openWatchers(
  server: { readonly url: string; readonly credentials: ClientCredentials },
  collectionPath: string,
  count: number,
): Promise<{ delivered(): number; close(): void }> {
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity, ...server.credentials });
  const { hostname, port } = new URL(server.url);
  const list = httpsTarget({ url: server.url, credentials: server.credentials, maxSockets: 1 });
  const listed = await list.request({ method: 'GET', path: `${collectionPath}?limit=1` });
  list.close();
  const resourceVersion = (JSON.parse(listed.body.toString('utf8')) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
  let events = 0;
  const requests = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<ReturnType<typeof httpsRequest>>((resolve, reject) => {
          const path = `${collectionPath}?watch=1&resourceVersion=${resourceVersion}`;
          const req = httpsRequest({ agent, hostname, port, path, headers: { Accept: 'application/json' } }, (res) => {
            if (res.statusCode !== 200) reject(new Error(`watch: ${res.statusCode}`));
            res.on('data', (chunk: Buffer) => {
              for (let at = chunk.indexOf(10); at >= 0; at = chunk.indexOf(10, at + 1)) events++;
            });
            res.on('error', () => undefined);
            resolve(req);
          });
          req.on('error', reject);
          req.end();
        }),
    ),
  );
  return {
    delivered: () => events,
    close: () => {
      for (const req of requests) req.destroy();
      agent.destroy();
    },
  };
}

function podBody(index: number, round: string): Buffer {
  return benchPodRequest({ namespace: NAMESPACE, name: `pod-${index}`, index }, { round });
}
