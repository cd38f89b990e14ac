/**
 * The encodings benchmark: what a LIST of 10,000 pods costs in each representation a client
 * can ask for — JSON, Protobuf and a Table (kubectl's Accept) — over HTTPS against capstan as
 * a real process on SQLite; then the server's peak RSS while 10 such lists run at once, which
 * is what encoding collections item by item is for (the answer is never held whole).
 *
 * The client reads each answer as a stream and counts its bytes, so only the server's memory
 * grows; the server's RSS is sampled from /proc every 10 ms during the concurrent lists.
 */
import { readFileSync } from 'node:fs';
import { Agent, request as httpsRequest } from 'node:https';
import type { Benchmark, ResultRow } from './benchmark';
import { startCapstanProcess, type CapstanProcess } from './capstan-process';
import { measureThroughput, median, sleep, timeRuns } from './measure';
import { benchPod } from './pod';

const PODS = 10_000;
const NAMESPACE = 'default';
const CONCURRENT_LISTS = 10;
const LIST_RUNS = 5;
const LIST_MAX_MS = 60_000;
const RSS_SAMPLE_MS = 10;
const MB = 1024 * 1024;

const ENCODINGS: ReadonlyArray<{ name: string; accept: string }> = [
  { name: 'JSON', accept: 'application/json' },
  { name: 'Protobuf', accept: 'application/vnd.kubernetes.protobuf' },
  {
    name: 'Table',
    accept:
      'application/json;as=Table;v=v1;g=meta.k8s.io, application/json;as=Table;v=v1beta1;g=meta.k8s.io, application/json',
  },
];

interface Client {
  /** The answer's status and byte count; the body is read and dropped as it arrives. */
  call(options: {
    method: 'GET' | 'POST';
    path: string;
    accept: string;
    body?: Buffer;
  }): Promise<{ status: number; bytes: number }>;
  close(): void;
}

function clientOf(server: CapstanProcess, maxSockets: number): Client {
  const { hostname, port } = new URL(server.url);
  const agent = new Agent({ keepAlive: true, maxSockets, ...server.pki.client });
  return {
    call: ({ method, path, accept, body }) =>
      new Promise((resolve, reject) => {
        const headers: Record<string, string | number> = { Accept: accept };
        if (body) Object.assign(headers, { 'Content-Type': 'application/json', 'Content-Length': body.length });
        const outgoing = httpsRequest({ agent, hostname, port, method, path, headers }, (incoming) => {
          let bytes = 0;
          incoming.on('data', (chunk: Buffer) => (bytes += chunk.length));
          incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, bytes }));
          incoming.on('error', reject);
        });
        outgoing.on('error', reject);
        outgoing.end(body);
      }),
    close: () => agent.destroy(),
  };
}

function rssBytes(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) * 1024 : Number.NaN;
}

/** The highest RSS of `pid` seen while `work` runs. */
async function peakRssDuring(pid: number, work: () => Promise<unknown>): Promise<number> {
  let peak = rssBytes(pid);
  let running = true;
  const sampler = (async () => {
    while (running) {
      peak = Math.max(peak, rssBytes(pid));
      await sleep(RSS_SAMPLE_MS);
    }
  })();
  try {
    await work();
  } finally {
    running = false;
    await sampler;
  }
  return Math.max(peak, rssBytes(pid));
}

async function createPods(client: Client): Promise<void> {
  const created = await measureThroughput({
    operation: async (index) => {
      const pod = benchPod({ namespace: NAMESPACE, name: `web-${index}`, index });
      // No owner: the garbage collector would delete pods of a ReplicaSet that does not exist.
      const body = Buffer.from(
        JSON.stringify({
          ...pod,
          metadata: { ...pod.metadata, uid: undefined, creationTimestamp: undefined, ownerReferences: undefined },
        }),
      );
      const answer = await client.call({
        method: 'POST',
        path: `/api/v1/namespaces/${NAMESPACE}/pods`,
        accept: 'application/json',
        body,
      });
      if (answer.status !== 201) throw new Error(`create answered ${answer.status}`);
    },
    concurrency: 16,
    maxOperations: PODS,
    maxMs: 300_000,
  });
  if (created.operations < PODS) throw new Error(`only ${created.operations} pods created in time`);
}

export const encodingsBenchmark: Benchmark = {
  name: 'encodings',
  description: 'LIST of 10,000 pods as JSON, Protobuf and Table, and peak server memory under 10 concurrent lists',
  run: async (context) => {
    const server = await startCapstanProcess();
    const client = clientOf(server, CONCURRENT_LISTS);
    try {
      context.log(`creating ${PODS} pods`);
      await createPods(client);
      const path = `/api/v1/namespaces/${NAMESPACE}/pods`;
      // One list first, so the figures below see a warm server (JIT, caches).
      await client.call({ method: 'GET', path, accept: 'application/json' });
      const rows: ResultRow[] = [];
      for (const encoding of ENCODINGS) {
        context.log(`${encoding.name}: timing lists`);
        let size = 0;
        const durations = await timeRuns({
          run: async () => {
            const answer = await client.call({ method: 'GET', path, accept: encoding.accept });
            if (answer.status !== 200) throw new Error(`list answered ${answer.status}`);
            size = answer.bytes;
          },
          runs: LIST_RUNS,
          maxMs: LIST_MAX_MS,
        });
        rows.push({
          metric: `${encoding.name} list, median`,
          value: Math.round(median(durations)),
          unit: 'ms',
          note: `${durations.length} runs, ${(size / MB).toFixed(1)} MB answer`,
        });
      }
      for (const encoding of ENCODINGS) {
        context.log(`${encoding.name}: ${CONCURRENT_LISTS} lists at once`);
        await sleep(500);
        const before = rssBytes(server.pid);
        const began = Date.now();
        const peak = await peakRssDuring(server.pid, () =>
          Promise.all(
            Array.from({ length: CONCURRENT_LISTS }, () =>
              client.call({ method: 'GET', path, accept: encoding.accept }),
            ),
          ),
        );
        // Growth over the RSS just before: earlier runs leave the heap grown, so the absolute
        // peak says less than what these ten lists added.
        rows.push({
          metric: `${encoding.name}: server RSS growth, ${CONCURRENT_LISTS} lists at once`,
          value: Math.round((peak - before) / MB),
          unit: 'MB',
          note: `peak ${Math.round(peak / MB)} MB from ${Math.round(before / MB)} MB; all ${CONCURRENT_LISTS} done in ${Date.now() - began} ms`,
        });
      }
      context.report({ title: `LIST of ${PODS.toLocaleString('en')} pods over HTTPS (capstan on SQLite)`, rows });
    } finally {
      client.close();
      await server.stop();
    }
  },
};
