/**
 * One watch on the SQLite store: it replays the log from the requested revision, then follows
 * the writes the store hands it.
 *
 * No gap and no duplicate between replay and live: while replaying, the watcher ignores the
 * writes it is offered, because they are in the table and the replay will read them; the last
 * replay step reads up to the store's current revision and switches to live in the same
 * synchronous step, so no write can land between the two (unless the step's own callbacks
 * wrote: then the watcher replays once more).
 */
import { CompactedError } from '../errors';
import type { KeyValue, StoreEvent, StoreWatch, WatchRequest } from '../store';
import type { LiveRow, LogRow, NameRange, RevisionLog } from './revision-log';

/** Rows read per replay step; the event loop gets a turn between steps. */
const REPLAY_BATCH_ROWS = 500;

/** What a watcher needs from its store. */
export interface WatchSource {
  readonly log: RevisionLog;
  currentRevision(): number;
  compactedRevision(): number;
  /** Called once when the watch closes, by the caller or on error. */
  forget(watcher: LogWatcher): void;
}

export class LogWatcher implements StoreWatch {
  private state: 'replaying' | 'live' | 'closed' = 'replaying';
  /** The lowest revision not yet delivered. */
  private nextRevision: number;

  constructor(
    private readonly source: WatchSource,
    private readonly request: WatchRequest,
    private readonly range: NameRange,
  ) {
    this.nextRevision = Math.max(1, request.fromRevision);
    setImmediate(() => this.replayStep());
  }

  close(): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.source.forget(this);
  }

  /** A write the store just committed; writes arrive in revision order. */
  offer(row: LogRow): void {
    if (this.state !== 'live' || row.id < this.nextRevision) return;
    this.nextRevision = row.id + 1;
    if (inRange(row.name, this.range)) this.deliver(() => this.request.onEvents([eventOf(row)]));
    this.deliver(() => this.request.onProgress?.(row.id));
  }

  private replayStep(): void {
    if (this.state !== 'replaying') return;
    const compacted = this.source.compactedRevision();
    if (this.nextRevision < compacted) {
      this.fail(new CompactedError(this.nextRevision, compacted));
      return;
    }
    const current = this.source.currentRevision();
    const rows = this.source.log.rowsBetween({
      from: this.nextRevision,
      to: current,
      range: this.range,
      limit: REPLAY_BATCH_ROWS,
    });
    if (rows.length > 0) this.deliver(() => this.request.onEvents(rows.map(eventOf)));
    if (rows.length === REPLAY_BATCH_ROWS) {
      this.nextRevision = rows[rows.length - 1].id + 1;
      setImmediate(() => this.replayStep());
      return;
    }
    this.nextRevision = Math.max(this.nextRevision, current + 1);
    if (this.state !== 'replaying') return; // a callback closed the watch
    // A callback that wrote did so while this watch still ignored what it was offered: read
    // those writes from the table before going live, or they would be lost to it.
    if (this.source.currentRevision() > current) {
      setImmediate(() => this.replayStep());
      return;
    }
    this.state = 'live';
    this.deliver(() => this.request.onProgress?.(current));
  }

  /** Runs a caller's callback; one that throws ends the watch instead of the store's write. */
  private deliver(callback: () => void): void {
    if (this.state === 'closed') return;
    try {
      callback();
    } catch (error) {
      this.fail(error instanceof Error ? error : new Error(String(error)));
    }
  }

  private fail(error: Error): void {
    if (this.state === 'closed') return;
    this.close();
    this.request.onError(error);
  }
}

function inRange(name: Uint8Array, range: NameRange): boolean {
  return Buffer.compare(name, range.start) >= 0 && Buffer.compare(name, range.end) < 0;
}

/**
 * A Buffer over a row's bytes, not a copy: node:sqlite gives every BLOB read its own array
 * (and a write's row holds the bytes its writer handed over), which nothing changes; a copy
 * per key and value was a fifth of listing a large range, and garbage for the collector.
 */
function bytesOf(blob: Uint8Array): Buffer {
  return Buffer.from(blob.buffer, blob.byteOffset, blob.byteLength);
}

export function keyValueOf(row: LiveRow): KeyValue {
  return {
    key: bytesOf(row.name).toString('utf8'),
    value: bytesOf(row.value),
    createRevision: row.create_revision,
    modRevision: row.id,
  };
}

/** The value a row replaced, rebuilt from the row itself (older rows may be compacted away). */
function previousOf(row: LogRow): KeyValue | undefined {
  if (row.created || row.old_value === null) return undefined;
  return {
    key: bytesOf(row.name).toString('utf8'),
    value: bytesOf(row.old_value),
    createRevision: row.create_revision,
    modRevision: row.prev_revision,
  };
}

export function eventOf(row: LogRow): StoreEvent {
  const prevKv = previousOf(row);
  if (row.deleted) {
    // Like etcd: a deletion's key-value has no value and no create revision.
    const kv: KeyValue = {
      key: bytesOf(row.name).toString('utf8'),
      value: Buffer.alloc(0),
      createRevision: 0,
      modRevision: row.id,
    };
    return { type: 'delete', kv, prevKv };
  }
  return prevKv ? { type: 'put', kv: keyValueOf(row), prevKv } : { type: 'put', kv: keyValueOf(row) };
}
