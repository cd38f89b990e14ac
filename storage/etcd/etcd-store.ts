/**
 * The replicated backend: a `RevisionedStore` on an etcd cluster, through the `etcd3` client's
 * raw KV and watch services (see etcd-watch.ts for why not its high-level Watcher).
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
import { circuitBreaker, ConsecutiveBreaker, handleWhen, isBrokenCircuitError, noop } from 'cockatiel';
import { Etcd3, isRecoverableError, IOptions, IRangeRequest, IRequestOp, IResponseHeader, IResponseOp } from 'etcd3';
import { CompactedError, FutureRevisionError, tooLargeToStore, ValueTooLargeError } from '../errors';
import type {
  GetResult,
  RangeRequest,
  RangeResult,
  RevisionedStore,
  StoreWatch,
  WatchRequest,
  WriteResult,
} from '../store';
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
}

const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
/** How long to wait for etcd to name its compacted revision on a watch from below it. */
const COMPACTION_PROBE_TIMEOUT_MS = 2_000;
/** Attempts of one write or compaction that never reached etcd, each on a member picked at random among those not skipped. */
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

/**
 * After a few failures in a row a member is skipped for a while, so calls go to the others.
 * etcd3's default skips it for 5 s, which with one member means 5 s of refused calls after
 * it is back; a second is enough to stop hammering a dead member.
 */
function hostCircuitBreaker() {
  return circuitBreaker(handleWhen(isRecoverableError), { halfOpenAfter: 1_000, breaker: new ConsecutiveBreaker(3) });
}

/**
 * gRPC gives Node the URL's host as the TLS server name, and Node warns (DEP0123) on every
 * process that reaches etcd by IP address, as kubeadm's https://127.0.0.1:2379: a warning an
 * operator cannot act on (the certificate is still checked against the address). Only that
 * warning is dropped.
 */
let ipServerNameWarningDropped = false;
function dropIpServerNameWarning(): void {
  if (ipServerNameWarningDropped) return;
  ipServerNameWarningDropped = true;
  const emitWarning = process.emitWarning.bind(process) as (...args: unknown[]) => void;
  process.emitWarning = ((...args: unknown[]) => {
    const code = typeof args[1] === 'object' && args[1] !== null ? (args[1] as { code?: unknown }).code : args[2];
    if (code !== 'DEP0123') emitWarning(...args);
  }) as typeof process.emitWarning;
}

/** Opens the store and checks that etcd answers; throws `StoreUnavailableError` when it does not. */
export async function openEtcdStore(options: EtcdStoreOptions): Promise<RevisionedStore> {
  if (options.tls) dropIpServerNameWarning();
  const timeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const clientOptions: IOptions = {
    hosts: options.endpoints,
    credentials: options.tls && {
      // gRPC's createSsl takes null for the system's roots; etcd3's type asks a Buffer regardless.
      rootCertificate: options.tls.ca ?? (null as unknown as Buffer),
      privateKey: options.tls.key,
      certChain: options.tls.cert,
    },
    // Streams (watches) live long; only unary calls get a deadline.
    defaultCallOptions: (context) => (context.isStream ? {} : { deadline: Date.now() + timeoutMs }),
    // Retries are this store's (see `call`): etcd3's would retry writes that may have applied.
    faultHandling: { host: hostCircuitBreaker, global: noop },
    // gRPC's default 4 MiB answer cap would fail any page of more than ~1,700 Pods; the
    // reference's client takes answers of any size, and the caller bounds pages by `limit`.
    grpcOptions: { 'grpc.max_receive_message_length': -1 },
  };
  const store = new EtcdStore(new Etcd3(clientOptions));
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

  constructor(private readonly client: Etcd3) {}

  async currentRevision(): Promise<number> {
    const response = await this.call('read', () => this.client.kv.range({ key: NUL_KEY, count_only: true }));
    return revisionOf(response.header);
  }

  async get(key: string, options?: { revision?: number }): Promise<GetResult> {
    const revision = options?.revision ?? 0;
    const response = await this.read({ key: Buffer.from(key, 'utf8'), revision });
    return {
      revision: revision || revisionOf(response.header),
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
      revision: revision || revisionOf(response.header),
      kvs,
      // etcd counts every key of the range, not only the returned ones.
      remaining: Number(response.count) - kvs.length,
    };
  }

  async create(key: string, value: Buffer): Promise<WriteResult> {
    const tooLarge = tooLargeToStore(key, value);
    if (tooLarge) throw tooLarge;
    const outcome = await this.writeIfModRevision(key, 0, { request_put: { key: Buffer.from(key, 'utf8'), value } });
    if (!outcome.succeeded) return outcome;
    const { revision } = outcome;
    return { succeeded: true, revision, kv: { key, value, createRevision: revision, modRevision: revision } };
  }

  async update(key: string, value: Buffer, expectedModRevision: number): Promise<WriteResult> {
    // Mod revision 0 would compare equal for an absent key and create it.
    if (expectedModRevision <= 0) return this.failedWrite(key);
    const tooLarge = tooLargeToStore(key, value);
    if (tooLarge) throw tooLarge;
    const outcome = await this.writeIfModRevision(key, expectedModRevision, {
      request_put: { key: Buffer.from(key, 'utf8'), value, prev_kv: true },
    });
    if (!outcome.succeeded) return outcome;
    const { revision, response } = outcome;
    // The put response has no create revision; the replaced value, of the same incarnation, does.
    const createRevision = Number(response.response_put.prev_kv.create_revision);
    return { succeeded: true, revision, kv: { key, value, createRevision, modRevision: revision } };
  }

  async delete(key: string, expectedModRevision: number): Promise<WriteResult> {
    if (expectedModRevision <= 0) return this.failedWrite(key);
    const outcome = await this.writeIfModRevision(key, expectedModRevision, {
      request_delete_range: { key: Buffer.from(key, 'utf8'), prev_kv: true },
    });
    if (!outcome.succeeded) return outcome;
    const { revision, response } = outcome;
    const deleted = keyValueOf(response.response_delete_range.prev_kvs[0]);
    return { succeeded: true, revision, kv: { ...deleted, modRevision: revision } };
  }

  watch(request: WatchRequest): StoreWatch {
    const watch = new EtcdWatch({
      client: this.client.watchClient,
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
    await this.call('compact', () => this.client.kv.compact({ revision, physical: true }), revision);
    this.learnCompactedRevision(revision);
  }

  async compactedRevision(): Promise<number> {
    try {
      await this.call('read', () => this.client.kv.range({ key: NUL_KEY, revision: 1, count_only: true }), 1);
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

  private read(request: IRangeRequest) {
    return this.call('read', () => this.client.kv.range(request), Number(request.revision ?? 0));
  }

  /**
   * One transaction: if the key's mod revision is `expected` (0: absent), run `write`; else read
   * the key, so a failed compare returns its current value without a second round trip.
   */
  private async writeIfModRevision(
    key: string,
    expected: number,
    write: IRequestOp,
  ): Promise<{ succeeded: true; revision: number; response: IResponseOp } | (WriteResult & { succeeded: false })> {
    const keyBuffer = Buffer.from(key, 'utf8');
    const response = await this.call('write', () =>
      this.client.kv.txn({
        compare: [{ key: keyBuffer, target: 'Mod', result: 'Equal', mod_revision: expected }],
        success: [write],
        failure: [{ request_range: { key: keyBuffer } }],
      }),
    );
    const revision = revisionOf(response.header);
    if (response.succeeded) return { succeeded: true, revision, response: response.responses[0] };
    const current = response.responses[0].response_range.kvs;
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
        if (error instanceof Error && /request is too large|larger than max/.test(error.message)) throw new ValueTooLargeError(0);
        if (kind !== 'read') {
          if (!neverSent(error) || attempt >= CALL_ATTEMPTS) throw unavailable(kind, error);
          continue;
        }
        const retry = (error instanceof Error && isRecoverableError(error)) || isBrokenCircuitError(error);
        if (!retry || attempt > READ_RETRY_DELAYS_MS.length) throw unavailable(kind, error);
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
        client: this.client.watchClient,
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

/** A call that failed before any connection carried it: every member was down or skipped. */
function neverSent(error: unknown): boolean {
  return isBrokenCircuitError(error) || (error instanceof Error && error.message.includes('No connection established'));
}

function revisionOf(header: IResponseHeader): number {
  return Number(header.revision);
}
