/**
 * What the cluster tests write and what the store says happened: writers that create, update
 * and now and then delete ConfigMaps through a balancer, recording each acknowledged write; the
 * store's own history of a key prefix, read by a store watch on the same etcd; and the checks
 * that compare them (acknowledged writes lost, where a watcher's events part from the history).
 *
 *   const history = recordHistory(store, `/registry/configmaps/${namespace}/`, fromRevision);
 *   const writer = new Writer({ request, namespace, names: ['cm-0', 'cm-1'] });
 *   writer.start();  ...  await writer.stop();
 *   expect(lostWrites(writer.acknowledged, history.events)).toEqual([]);
 */
import type { RevisionedStore, StoreEvent, StoreWatch } from '../../storage/store';
import type { HttpAnswer } from './cluster';
import type { ObservedEvent } from './watch-client';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface Acknowledged {
  readonly op: 'create' | 'update' | 'delete';
  readonly name: string;
  /** Of the written object; "" for a delete, answered with a Status as the reference does for ConfigMaps. */
  readonly resourceVersion: string;
}

export interface WriterOptions {
  /** One request (through the balancer); rejects on a network failure or a timeout. */
  readonly request: (method: string, path: string, body?: unknown) => Promise<HttpAnswer>;
  readonly namespace: string;
  /** The ConfigMaps this writer alone writes, in turn. */
  readonly names: readonly string[];
}

/** One writer: creates, updates and now and then deletes ConfigMaps; records what was acknowledged. */
export class Writer {
  readonly acknowledged: Acknowledged[] = [];
  readonly failures: string[] = [];
  /** Milliseconds since the writer started, and how long the write took. */
  private readonly durations: { readonly at: number; readonly ms: number }[] = [];
  private readonly startedAt = Date.now();
  private readonly exists = new Map<string, boolean>();
  private sequence = 0;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly options: WriterOptions) {}

  start(): void {
    this.running = this.loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
  }

  private async loop(): Promise<void> {
    // Bounded: the test stops it long before, at ~50 writes a second at most.
    for (let i = 0; i < 20_000 && !this.stopped; i++) {
      await this.writeOnce();
      await sleep(10);
    }
  }

  slowest(): { readonly at: number; readonly ms: number }[] {
    return [...this.durations].sort((a, b) => b.ms - a.ms).slice(0, 5);
  }

  private async writeOnce(): Promise<void> {
    const began = Date.now();
    try {
      await this.write();
    } finally {
      this.durations.push({ at: began - this.startedAt, ms: Date.now() - began });
    }
  }

  private async write(): Promise<void> {
    const { namespace, names, request } = this.options;
    const configmaps = `/api/v1/namespaces/${namespace}/configmaps`;
    const seq = this.sequence++;
    const name = names[seq % names.length];
    const exists = this.exists.get(name);
    const op: Acknowledged['op'] = !exists ? 'create' : seq % 7 === 0 ? 'delete' : 'update';
    const object = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: { seq: String(seq) } };
    try {
      const answer =
        op === 'create'
          ? await request('POST', configmaps, object)
          : op === 'update'
            ? await request('PUT', `${configmaps}/${name}`, object)
            : await request('DELETE', `${configmaps}/${name}`);
      const body = JSON.parse(answer.body) as { metadata?: { resourceVersion?: string }; details?: unknown };
      if (answer.status === 200 || answer.status === 201) {
        this.acknowledged.push({ op, name, resourceVersion: body.metadata?.resourceVersion ?? '' });
        this.exists.set(name, op !== 'delete');
      } else {
        this.failures.push(`${op} ${name}: ${answer.status} ${answer.body.slice(0, 200)}`);
        // A write that failed may still have applied: learn the truth on the next try.
        if (answer.status === 409) this.exists.set(name, true);
        if (answer.status === 404) this.exists.set(name, false);
      }
    } catch (error) {
      this.failures.push(`${op} ${name}: ${(error as Error).message}`);
      // Unknown outcome: a create may have happened; the next create answers 409 and corrects it.
    }
  }
}

/** The store's own history of the keys under `prefix` (names relative to it), as watch events. */
export function recordHistory(
  store: RevisionedStore,
  prefix: string,
  fromRevision: number,
): { readonly events: ObservedEvent[]; readonly errors: Error[]; readonly watch: StoreWatch } {
  const events: ObservedEvent[] = [];
  const errors: Error[] = [];
  const toObserved = (event: StoreEvent): ObservedEvent => ({
    type: event.type === 'delete' ? 'DELETED' : event.kv.createRevision === event.kv.modRevision ? 'ADDED' : 'MODIFIED',
    name: event.kv.key.slice(prefix.length),
    resourceVersion: String(event.kv.modRevision),
  });
  const watch = store.watch({
    prefix,
    fromRevision,
    onEvents: (batch) => events.push(...batch.map(toObserved)),
    onError: (error) => errors.push(error),
  });
  return { events, errors, watch };
}

/**
 * The acknowledged writes missing from the history: each must be there as the event it caused
 * (a delete: after the name's previous acknowledged write).
 */
export function lostWrites(acknowledged: readonly Acknowledged[], history: readonly ObservedEvent[]): Acknowledged[] {
  const inHistory = new Set(history.map((event) => `${event.type} ${event.name}@${event.resourceVersion}`));
  return acknowledged.filter((ack, i) => {
    if (ack.op !== 'delete')
      return !inHistory.has(`${ack.op === 'create' ? 'ADDED' : 'MODIFIED'} ${ack.name}@${ack.resourceVersion}`);
    const previous = Number(
      acknowledged.slice(0, i).findLast((earlier) => earlier.name === ack.name)?.resourceVersion ?? 0,
    );
    return !history.some(
      (event) => event.type === 'DELETED' && event.name === ack.name && Number(event.resourceVersion) > previous,
    );
  });
}

/** Where two event sequences part, to say what went wrong in a failure message. */
export function firstDifference(expected: readonly ObservedEvent[], seen: readonly ObservedEvent[]): string {
  const key = (event: ObservedEvent | undefined) =>
    event ? `${event.type} ${event.name}@${event.resourceVersion}` : 'nothing';
  const index = expected.findIndex((event, i) => key(event) !== key(seen[i]));
  const at = index < 0 ? expected.length : index;
  const seenKeys = seen.map(key);
  const duplicates = seenKeys.filter((k, i) => seenKeys.indexOf(k) !== i);
  return `at ${at}: expected ${key(expected[at])}, saw ${key(seen[at])}; expected ${expected.length}, saw ${seen.length}, duplicates ${duplicates.slice(0, 5).join(', ')}`;
}
