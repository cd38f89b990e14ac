/**
 * Watch fan-out over HTTPS: the server's CPU per watch event delivered, with 1,000 watchers on
 * one namespace's pods, each its own TLS connection with the admin client certificate, as
 * informers meet the server.
 *
 * For capstan on SQLite (a fresh server process): 10 pods, then 100 updates with 4 in flight
 * and no watcher open (the cost of the updates alone), then the same updates with the 1,000
 * watchers reading. Server CPU (user + system, from /proc) of the second run minus the first,
 * divided by the events the watchers read, is the fan-out's cost per delivered event.
 *
 * Then the same one update at a time, each read by every watcher before the next goes out, so
 * that every event is a write of its own: how many events share a write in the first run
 * depends on timing (and on the machine's load), here it does not.
 *
 * Last, the ceiling (ceiling-server.ts): a plain `node:https` server with capstan's TLS that
 * writes the event capstan sent, byte for byte, to each of the same 1,000 watches on each
 * update and does nothing else. Its CPU per delivery, one update at a time, is what Node
 * itself costs for one event a write: a floor that only several events a write goes under.
 */
import { Agent, request as httpsRequest } from 'node:https';
import type { Benchmark } from './benchmark';
import { startCapstanProcess } from './capstan-process';
import { startCeilingServer, type CeilingBodies } from './ceiling-server';
import { createNamespace, httpsTarget, type ClientCredentials, type HttpsTarget } from './https-client';
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
    let ceilingBodies: CeilingBodies;
    try {
      await prepare(target);
      ceilingBodies = await capturedBodies(target);
      context.log(`${UPDATES} updates without watchers, ${UPDATE_CONCURRENCY} in flight, then one at a time`);
      const alone = await timedUpdates({ target, server, round: 'alone', concurrency: UPDATE_CONCURRENCY });
      const aloneOneByOne = await timedUpdates({ target, server, round: 'alone-one', concurrency: 1 });
      context.log(`opening ${WATCHERS} watchers`);
      const watchers = await openWatchers({ url: server.url, credentials: server.pki.client }, POD_PATH, WATCHERS);
      try {
        context.log(`${UPDATES} updates with ${WATCHERS} watchers, ${UPDATE_CONCURRENCY} in flight`);
        const burst = await watchedUpdates({
          target,
          server,
          watchers,
          round: 'watched',
          concurrency: UPDATE_CONCURRENCY,
          alone,
        });
        context.log(`${UPDATES} updates with ${WATCHERS} watchers, one at a time`);
        const oneByOne = await watchedUpdates({
          target,
          server,
          watchers,
          round: 'watched-one',
          concurrency: 1,
          alone: aloneOneByOne,
        });
        context.report({
          title: `capstan on embedded SQLite, ${WATCHERS.toLocaleString('en-US')} watchers, ${UPDATES} updates`,
          rows: [
            { metric: `server CPU per watch event delivered, ${UPDATE_CONCURRENCY} updates in flight`, ...burst },
            { metric: 'server CPU per watch event delivered, one update at a time (an event a write)', ...oneByOne },
            {
              metric: 'events not delivered',
              value: 2 * UPDATES * WATCHERS - burst.delivered - oneByOne.delivered,
              unit: '',
            },
          ],
        });
      } finally {
        watchers.close();
      }
    } finally {
      target.close();
      await server.stop();
    }
    context.log('ceiling: starting');
    const ceiling = await startCeilingServer({ pki: server.pki, bodies: ceilingBodies });
    const ceilingTarget = httpsTarget({ url: ceiling.url, credentials: server.pki.client, maxSockets: 1 });
    try {
      const alone = await timedUpdates({ target: ceilingTarget, server: ceiling, round: 'alone-one', concurrency: 1 });
      const watchers = await openWatchers({ url: ceiling.url, credentials: server.pki.client }, POD_PATH, WATCHERS);
      try {
        context.log(`ceiling: ${UPDATES} updates with ${WATCHERS} watchers, one at a time`);
        const oneByOne = await watchedUpdates({
          target: ceilingTarget,
          server: ceiling,
          watchers,
          round: 'watched-one',
          concurrency: 1,
          alone,
        });
        context.report({
          title: `Ceiling: plain node:https, same TLS, capstan's event (${ceilingBodies.event?.length.toLocaleString('en-US')} B) to each watcher`,
          rows: [
            { metric: 'server CPU per watch event delivered, one update at a time (an event a write)', ...oneByOne },
          ],
        });
      } finally {
        watchers.close();
      }
    } finally {
      ceilingTarget.close();
      await ceiling.stop();
    }
  },
};

/**
 * What the ceiling answers, from capstan: the first page of the pods (the watchers list it for
 * a resourceVersion), a pod, a label patch's answer, and the event that patch made, as the
 * watchers read it.
 */
async function capturedBodies(target: HttpsTarget): Promise<CeilingBodies> {
  const body = async (method: 'GET' | 'PATCH', path: string, patch?: object) => {
    const answer = await target.request({
      method,
      path,
      ...(patch && { contentType: 'application/merge-patch+json', body: Buffer.from(JSON.stringify(patch)) }),
    });
    if (answer.status !== 200) throw new Error(`${method} ${path}: ${answer.status}`);
    return answer.body;
  };
  const list = await body('GET', `${POD_PATH}?limit=1`);
  const update = await body('PATCH', `${POD_PATH}/pod-0`, { metadata: { labels: { round: 'captured' } } });
  const event = Buffer.from(`{"type":"MODIFIED","object":${update.toString('utf8').trimEnd()}}\n`);
  return { list, get: await body('GET', `${POD_PATH}/pod-0`), create: update, update, event };
}

async function prepare(target: HttpsTarget): Promise<void> {
  await createNamespace(target, NAMESPACE);
  for (let index = 0; index < PODS; index++) {
    const created = await target.request({
      method: 'POST',
      path: POD_PATH,
      body: benchPodRequest({ namespace: NAMESPACE, name: `pod-${index}`, index }),
    });
    if (created.status !== 201) throw new Error(`creating a pod: ${created.status} ${created.body.toString('utf8')}`);
  }
}

interface Watchers {
  delivered(): number;
}

/** The updates with the watchers reading: server CPU per event read, over what the same updates cost alone. */
async function watchedUpdates(options: {
  target: HttpsTarget;
  server: { readonly pid: number };
  watchers: Watchers;
  round: string;
  concurrency: number;
  alone: { cpuMs: number };
}): Promise<{ value: number; unit: string; note: string; delivered: number }> {
  const counted = options.watchers.delivered();
  const read = () => options.watchers.delivered() - counted;
  const watched = await timedUpdates({ ...options, delivered: (updates) => read() >= updates * WATCHERS });
  const delivered = read();
  const perEventUs = ((watched.cpuMs - options.alone.cpuMs) * 1000) / delivered;
  return {
    value: Number(perEventUs.toPrecision(3)),
    unit: 'µs',
    note: `${delivered.toLocaleString('en-US')} events in ${(watched.elapsedMs / 1000).toFixed(1)} s; updates alone ${options.alone.cpuMs.toFixed(0)} ms CPU, with watchers ${watched.cpuMs.toFixed(0)} ms`,
    delivered,
  };
}

/**
 * `UPDATES` label patches, `concurrency` in flight; with `delivered` (whether the watchers have
 * read the first n updates), one at a time waits for each to be read, and any waits for all at
 * the end. The server's CPU time and the wall time of it all.
 */
async function timedUpdates(options: {
  target: HttpsTarget;
  server: { readonly pid: number };
  round: string;
  concurrency: number;
  delivered?: (updates: number) => boolean;
}): Promise<{ cpuMs: number; elapsedMs: number }> {
  const { target, server, round, delivered } = options;
  const readUpTo = async (updates: number) => {
    const deadline = performance.now() + DELIVERY_WAIT_MS;
    while (delivered && !delivered(updates) && performance.now() < deadline)
      await sleep(options.concurrency === 1 ? 1 : 20);
  };
  const cpuBefore = processCpuMs(server.pid);
  const began = performance.now();
  await measureThroughput({
    operation: async (index) => {
      // A label patch: a PUT of the benchmark's pod would undo what admission added at create, which pod validation refuses.
      const answer = await target.request({
        method: 'PATCH',
        path: `${POD_PATH}/pod-${index % PODS}`,
        contentType: 'application/merge-patch+json',
        body: Buffer.from(JSON.stringify({ metadata: { labels: { round: `${round}-${index}` } } })),
      });
      if (answer.status !== 200)
        throw new Error(`update: ${answer.status} ${answer.body.toString('utf8').slice(0, 300)}`);
      if (options.concurrency === 1) await readUpTo(index + 1);
    },
    concurrency: options.concurrency,
    maxOperations: UPDATES,
    maxMs: DELIVERY_WAIT_MS,
  });
  await readUpTo(UPDATES);
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
  const resourceVersion = (JSON.parse(listed.body.toString('utf8')) as { metadata: { resourceVersion: string } })
    .metadata.resourceVersion;
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
