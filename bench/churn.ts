/**
 * The scale run's churn: writers creating, updating and deleting pods and ConfigMaps at a fixed
 * rate through a balancer, and watchers on the same collections timing every event from the
 * moment its write was sent to the moment they read it.
 *
 * Each of the `clients` writers is its own keep-alive HTTPS client (so the balancer spreads their
 * connections over the replicas) and sends on a schedule, an open loop: write k of client c is
 * due at (k + c/clients) × clients/rate ms, whether or not earlier ones have been answered, up to
 * a bounded number in flight. Operations take turns (create, update, delete): creates alternate
 * pods and ConfigMaps over the namespaces; updates (merge patches of an annotation) and deletes
 * (grace period 0, so a pod goes at once) pick at random among the client's own objects, the
 * stored ones it was dealt and those it created, never one with a write in flight.
 *
 * Every create and update stamps the object with an annotation naming the write, so a watcher
 * knows which write an ADDED or MODIFIED event carries; a DELETED event is matched by name.
 * Watchers each watch one namespace's pods or ConfigMaps from the revision before the churn, each
 * on its own connection through the balancer. For every acknowledged write, every watcher of its
 * collection must read its event: those that do not within the drain time count as missing.
 */
import { performance } from 'node:perf_hooks';
import { benchConfigMapRequest } from './configmap';
import { httpsTarget, type ClientCredentials, type HttpsCall, type HttpsTarget } from './https-client';
import { sleep } from './measure';
import { benchPodRequest } from './pod';
// The cluster tests' watch stream reader: one watch, read event by event, telling how it ended.
import { openWatchStream, type WatchEvent, type WatchStream } from '../test/cluster/watch-client';

/** The annotation naming the write that last created or updated an object. */
const WRITE_ANNOTATION = 'bench.capstan.dev/write';
const MAX_IN_FLIGHT_PER_CLIENT = 16;
/** Watches opened at once: a thousand TLS handshakes together would time themselves, not the server. */
const WATCH_OPEN_BATCH = 50;
/** How long opening one batch of watches, or listing for their revision, may take. */
const WATCH_OPEN_TIMEOUT_MS = 60_000;
/** After the last write is due, how long its answer may take; after the last answer, how long its events may. */
const DRAIN_MS = 15_000;
const ERROR_SAMPLES = 5;

export type ChurnedResource = 'pods' | 'configmaps';
export type WriteOperation = 'create' | 'update' | 'delete';
const OPERATIONS: readonly WriteOperation[] = ['create', 'update', 'delete'];
type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoredObject {
  readonly resource: ChurnedResource;
  readonly namespace: string;
  readonly name: string;
}

export interface ChurnOptions {
  readonly url: string;
  readonly credentials: ClientCredentials;
  readonly namespaces: readonly string[];
  /** Objects already stored, dealt out among the writers for their updates and deletes. */
  readonly stored: readonly StoredObject[];
  readonly watchers: number;
  readonly clients: number;
  readonly writesPerSecond: number;
  readonly durationMs: number;
  readonly log: (message: string) => void;
  /** Awaited once the watchers are open, right before the first write: where the caller's own measurements begin. */
  readonly beforeWrites: () => Promise<void>;
}

export interface ChurnResult {
  readonly elapsedMs: number;
  readonly acknowledged: number;
  /** Answers other than 2xx, and requests that failed or were still unanswered at the end. */
  readonly failed: number;
  readonly errorSamples: readonly string[];
  /** Writes that were due but not sent: the deadline passed with too many still in flight. */
  readonly unsent: number;
  /** From sending to the answer, of acknowledged writes, by operation. */
  readonly writeLatencyMs: Readonly<Record<WriteOperation, readonly number[]>>;
  /** From sending a write to a watcher reading its event, one figure a watcher and event. */
  readonly deliveryLatencyMs: readonly number[];
  /** From sending a write to the last of its watchers reading its event, of writes every watcher read. */
  readonly lastWatcherLatencyMs: readonly number[];
  /** Events of acknowledged writes that a watcher of the collection never read. */
  readonly deliveriesMissing: number;
  /** MODIFIED events of objects marked deleted, on their way out: not counted as a write's event. */
  readonly deletionMarks: number;
  /** Events no write accounts for: of another type than the write's, or seen again. */
  readonly unmatchedEvents: number;
  readonly unmatchedSamples: readonly string[];
  /** Watches that ended (after an ERROR event, say) before the run closed them. */
  readonly watchesBroken: number;
}

/** One write, as the watchers and the writers see it. */
interface WriteRecord {
  readonly sentAt: number;
  /** How many watchers watch its collection. */
  readonly watchers: number;
  received: number;
  lastReceivedAt: number;
  acknowledged: boolean;
}

const now = () => performance.now();

export async function runChurn(options: ChurnOptions): Promise<ChurnResult> {
  const writes = new Map<string, WriteRecord>();
  const deliveryLatencyMs: number[] = [];
  const unmatched: string[] = [];
  const watchers = await openWatchers(options, (key) => {
    const record = writes.get(key);
    // More events than watchers of the collection: one of them read it twice.
    if (record === undefined || record.received >= record.watchers) {
      unmatched.push(key);
      return;
    }
    const at = now();
    record.received++;
    record.lastReceivedAt = at;
    deliveryLatencyMs.push(at - record.sentAt);
  });
  try {
    options.log(`${options.watchers} watchers open; churning for ${options.durationMs / 1000} s`);
    const writers = Array.from(
      { length: options.clients },
      (_, client) =>
        new Writer({
          client,
          options,
          writes,
          watchersOf: watchers.count,
          pool: options.stored.filter((_object, index) => index % options.clients === client),
        }),
    );
    await options.beforeWrites();
    const began = now();
    const finished = Promise.all(writers.map((writer) => writer.run(began)));
    await Promise.race([finished, sleep(options.durationMs + DRAIN_MS)]);
    // Requests still unanswered fail when their sockets go.
    for (const writer of writers) writer.close();
    await finished;
    const elapsedMs = now() - began;
    await untilDelivered(writes, now() + DRAIN_MS);
    return summarize({
      writes,
      writers,
      deliveryLatencyMs,
      unmatched,
      elapsedMs,
      watchesBroken: watchers.broken(),
      deletionMarks: watchers.deletionMarks(),
    });
  } finally {
    watchers.close();
  }
}

/**
 * The key of a write's event: its type, the object, and the write's stamp (none for a delete,
 * whose event carries the object as the last create or update left it).
 */
function eventKey(type: WatchEventType, collection: string, name: string, stamp?: string): string {
  return `${type} ${collection}/${name} ${stamp ?? ''}`;
}

function collectionOf(resource: ChurnedResource, namespace: string): string {
  return `/api/v1/namespaces/${namespace}/${resource}`;
}

async function openWatchers(
  options: ChurnOptions,
  onEvent: (key: string) => void,
): Promise<{ count(collection: string): number; broken(): number; deletionMarks(): number; close(): void }> {
  const lister = httpsTarget({
    url: options.url,
    credentials: options.credentials,
    maxSockets: 1,
    requestTimeoutMs: WATCH_OPEN_TIMEOUT_MS,
  });
  const listed = await lister.request({ method: 'GET', path: '/api/v1/pods?limit=1' });
  lister.close();
  if (listed.status !== 200) throw new Error(`listing pods: ${listed.status} ${listed.body.toString('utf8')}`);
  const { resourceVersion } = (JSON.parse(listed.body.toString('utf8')) as { metadata: { resourceVersion: string } })
    .metadata;
  const counts = new Map<string, number>();
  const streams: WatchStream[] = [];
  let closing = false;
  let broken = 0;
  let deletionMarks = 0;
  const resources: readonly ChurnedResource[] = ['pods', 'configmaps'];
  for (let first = 0; first < options.watchers; first += WATCH_OPEN_BATCH) {
    const batch: WatchStream[] = [];
    for (let watcher = first; watcher < Math.min(options.watchers, first + WATCH_OPEN_BATCH); watcher++) {
      const namespace = options.namespaces[watcher % options.namespaces.length];
      const resource = resources[Math.floor(watcher / options.namespaces.length) % resources.length];
      const collection = collectionOf(resource, namespace);
      counts.set(collection, (counts.get(collection) ?? 0) + 1);
      const stream = openWatchStream({
        url: options.url,
        credentials: options.credentials,
        path: `${collection}?watch=1&resourceVersion=${resourceVersion}`,
        onEvent: (event: WatchEvent) => {
          // The reference deletes a pod in two writes, even at grace period 0: first it marks the
          // pod deleted (deletionTimestamp, a MODIFIED event), then it removes it.
          if (event.type === 'MODIFIED' && event.object.metadata?.deletionTimestamp !== undefined) {
            deletionMarks++;
            return;
          }
          const name = event.object.metadata?.name ?? '';
          const type = event.type as WatchEventType;
          const stamp = type === 'DELETED' ? undefined : event.object.metadata?.annotations?.[WRITE_ANNOTATION];
          onEvent(eventKey(type, collection, name, stamp));
        },
      });
      void stream.ended.then(() => {
        if (!closing) broken++;
      });
      batch.push(stream);
    }
    streams.push(...batch);
    const statuses = await Promise.race([
      Promise.all(batch.map((stream) => stream.responded)),
      sleep(WATCH_OPEN_TIMEOUT_MS).then(() => undefined),
    ]);
    const refused =
      statuses === undefined
        ? `no answer within ${WATCH_OPEN_TIMEOUT_MS} ms`
        : statuses.find((status) => status !== 200);
    if (refused !== undefined) {
      for (const stream of streams) stream.close();
      throw new Error(`opening a watch: ${refused}`);
    }
  }
  return {
    count: (collection) => counts.get(collection) ?? 0,
    broken: () => broken,
    deletionMarks: () => deletionMarks,
    close: () => {
      closing = true;
      for (const stream of streams) stream.close();
    },
  };
}

/** One client's writes on its schedule, and what became of them. */
class Writer {
  private readonly target: HttpsTarget;
  private readonly pool: StoredObject[];
  readonly latencyMs: Record<WriteOperation, number[]> = { create: [], update: [], delete: [] };
  acknowledged = 0;
  failed = 0;
  unsent = 0;
  readonly errorSamples: string[] = [];
  private created = 0;

  constructor(
    private readonly setup: {
      readonly client: number;
      readonly options: ChurnOptions;
      readonly writes: Map<string, WriteRecord>;
      readonly watchersOf: (collection: string) => number;
      readonly pool: StoredObject[];
    },
  ) {
    const { url, credentials } = setup.options;
    this.target = httpsTarget({ url, credentials, maxSockets: MAX_IN_FLIGHT_PER_CLIENT });
    this.pool = setup.pool;
  }

  async run(began: number): Promise<void> {
    const { client, options } = this.setup;
    const intervalMs = (1000 * options.clients) / options.writesPerSecond;
    const due = Math.floor((options.writesPerSecond * options.durationMs) / 1000 / options.clients);
    const deadline = began + options.durationMs + DRAIN_MS;
    const inFlight = new Set<Promise<void>>();
    for (let k = 0; k < due; k++) {
      const wait = began + (k + client / options.clients) * intervalMs - now();
      if (wait > 0) await sleep(wait);
      while (inFlight.size >= MAX_IN_FLIGHT_PER_CLIENT && now() < deadline)
        await Promise.race([...inFlight, sleep(deadline - now())]);
      if (now() >= deadline) {
        this.unsent += due - k;
        break;
      }
      const write = this.write(k).finally(() => inFlight.delete(write));
      inFlight.add(write);
    }
    await Promise.all(inFlight);
  }

  close(): void {
    this.target.close();
  }

  private async write(k: number): Promise<void> {
    const wanted = OPERATIONS[k % OPERATIONS.length];
    const operation = wanted !== 'create' && this.pool.length === 0 ? 'create' : wanted;
    if (operation === 'create') return this.create(k);
    // A random one of the client's idle objects, out of the pool while its write is in flight.
    const at = Math.floor(Math.random() * this.pool.length);
    const object = this.pool[at];
    this.pool[at] = this.pool[this.pool.length - 1];
    this.pool.pop();
    const collection = collectionOf(object.resource, object.namespace);
    const path = `${collection}/${object.name}`;
    if (operation === 'delete') {
      await this.send('delete', eventKey('DELETED', collection, object.name), collection, {
        method: 'DELETE',
        path: `${path}?gracePeriodSeconds=0`,
      });
      return;
    }
    const stamp = this.stamp(k);
    await this.send('update', eventKey('MODIFIED', collection, object.name, stamp), collection, {
      method: 'PATCH',
      path,
      contentType: 'application/merge-patch+json',
      body: Buffer.from(JSON.stringify({ metadata: { annotations: { [WRITE_ANNOTATION]: stamp } } })),
    });
    this.pool.push(object);
  }

  private async create(k: number): Promise<void> {
    const { client, options } = this.setup;
    const index = this.created++;
    const resource: ChurnedResource = index % 2 === 0 ? 'pods' : 'configmaps';
    const namespace = options.namespaces[index % options.namespaces.length];
    const name = `churn-${client}-${index}`;
    const stamp = this.stamp(k);
    const annotations = { [WRITE_ANNOTATION]: stamp };
    const collection = collectionOf(resource, namespace);
    const body =
      resource === 'pods'
        ? benchPodRequest({ namespace, name, index }, annotations)
        : benchConfigMapRequest({ name, index }, annotations);
    if (
      await this.send('create', eventKey('ADDED', collection, name, stamp), collection, {
        method: 'POST',
        path: collection,
        body,
      })
    )
      this.pool.push({ resource, namespace, name });
  }

  private stamp(k: number): string {
    return `${this.setup.client}-${k}`;
  }

  /** Sends one write, recorded under `key` for the watchers; whether it was acknowledged. */
  private async send(operation: WriteOperation, key: string, collection: string, call: HttpsCall): Promise<boolean> {
    const record: WriteRecord = {
      sentAt: now(),
      watchers: this.setup.watchersOf(collection),
      received: 0,
      lastReceivedAt: 0,
      acknowledged: false,
    };
    this.setup.writes.set(key, record);
    const answer = await this.target.request(call).catch((error: Error) => error);
    if (!(answer instanceof Error) && answer.status >= 200 && answer.status < 300) {
      record.acknowledged = true;
      this.acknowledged++;
      this.latencyMs[operation].push(now() - record.sentAt);
      return true;
    }
    this.failed++;
    if (this.errorSamples.length < ERROR_SAMPLES)
      this.errorSamples.push(
        `${call.method} ${call.path}: ${answer instanceof Error ? answer.message : `${answer.status} ${answer.body.toString('utf8').slice(0, 200)}`}`,
      );
    return false;
  }
}

/** Waits until every acknowledged write has reached all its watchers, or until `deadline`. */
async function untilDelivered(writes: ReadonlyMap<string, WriteRecord>, deadline: number): Promise<void> {
  const pending = () => [...writes.values()].some((record) => record.acknowledged && record.received < record.watchers);
  while (pending() && now() < deadline) await sleep(100);
}

function summarize(outcome: {
  writes: ReadonlyMap<string, WriteRecord>;
  writers: readonly Writer[];
  deliveryLatencyMs: readonly number[];
  unmatched: readonly string[];
  elapsedMs: number;
  watchesBroken: number;
  deletionMarks: number;
}): ChurnResult {
  const { writers } = outcome;
  const sum = (figure: (writer: Writer) => number) => writers.reduce((total, writer) => total + figure(writer), 0);
  const lastWatcherLatencyMs: number[] = [];
  let deliveriesMissing = 0;
  for (const record of outcome.writes.values()) {
    if (!record.acknowledged) continue;
    if (record.received >= record.watchers) {
      if (record.watchers > 0) lastWatcherLatencyMs.push(record.lastReceivedAt - record.sentAt);
    } else deliveriesMissing += record.watchers - record.received;
  }
  return {
    elapsedMs: outcome.elapsedMs,
    acknowledged: sum((writer) => writer.acknowledged),
    failed: sum((writer) => writer.failed),
    unsent: sum((writer) => writer.unsent),
    errorSamples: writers.flatMap((writer) => writer.errorSamples).slice(0, ERROR_SAMPLES),
    writeLatencyMs: {
      create: writers.flatMap((writer) => writer.latencyMs.create),
      update: writers.flatMap((writer) => writer.latencyMs.update),
      delete: writers.flatMap((writer) => writer.latencyMs.delete),
    },
    deliveryLatencyMs: outcome.deliveryLatencyMs,
    lastWatcherLatencyMs,
    deliveriesMissing,
    deletionMarks: outcome.deletionMarks,
    unmatchedEvents: outcome.unmatched.length,
    unmatchedSamples: outcome.unmatched.slice(0, ERROR_SAMPLES),
    watchesBroken: outcome.watchesBroken,
  };
}
