/**
 * The replicated backend: a `RevisionedStore` on an etcd cluster, through capstan's own etcd
 * client (client/), which fails over among the members.
 *
 * Writes are single transactions comparing the key's mod revision (0 for "absent"); a failed
 * compare reads the key in the same transaction, so the caller gets the current value without
 * a second round trip. Every failure to reach etcd becomes `StoreUnavailableError`.
 *
 * `compactedRevision()` asks etcd: it tries a read at revision 1, and when that is compacted it
 * opens a watch from revision 1, which etcd answers with its compacted revision. It is exact
 * whoever compacted. The result is remembered (with compactions this client made and those
 * watches reported) and used to fill in `CompactedError` for reads.
 */
import { CompactedError, FutureRevisionError, tooLargeToStore, ValueTooLargeError } from '../errors';
import type {
  GetResult,
  RangeRequest,
  RangeResult,
  RevisionedStore,
  StoreWatch,
  WatchRequest,
  WriteOptions,
  WriteResult,
} from '../store';
import { EtcdCallError, isTransientFailure } from './client/call-error';
import { EtcdClient } from './client/client';
import type { KeepAlive } from './client/channel';
import type { RangeRequest as EtcdRangeRequest, PutRequest, RequestOp, ResponseOp } from './client/messages';
import { LeaseManager } from './lease-manager';
import { etcdRange, isCompactedMessage, isFutureRevisionMessage, keyValueOf, unavailable } from './etcd-wire';
import { EtcdWatch } from './etcd-watch';

export interface EtcdStoreOptions {
  /** Client URLs, e.g. `http://127.0.0.1:2379` (the `--etcd-servers` flag). */
  readonly endpoints: string[];
  /**
   * PEM contents for TLS to etcd (`--etcd-cafile`, `--etcd-certfile`, `--etcd-keyfile`); give it
   * for https endpoints only. Without `ca` the system's roots verify the servers.
   */
  readonly tls?: {
    readonly ca?: Buffer;
    readonly cert?: Buffer;
    readonly key?: Buffer;
  };
  /** Deadline of each unary request (default 10 s). */
  readonly requestTimeoutMs?: number;
  /** How long a lease may serve writes with a TTL (`--lease-reuse-duration-seconds`, default 60). */
  readonly leaseReuseDurationSeconds?: number;
  /** Pings that find a member gone silent (default: the reference's 30 s, 10 s). */
  readonly keepAlive?: KeepAlive;
}

/** How long to wait for etcd to name its compacted revision on a watch from below it. */
const COMPACTION_PROBE_TIMEOUT_MS = 2_000;
/** Attempts of one write or compaction that never reached etcd (each tries every member in turn). */
const CALL_ATTEMPTS = 3;
/**
 * Pauses between attempts of a read. A leader election fails every read for its duration
 * ("etcdserver: leader changed", "no leader"), about a second or two; retrying at once three
 * times failed them all, so reads back off across that span (about 3 s in all), as etcd's own
 * Go client retries reads until their deadline.
 */
const READ_RETRY_DELAYS_MS = [50, 100, 200, 400, 800, 1_500];
/** A key no one uses, for requests that only want a response header. */
const NUL_KEY = Buffer.from([0]);

/** Opens the store and checks that etcd answers; throws `StoreUnavailableError` when it does not. */
export async function openEtcdStore(options: EtcdStoreOptions): Promise<RevisionedStore> {
  // No cap on answer sizes (gRPC clients' usual 4 MiB): the reference's client takes answers
  // of any size, and the caller bounds pages by `limit`.
  const client = new EtcdClient({
    endpoints: options.endpoints,
    tls: options.tls,
    requestTimeoutMs: options.requestTimeoutMs,
    keepAlive: options.keepAlive,
  });
  const store = new EtcdStore(client, new LeaseManager(client, options.leaseReuseDurationSeconds));
  try {
    await store.currentRevision();
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}

class EtcdStore implements RevisionedStore {
  /** The highest compacted revision this client knows of (see the file comment). */
  private knownCompactedRevision = 0;
  private readonly watches = new Set<StoreWatch>();

  constructor(
    private readonly client: EtcdClient,
    private readonly leases: LeaseManager,
  ) {}

  async currentRevision(): Promise<number> {
    const response = await this.call('read', () => this.client.range({ key: NUL_KEY, countOnly: true }));
    return response.header.revision;
  }

  async get(key: string, options?: { revision?: number }): Promise<GetResult> {
    const revision = options?.revision ?? 0;
    const response = await this.read({ key: Buffer.from(key, 'utf8'), revision });
    return {
      revision: revision || response.header.revision,
      kv: response.kvs.length > 0 ? keyValueOf(response.kvs[0]) : undefined,
    };
  }

  async range(request: RangeRequest): Promise<RangeResult> {
    const revision = request.revision ?? 0;
    const response = await this.read({
      ...etcdRange(request.prefix, request.startKey),
      revision,
      limit: request.limit ?? 0,
    });
    const kvs = response.kvs.map(keyValueOf);
    return {
      revision: revision || response.header.revision,
      kvs,
      // etcd counts every key of the range, not only the returned ones.
      remaining: response.count - kvs.length,
    };
  }

  async create(key: string, value: Buffer, options?: WriteOptions): Promise<WriteResult> {
    const tooLarge = tooLargeToStore(key, value);
    if (tooLarge) throw tooLarge;
    const outcome = await this.writeIfModRevision(
      key,
      0,
      { key: Buffer.from(key, 'utf8'), value },
      options?.ttlSeconds,
    );
    if (!outcome.succeeded) return outcome;
    const { revision } = outcome;
    return { succeeded: true, revision, kv: { key, value, createRevision: revision, modRevision: revision } };
  }

  async update(key: string, value: Buffer, expectedModRevision: number, options?: WriteOptions): Promise<WriteResult> {
    // Mod revision 0 would compare equal for an absent key and create it.
    if (expectedModRevision <= 0) return this.failedWrite(key);
    const tooLarge = tooLargeToStore(key, value);
    if (tooLarge) throw tooLarge;
    const outcome = await this.writeIfModRevision(
      key,
      expectedModRevision,
      { key: Buffer.from(key, 'utf8'), value, prevKv: true },
      options?.ttlSeconds,
    );
    if (!outcome.succeeded) return outcome;
    const { revision, response } = outcome;
    // The put response has no create revision; the replaced value, of the same incarnation, does.
    if (!('put' in response) || !response.put.prevKv)
      throw new Error('etcd answered a put without the replaced value it was asked for');
    const createRevision = response.put.prevKv.createRevision;
    return { succeeded: true, revision, kv: { key, value, createRevision, modRevision: revision } };
  }

  async delete(key: string, expectedModRevision: number): Promise<WriteResult> {
    if (expectedModRevision <= 0) return this.failedWrite(key);
    const outcome = await this.compareAndWrite(key, expectedModRevision, {
      deleteRange: { key: Buffer.from(key, 'utf8'), prevKv: true },
    });
    if (!outcome.succeeded) return outcome;
    const { revision, response } = outcome;
    if (!('deleteRange' in response) || response.deleteRange.prevKvs.length === 0)
      throw new Error('etcd answered a delete without the deleted value it was asked for');
    const deleted = keyValueOf(response.deleteRange.prevKvs[0]);
    return { succeeded: true, revision, kv: { ...deleted, modRevision: revision } };
  }

  watch(request: WatchRequest): StoreWatch {
    const watch = new EtcdWatch({
      client: this.client,
      request: {
        ...request,
        onError: (error) => {
          this.watches.delete(watch);
          request.onError(error);
        },
      },
      onCompactedRevision: (revision) => this.learnCompactedRevision(revision),
    });
    this.watches.add(watch);
    return {
      close: () => {
        this.watches.delete(watch);
        watch.close();
      },
    };
  }

  async compact(revision: number): Promise<void> {
    // etcd refuses a revision at or below the compacted one with the compacted error.
    await this.call('compact', () => this.client.compact({ revision, physical: true }), revision);
    this.learnCompactedRevision(revision);
  }

  async compactedRevision(): Promise<number> {
    try {
      await this.call('read', () => this.client.range({ key: NUL_KEY, revision: 1, countOnly: true }), 1);
    } catch (error) {
      if (!(error instanceof CompactedError)) throw error;
    }
    return this.knownCompactedRevision;
  }

  async close(): Promise<void> {
    for (const watch of this.watches) watch.close();
    this.watches.clear();
    this.client.close();
  }

  private read(request: EtcdRangeRequest) {
    return this.call('read', () => this.client.range(request), request.revision ?? 0);
  }

  /**
   * A put compared on the key's mod revision (see `compareAndWrite`), on a lease when the
   * write has a TTL. A lease etcd no longer knows (revoked by someone, or expired while this
   * client paused) fails the whole transaction, so it is retried once on a fresh lease.
   */
  private async writeIfModRevision(
    key: string,
    expected: number,
    put: PutRequest,
    ttlSeconds: number | undefined,
  ): ReturnType<EtcdStore['compareAndWrite']> {
    if (!ttlSeconds || ttlSeconds <= 0) return this.compareAndWrite(key, expected, { put });
    for (let attempt = 1; ; attempt++) {
      const lease = await this.call('write', () => this.leases.leaseFor(ttlSeconds));
      try {
        return await this.compareAndWrite(key, expected, { put: { ...put, lease } });
      } catch (error) {
        if (attempt > 1 || !isLeaseNotFound(error)) throw error;
        this.leases.forget(lease);
      }
    }
  }

  /**
   * One transaction: if the key's mod revision is `expected` (0: absent), run `write`; else read
   * the key, so a failed compare returns its current value without a second round trip.
   */
  private async compareAndWrite(
    key: string,
    expected: number,
    write: RequestOp,
  ): Promise<{ succeeded: true; revision: number; response: ResponseOp } | (WriteResult & { succeeded: false })> {
    const keyBuffer = Buffer.from(key, 'utf8');
    const response = await this.call('write', () =>
      this.client.txn({
        compare: [{ key: keyBuffer, target: 'mod', result: 'equal', value: expected }],
        success: [write],
        failure: [{ range: { key: keyBuffer } }],
      }),
    );
    const revision = response.header.revision;
    if (response.succeeded) return { succeeded: true, revision, response: response.responses[0] };
    const failed = response.responses[0];
    const current = failed && 'range' in failed ? failed.range.kvs : [];
    return { succeeded: false, revision, kv: current.length > 0 ? keyValueOf(current[0]) : undefined };
  }

  private async failedWrite(key: string): Promise<WriteResult> {
    const { revision, kv } = await this.get(key);
    return { succeeded: false, revision, kv };
  }

  /**
   * Runs an etcd call, turning its failures into the store's errors. Reads are retried on
   * another member; writes and compactions only when they never left this process, since one
   * that reached etcd and lost its answer would, retried, fail on its own effect (a conflict or
   * a compacted error that did not happen).
   */
  private async call<T>(kind: 'read' | 'write' | 'compact', request: () => Promise<T>, revision = 0): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await request();
      } catch (error) {
        if (isCompactedMessage(error)) throw new CompactedError(revision, await this.probeCompactedRevision());
        if (isFutureRevisionMessage(error)) throw new FutureRevisionError(revision, await this.currentRevision());
        // A member started with a lower --max-request-bytes, or a transaction's overhead past it.
        if (error instanceof Error && /request is too large|larger than max/.test(error.message))
          throw new ValueTooLargeError(0);
        if (kind !== 'read') {
          if (!neverSent(error) || attempt >= CALL_ATTEMPTS) throw unavailable(kind, error);
          continue;
        }
        if (!isTransientFailure(error) || attempt > READ_RETRY_DELAYS_MS.length) throw unavailable(kind, error);
        await new Promise((resolve) => setTimeout(resolve, READ_RETRY_DELAYS_MS[attempt - 1]));
      }
    }
  }

  /**
   * Learns the compacted revision after etcd said a revision is compacted: etcd answers a watch
   * from below its compacted revision with that revision (and cancels it). Revision 1 is below
   * any compaction that removed something.
   */
  private async probeCompactedRevision(): Promise<number> {
    const answer = await new Promise<number | undefined>((resolve) => {
      const timer = setTimeout(() => finish(undefined), COMPACTION_PROBE_TIMEOUT_MS);
      const watch = new EtcdWatch({
        client: this.client,
        request: { prefix: '\0', fromRevision: 1, onEvents: () => undefined, onError: () => finish(undefined) },
        onCompactedRevision: (revision) => finish(revision),
      });
      function finish(revision: number | undefined): void {
        clearTimeout(timer);
        watch.close();
        resolve(revision);
      }
    });
    if (answer !== undefined) this.learnCompactedRevision(answer);
    return this.knownCompactedRevision;
  }

  private learnCompactedRevision(revision: number): void {
    this.knownCompactedRevision = Math.max(this.knownCompactedRevision, revision);
  }
}

function isLeaseNotFound(error: unknown): boolean {
  return (
    error instanceof Error &&
    error.cause instanceof EtcdCallError &&
    error.cause.details === 'etcdserver: requested lease not found'
  );
}

/** A call that never left this process: every member was down or skipped, or refused the stream. */
function neverSent(error: unknown): boolean {
  return error instanceof EtcdCallError && error.neverSent;
}
