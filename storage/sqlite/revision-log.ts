/**
 * The SQLite table behind the SQLite store: an append-only log where every row is one write and
 * its id is the write's revision (the layout kine uses to emulate etcd on SQL).
 *
 * A row holds the key's new value and, in `old_value`, the value it replaced, so an event and
 * its previous value can be rebuilt from one row even after compaction removed older rows. The
 * unique index on (name, prev_revision) makes two writes based on the same previous revision
 * collide: compare-and-swap in the schema, even though only this process writes.
 *
 * Names are BLOBs so SQLite compares them with memcmp: UTF-8 byte order, as etcd orders keys.
 */
import { DatabaseSync, StatementSync } from 'node:sqlite';

export interface LogRow {
  readonly id: number;
  readonly name: Uint8Array;
  /** 1 when this row created the key (no previous value). */
  readonly created: number;
  /** 1 when this row is a deletion (tombstone). */
  readonly deleted: number;
  readonly create_revision: number;
  /** Revision of the row this one supersedes (0 for the first row of a key). */
  readonly prev_revision: number;
  readonly value: Uint8Array;
  readonly old_value: Uint8Array | null;
}

/** What a range reads of a live row: the columns of its key-value. */
export type LiveRow = Pick<LogRow, 'id' | 'name' | 'create_revision' | 'value'>;

export interface NewLogRow {
  readonly name: Buffer;
  readonly created: boolean;
  readonly deleted: boolean;
  readonly createRevision: number;
  readonly prevRevision: number;
  readonly value: Buffer;
  readonly oldValue: Buffer | undefined;
}

/** A half-open byte range [start, end) of names. */
export interface NameRange {
  readonly start: Buffer;
  readonly end: Buffer;
}

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS log (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name BLOB NOT NULL,
    created INTEGER NOT NULL,
    deleted INTEGER NOT NULL,
    create_revision INTEGER NOT NULL,
    prev_revision INTEGER NOT NULL,
    value BLOB NOT NULL,
    old_value BLOB
  );
  CREATE UNIQUE INDEX IF NOT EXISTS log_name_prev_revision ON log (name, prev_revision);
  CREATE INDEX IF NOT EXISTS log_name_id_deleted ON log (name, id, deleted);
  DROP INDEX IF EXISTS log_name_id;
  CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
`;

/*
 * The live rows of a range as of a revision: per name the row with the highest id at or below
 * it, unless that is a tombstone. With one MAX() aggregate SQLite takes the other columns from
 * the row holding the maximum, and groups in index order (name, id), so a page reads only the
 * names it returns (and their history) and stops at its limit, instead of grouping the whole
 * range first. Counting reads the index alone (it holds `deleted`). Only the columns of a
 * key-value are read: each blob is copied out, and a start reads every row this way (leaving
 * out `old_value` and the rest made a list of 90,000 rows take 0.6 times as long).
 */
const LIVE_IN_RANGE = `
  SELECT id, name, deleted, create_revision, value, MAX(id) AS newest
  FROM log WHERE name >= :start AND name < :end AND id <= :revision
  GROUP BY name HAVING deleted = 0 ORDER BY name LIMIT :limit`;

const COUNT_LIVE_IN_RANGE = `
  SELECT COUNT(*) AS count FROM (
    SELECT deleted, MAX(id) FROM log WHERE name >= :start AND name < :end AND id <= :revision GROUP BY name
  ) WHERE deleted = 0`;

const COMPACTED_REVISION_KEY = 'compacted_revision';

export class RevisionLog {
  private readonly statements: {
    readonly latestOf: StatementSync;
    readonly rangeAt: StatementSync;
    readonly countAt: StatementSync;
    readonly rowsSince: StatementSync;
    readonly insert: StatementSync;
    readonly lastRevision: StatementSync;
    readonly firstRevision: StatementSync;
    readonly readMeta: StatementSync;
    readonly writeMeta: StatementSync;
    readonly compactChunk: StatementSync;
  };

  constructor(db: DatabaseSync) {
    db.exec(SCHEMA);
    this.statements = {
      latestOf: db.prepare('SELECT * FROM log WHERE name = ? AND id <= ? ORDER BY id DESC LIMIT 1'),
      rangeAt: db.prepare(LIVE_IN_RANGE),
      countAt: db.prepare(COUNT_LIVE_IN_RANGE),
      rowsSince: db.prepare(
        'SELECT * FROM log WHERE id >= :from AND id <= :to AND name >= :start AND name < :end ORDER BY id LIMIT :limit',
      ),
      insert: db.prepare(
        `INSERT INTO log (name, created, deleted, create_revision, prev_revision, value, old_value)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      ),
      // AUTOINCREMENT's counter survives the deletion of rows, unlike MAX(id).
      lastRevision: db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'log'"),
      firstRevision: db.prepare('SELECT MIN(id) AS id FROM log'),
      readMeta: db.prepare('SELECT value FROM meta WHERE key = ?'),
      writeMeta: db.prepare(
        'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
      ),
      // Rows below the target that a later row at or below it supersedes, and tombstones below
      // it: neither is needed to read at or after the target, nor to replay events from it.
      // Chunks go up by id, so a key's older row always goes before its tombstone.
      compactChunk: db.prepare(
        `DELETE FROM log WHERE id >= :from AND id < :to AND (
           deleted = 1 OR EXISTS (SELECT 1 FROM log AS newer WHERE newer.name = log.name AND newer.id > log.id AND newer.id <= :target)
         )`,
      ),
    };
  }

  lastRevision(): number {
    const row = this.statements.lastRevision.get() as { seq: number } | undefined;
    return row?.seq ?? 0;
  }

  /** The oldest revision still in the log (0 when it is empty). */
  firstRevision(): number {
    const row = this.statements.firstRevision.get() as { id: number | null };
    return row.id ?? 0;
  }

  /** The newest row of `name` at or below `revision`, tombstone included. */
  latestOf(name: Buffer, revision: number): LogRow | undefined {
    return this.statements.latestOf.get(name, revision) as LogRow | undefined;
  }

  /** Live rows of the range as of `revision`, in name order; limit 0 means all. */
  liveRowsAt(range: NameRange, revision: number, limit: number): LiveRow[] {
    return this.statements.rangeAt.all({
      start: range.start,
      end: range.end,
      revision,
      limit: limit > 0 ? limit : -1,
    }) as unknown as LiveRow[];
  }

  countLiveAt(range: NameRange, revision: number): number {
    const row = this.statements.countAt.get({ start: range.start, end: range.end, revision }) as { count: number };
    return row.count;
  }

  /** Rows (writes) with revision in [from, to] and name in the range, in revision order. */
  rowsBetween(options: { from: number; to: number; range: NameRange; limit: number }): LogRow[] {
    return this.statements.rowsSince.all({
      from: options.from,
      to: options.to,
      start: options.range.start,
      end: options.range.end,
      limit: options.limit,
    }) as unknown as LogRow[];
  }

  /** Appends a write; returns its revision. */
  append(row: NewLogRow): number {
    const { lastInsertRowid } = this.statements.insert.run(
      row.name,
      row.created ? 1 : 0,
      row.deleted ? 1 : 0,
      row.createRevision,
      row.prevRevision,
      row.value,
      row.oldValue ?? null,
    );
    return Number(lastInsertRowid);
  }

  compactedRevision(): number {
    const row = this.statements.readMeta.get(COMPACTED_REVISION_KEY) as { value: number } | undefined;
    return row?.value ?? 0;
  }

  setCompactedRevision(revision: number): void {
    this.statements.writeMeta.run(COMPACTED_REVISION_KEY, revision);
  }

  /** Deletes what compaction to `target` makes unneeded among ids in [from, to). */
  compactChunk(options: { from: number; to: number; target: number }): void {
    this.statements.compactChunk.run(options);
  }
}
