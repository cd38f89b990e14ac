/**
 * The single-replica backend: a `RevisionedStore` in one SQLite file (`node:sqlite`).
 *
 * Only this process writes the file, so the current revision lives in memory and every write is
 * one synchronous statement: reads, compare-and-swap and the revision counter cannot
 * interleave. Watches are fed directly by the writes (no polling), in revision order.
 *
 * Compaction to N keeps what is needed to read at N or later and to replay events from N:
 * reads below N and watches from below N fail with `CompactedError`, like etcd. Compacting to
 * a revision at or below the compacted one fails with `CompactedError` too, as etcd does.
 *
 * Keys written with a TTL are deleted by the store when it passes (key-expiry.ts), each by a
 * write of its own, so watchers see a delete event as they do when etcd's lease expires.
 */
import { DatabaseSync } from 'node:sqlite';
import { CompactedError, FutureRevisionError, StoreUnavailableError, tooLargeToStore } from '../errors';
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
import { KeyExpiry } from './key-expiry';
import { keyBytes, prefixEnd } from './key-range';
import { LogWatcher, keyValueOf } from './log-watcher';
import { LogRow, NewLogRow, RevisionLog } from './revision-log';

export interface SqliteStoreOptions {
  /** The database file; created when missing. */
  readonly path: string;
}

/** How long a statement waits for a lock held by another connection (a backup tool, say). */
const BUSY_TIMEOUT_MS = 5_000;
/** Keys deleted per expiry sweep; the event loop gets a turn between sweeps. */
const EXPIRY_SWEEP_KEYS = 1_000;
/** setTimeout's longest delay; a later expiry is looked at again then. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** Revisions examined per compaction step; the event loop gets a turn between steps. */
const COMPACTION_CHUNK_REVISIONS = 1_000;

export async function openSqliteStore(options: SqliteStoreOptions): Promise<RevisionedStore> {
  try {
    const db = new DatabaseSync(options.path, { timeout: BUSY_TIMEOUT_MS });
    db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
    return new SqliteStore(db, new RevisionLog(db), new KeyExpiry(db));
  } catch (error) {
    throw new StoreUnavailableError(`cannot open SQLite store at ${options.path}: ${messageOf(error)}`, {
      cause: error,
    });
  }
}

class SqliteStore implements RevisionedStore {
  private revision: number;
  private compacted: number;
  private closed = false;
  private readonly watchers = new Set<LogWatcher>();
  /** Committed writes not yet offered to the watchers (see `publish`). */
  private readonly unpublished: LogRow[] = [];
  private publishing = false;
  /** Compactions run one after another. */
  private compaction: Promise<void> = Promise.resolve();
  private sweepTimer: NodeJS.Timeout | undefined;
  private sweepAtMs = Infinity;

  constructor(
    private readonly db: DatabaseSync,
    private readonly log: RevisionLog,
    private readonly expiry: KeyExpiry,
  ) {
    this.revision = log.lastRevision();
    this.compacted = log.compactedRevision();
    const next = expiry.nextAt();
    if (next !== undefined) this.scheduleSweep(next);
  }

  currentRevision(): Promise<number> {
    return this.run(() => this.revision);
  }

  compactedRevision(): Promise<number> {
    return this.run(() => this.compacted);
  }

  get(key: string, options?: { revision?: number }): Promise<GetResult> {
    return this.run(() => {
      const revision = this.readRevision(options?.revision);
      const row = this.log.latestOf(keyBytes(key), revision);
      return { revision, kv: row && !row.deleted ? keyValueOf(row) : undefined };
    });
  }

  range(request: RangeRequest): Promise<RangeResult> {
    return this.run(() => {
      const revision = this.readRevision(request.revision);
      const range = { start: keyBytes(request.startKey ?? request.prefix), end: prefixEnd(request.prefix) };
      const limit = request.limit ?? 0;
      const kvs = this.log.liveRowsAt(range, revision, limit).map(keyValueOf);
      // Counted after the page, not from its start: the count reads every name it covers.
      const after = { start: keyBytes(`${kvs.at(-1)?.key ?? ''}\u0000`), end: range.end };
      const remaining = limit > 0 && kvs.length === limit ? this.log.countLiveAt(after, revision) : 0;
      return { revision, kvs, remaining };
    });
  }

  create(key: string, value: Buffer, options?: WriteOptions): Promise<WriteResult> {
    const tooLarge = tooLargeToStore(key, value);
    if (tooLarge) return Promise.reject(tooLarge);
    return this.run(() => {
      const name = keyBytes(key);
      const latest = this.log.latestOf(name, this.revision);
      if (latest && !latest.deleted) return this.failed(latest);
      this.setExpiry(name, options?.ttlSeconds);
      const { revision } = this.append({
        name,
        created: true,
        deleted: false,
        createRevision: this.revision + 1,
        prevRevision: latest?.id ?? 0,
        value,
        oldValue: undefined,
      });
      return { succeeded: true, revision, kv: { key, value, createRevision: revision, modRevision: revision } };
    });
  }

  update(key: string, value: Buffer, expectedModRevision: number, options?: WriteOptions): Promise<WriteResult> {
    const tooLarge = tooLargeToStore(key, value);
    if (tooLarge) return Promise.reject(tooLarge);
    return this.run(() => {
      const name = keyBytes(key);
      const latest = this.log.latestOf(name, this.revision);
      if (!latest || latest.deleted || latest.id !== expectedModRevision) return this.failed(latest);
      this.setExpiry(name, options?.ttlSeconds);
      const { revision } = this.append({
        name,
        created: false,
        deleted: false,
        createRevision: latest.create_revision,
        prevRevision: latest.id,
        value,
        oldValue: Buffer.from(latest.value),
      });
      return {
        succeeded: true,
        revision,
        kv: { key, value, createRevision: latest.create_revision, modRevision: revision },
      };
    });
  }

  delete(key: string, expectedModRevision: number): Promise<WriteResult> {
    return this.run(() => {
      const name = keyBytes(key);
      const latest = this.log.latestOf(name, this.revision);
      if (!latest || latest.deleted || latest.id !== expectedModRevision) return this.failed(latest);
      const { revision, deletedValue } = this.appendDeletion(name, latest);
      return {
        succeeded: true,
        revision,
        kv: { key, value: deletedValue, createRevision: latest.create_revision, modRevision: revision },
      };
    });
  }

  watch(request: WatchRequest): StoreWatch {
    if (this.closed) {
      setImmediate(() => request.onError(closedError()));
      return { close: () => undefined };
    }
    const watcher = new LogWatcher(
      {
        log: this.log,
        currentRevision: () => this.revision,
        compactedRevision: () => this.compacted,
        forget: (closing) => this.watchers.delete(closing),
      },
      request,
      { start: keyBytes(request.prefix), end: prefixEnd(request.prefix) },
    );
    this.watchers.add(watcher);
    return watcher;
  }

  compact(revision: number): Promise<void> {
    const start = this.run(() => {
      if (revision > this.revision) throw new FutureRevisionError(revision, this.revision);
      if (revision <= this.compacted) throw new CompactedError(revision, this.compacted);
      // Recorded first, so reads and watches below it fail while the rows are being removed.
      this.log.setCompactedRevision(revision);
      this.compacted = revision;
    });
    const previous = this.compaction;
    const done = start.then(() => previous).then(() => this.removeCompactedRows(revision));
    this.compaction = done.catch(() => undefined);
    return done;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.sweepTimer);
    for (const watcher of [...this.watchers]) watcher.close();
    await this.compaction;
    this.db.close();
  }

  /**
   * Records the TTL of the write about to be appended (the next revision), or that it has none.
   * Recorded before the append: a process that dies in between leaves an expiry for a revision
   * that never held this key, which deletes nothing (see key-expiry.ts).
   */
  private setExpiry(name: Buffer, ttlSeconds: number | undefined): void {
    if (ttlSeconds === undefined || ttlSeconds <= 0) {
      this.expiry.clear(name);
      return;
    }
    const expiresAtMs = Date.now() + ttlSeconds * 1000;
    this.expiry.set(name, expiresAtMs, this.revision + 1);
    this.scheduleSweep(expiresAtMs);
  }

  private scheduleSweep(atMs: number): void {
    if (this.closed || (this.sweepTimer !== undefined && this.sweepAtMs <= atMs)) return;
    clearTimeout(this.sweepTimer);
    this.sweepAtMs = atMs;
    this.sweepTimer = setTimeout(() => this.sweep(), Math.min(MAX_TIMER_MS, Math.max(0, atMs - Date.now())));
    // Expiry does not keep a process alive that has nothing else to do.
    this.sweepTimer.unref();
  }

  /** Deletes the keys whose TTL has passed, then waits for the next one. */
  private sweep(): void {
    this.sweepTimer = undefined;
    this.sweepAtMs = Infinity;
    if (this.closed) return;
    let next: number | undefined;
    try {
      const due = this.expiry.due(Date.now(), EXPIRY_SWEEP_KEYS);
      for (const { name, revision } of due) {
        const latest = this.log.latestOf(name, this.revision);
        if (latest && !latest.deleted && latest.id === revision) this.appendDeletion(name, latest);
        else this.expiry.clear(name);
      }
      next = due.length === EXPIRY_SWEEP_KEYS ? Date.now() : this.expiry.nextAt();
    } catch {
      // SQLite failed (the disk, a lock held too long): the next sweep tries again.
      next = Date.now() + 1_000;
    }
    if (next !== undefined) this.scheduleSweep(next);
  }

  /** Appends the deletion of the key whose newest row is `latest`. */
  private appendDeletion(name: Buffer, latest: LogRow): { revision: number; deletedValue: Buffer } {
    this.expiry.clear(name);
    const deletedValue = Buffer.from(latest.value);
    const { revision } = this.append({
      name,
      created: false,
      deleted: true,
      createRevision: latest.create_revision,
      prevRevision: latest.id,
      value: Buffer.alloc(0),
      oldValue: deletedValue,
    });
    return { revision, deletedValue };
  }

  /** Removes rows compaction to `target` made unneeded, a chunk of revisions per turn. */
  private async removeCompactedRows(target: number): Promise<void> {
    for (let from = this.log.firstRevision(); from > 0 && from < target; from += COMPACTION_CHUNK_REVISIONS) {
      if (this.closed) return;
      const to = Math.min(from + COMPACTION_CHUNK_REVISIONS, target);
      await this.run(() => this.log.compactChunk({ from, to, target }));
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  /** The revision a read at `requested` (0 or absent: current) sees, or why it cannot. */
  private readRevision(requested: number | undefined): number {
    if (!requested) return this.revision;
    if (requested > this.revision) throw new FutureRevisionError(requested, this.revision);
    if (requested < this.compacted) throw new CompactedError(requested, this.compacted);
    return requested;
  }

  private failed(latest: LogRow | undefined): WriteResult {
    return {
      succeeded: false,
      revision: this.revision,
      kv: latest && !latest.deleted ? keyValueOf(latest) : undefined,
    };
  }

  private append(row: NewLogRow): { revision: number } {
    const revision = this.log.append(row);
    if (revision !== this.revision + 1) {
      // Another process wrote the file: the in-memory revision and every watch are now wrong.
      throw new StoreUnavailableError(`SQLite store expected revision ${this.revision + 1}, got ${revision}`);
    }
    this.revision = revision;
    this.publish({
      id: revision,
      name: row.name,
      created: row.created ? 1 : 0,
      deleted: row.deleted ? 1 : 0,
      create_revision: row.createRevision,
      prev_revision: row.prevRevision,
      value: row.value,
      old_value: row.oldValue ?? null,
    });
    return { revision };
  }

  /**
   * Offers a committed write to every watcher. A watcher's callback may itself write; that
   * write is queued and offered after this one reached every watcher, so all watchers see
   * writes in revision order.
   */
  private publish(row: LogRow): void {
    this.unpublished.push(row);
    if (this.publishing) return;
    this.publishing = true;
    try {
      for (let next = this.unpublished.shift(); next; next = this.unpublished.shift()) {
        for (const watcher of [...this.watchers]) watcher.offer(next);
      }
    } finally {
      this.publishing = false;
    }
  }

  /** Runs a synchronous step as a store operation: closed-store and SQLite failures become errors of the contract. */
  private run<T>(step: () => T): Promise<T> {
    if (this.closed) return Promise.reject(closedError());
    try {
      return Promise.resolve(step());
    } catch (error) {
      if (
        error instanceof CompactedError ||
        error instanceof FutureRevisionError ||
        error instanceof StoreUnavailableError
      ) {
        return Promise.reject(error);
      }
      return Promise.reject(new StoreUnavailableError(`SQLite store failed: ${messageOf(error)}`, { cause: error }));
    }
  }
}

function closedError(): StoreUnavailableError {
  return new StoreUnavailableError('SQLite store is closed');
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
