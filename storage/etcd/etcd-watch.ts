/**
 * A watch driven directly on etcd's gRPC watch stream (etcd3's raw `WatchClient`), one stream
 * per watch.
 *
 * Written here instead of using etcd3's `Watcher` because that one drops `compact_revision`,
 * crashes the process on an unhandled error, and resumes after a reconnect from the create
 * response's revision, which can skip events. This one:
 * - ends with `CompactedError` when etcd reports a compacted start (it names the compacted
 *   revision);
 * - on a stream failure reconnects with backoff and resumes from the last delivered revision
 *   + 1, which it advances on events and on progress notifications: never a gap, never a repeat;
 * - gives up with `StoreUnavailableError` when no stream could be (re)established for
 *   `RECONNECT_GIVE_UP_MS` in a row (counted from the failure, however long the stream worked).
 */
import type { IDuplexStream, IWatchRequest, IWatchResponse, WatchClient } from 'etcd3';
import { CompactedError, StoreUnavailableError } from '../errors';
import type { StoreWatch, WatchRequest } from '../store';
import { etcdRange, eventOf, unavailable } from './etcd-wire';

type WatchStream = IDuplexStream<IWatchRequest, IWatchResponse>;

const RECONNECT_FIRST_DELAY_MS = 50;
const RECONNECT_MAX_DELAY_MS = 2_000;
const RECONNECT_GIVE_UP_MS = 30_000;

export interface EtcdWatchOptions {
  readonly client: WatchClient;
  readonly request: WatchRequest;
  /** Told about every compacted revision etcd reports, so the store can remember it. */
  readonly onCompactedRevision: (revision: number) => void;
  /** How long reconnecting may fail before the watch gives up; default 30 s. */
  readonly giveUpAfterMs?: number;
}

export class EtcdWatch implements StoreWatch {
  private readonly client: WatchClient;
  private readonly request: WatchRequest;
  private readonly onCompactedRevision: (revision: number) => void;
  /** Every event up to this revision has been delivered. */
  private deliveredRevision: number;
  private stream: WatchStream | undefined;
  private closed = false;
  private reconnectDelayMs = RECONNECT_FIRST_DELAY_MS;
  private readonly giveUpAfterMs: number;
  /** Since when the watch has had no working stream (its start, or the failure of the last one); undefined while one works. */
  private disconnectedSince: number | undefined = Date.now();
  private reconnectTimer: NodeJS.Timeout | undefined;

  constructor(options: EtcdWatchOptions) {
    this.client = options.client;
    this.request = options.request;
    this.onCompactedRevision = options.onCompactedRevision;
    this.giveUpAfterMs = options.giveUpAfterMs ?? RECONNECT_GIVE_UP_MS;
    this.deliveredRevision = Math.max(1, options.request.fromRevision) - 1;
    void this.connect();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    this.dropStream();
  }

  private async connect(): Promise<void> {
    let stream: WatchStream;
    try {
      stream = await this.client.watch();
    } catch (error) {
      this.streamFailed(undefined, error);
      return;
    }
    if (this.closed) {
      endStream(stream);
      return;
    }
    this.stream = stream;
    stream.on('data', (response) => this.onResponse(stream, response));
    stream.on('error', (error) => this.streamFailed(stream, error));
    stream.on('end', () => this.streamFailed(stream, new Error('watch stream ended')));
    stream.write({
      create_request: {
        ...etcdRange(this.request.prefix),
        start_revision: this.deliveredRevision + 1,
        prev_kv: true,
        progress_notify: true,
      },
    });
  }

  private onResponse(stream: WatchStream, response: IWatchResponse): void {
    if (this.closed || stream !== this.stream) return;
    const compactRevision = Number(response.compact_revision);
    if (compactRevision > 0) {
      this.onCompactedRevision(compactRevision);
      this.fail(new CompactedError(this.deliveredRevision + 1, compactRevision));
      return;
    }
    if (response.canceled) {
      this.fail(new StoreUnavailableError(`etcd canceled the watch: ${response.cancel_reason || 'no reason given'}`));
      return;
    }
    if (response.created) {
      this.disconnectedSince = undefined;
      this.reconnectDelayMs = RECONNECT_FIRST_DELAY_MS;
      return;
    }
    if (response.events.length === 0) {
      // A progress notification: etcd sends them only to watchers that have caught up.
      const revision = Number(response.header.revision);
      if (revision <= this.deliveredRevision) return;
      this.deliveredRevision = revision;
      this.deliver(() => this.request.onProgress?.(revision));
      return;
    }
    // A resumed stream starts after the delivered revision; the filter is a guard, not a need.
    const events = response.events.map(eventOf).filter((event) => event.kv.modRevision > this.deliveredRevision);
    if (events.length === 0) return;
    this.deliveredRevision = events[events.length - 1].kv.modRevision;
    this.deliver(() => this.request.onEvents(events));
  }

  private streamFailed(stream: WatchStream | undefined, error: unknown): void {
    if (this.closed || stream !== this.stream) return;
    this.dropStream();
    this.disconnectedSince ??= Date.now();
    if (Date.now() - this.disconnectedSince > this.giveUpAfterMs) {
      this.fail(unavailable('watch', error));
      return;
    }
    this.reconnectTimer = setTimeout(() => void this.connect(), this.reconnectDelayMs);
    this.reconnectDelayMs = Math.min(this.reconnectDelayMs * 2, RECONNECT_MAX_DELAY_MS);
  }

  private dropStream(): void {
    const stream = this.stream;
    this.stream = undefined;
    if (stream) endStream(stream);
  }

  /** Runs a caller's callback; one that throws ends the watch. */
  private deliver(callback: () => void): void {
    try {
      callback();
    } catch (error) {
      this.fail(error instanceof Error ? error : new Error(String(error)));
    }
  }

  private fail(error: Error): void {
    if (this.closed) return;
    this.close();
    this.request.onError(error);
  }
}

/**
 * Ends a stream we no longer want. Ending the request side first matters: etcd3 marks the
 * host failed (and resets every client on it) when a still-writable stream errors, and
 * cancelling makes the stream error with CANCELLED.
 */
function endStream(stream: WatchStream): void {
  stream.on('error', () => undefined);
  stream.end();
  stream.cancel();
}
