/**
 * A store watch on etcd's Watch stream, one stream per watch. It:
 * - ends with `CompactedError` when etcd reports a compacted start (it names the compacted
 *   revision);
 * - on a stream failure reconnects with backoff and resumes from the last delivered revision
 *   + 1, which it advances on events and on progress notifications: never a gap, never a repeat;
 * - gives up with `StoreUnavailableError` when no stream could be (re)established for
 *   `RECONNECT_GIVE_UP_MS` in a row (counted from the failure, however long the stream worked).
 */
import { CompactedError, StoreUnavailableError } from '../errors';
import type { StoreWatch, WatchRequest } from '../store';
import type { EtcdClient } from './client/client';
import type { WatchResponse } from './client/messages';
import type { WatchStream } from './client/watch-stream';
import { etcdRange, eventOf, unavailable } from './etcd-wire';

const RECONNECT_FIRST_DELAY_MS = 50;
const RECONNECT_MAX_DELAY_MS = 2_000;
const RECONNECT_GIVE_UP_MS = 30_000;

export interface EtcdWatchOptions {
  readonly client: EtcdClient;
  readonly request: WatchRequest;
  /** Told about every compacted revision etcd reports, so the store can remember it. */
  readonly onCompactedRevision: (revision: number) => void;
  /** How long reconnecting may fail before the watch gives up; default 30 s. */
  readonly giveUpAfterMs?: number;
}

export class EtcdWatch implements StoreWatch {
  private readonly client: EtcdClient;
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
    let stream: WatchStream | undefined;
    try {
      stream = await this.client.watch({
        // Responses can come only once the stream is assigned below, after the create request.
        onResponse: (response) => this.onResponse(stream, response),
        onEnd: (error) => this.streamFailed(stream, error ?? new Error('etcd ended the watch stream')),
      });
    } catch (error) {
      this.streamFailed(undefined, error);
      return;
    }
    if (this.closed) {
      stream.close();
      return;
    }
    this.stream = stream;
    stream.create({
      ...etcdRange(this.request.prefix),
      startRevision: this.deliveredRevision + 1,
      prevKv: true,
      progressNotify: true,
    });
  }

  private onResponse(stream: WatchStream | undefined, response: WatchResponse): void {
    if (this.closed || stream !== this.stream) return;
    const compactRevision = response.compactRevision;
    if (compactRevision > 0) {
      this.onCompactedRevision(compactRevision);
      this.fail(new CompactedError(this.deliveredRevision + 1, compactRevision));
      return;
    }
    if (response.canceled) {
      this.fail(new StoreUnavailableError(`etcd canceled the watch: ${response.cancelReason || 'no reason given'}`));
      return;
    }
    if (response.created) {
      this.disconnectedSince = undefined;
      this.reconnectDelayMs = RECONNECT_FIRST_DELAY_MS;
      return;
    }
    if (response.events.length === 0) {
      // A progress notification: etcd sends them only to watchers that have caught up.
      const revision = response.header.revision;
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
    stream?.close();
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
