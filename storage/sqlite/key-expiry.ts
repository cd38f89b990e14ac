/**
 * The SQLite store's expiry table: when each key written with a TTL is due for deletion (what
 * etcd keeps as the key's lease). Kept in the database so expiry survives a restart: keys
 * whose time passed while the server was down are deleted when it starts.
 *
 * Each expiry names the revision of the write that set it, and only that incarnation of the key
 * expires: an expiry left behind by a later write (the process died between the write and
 * clearing it) deletes nothing.
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite';

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS expiry (name BLOB PRIMARY KEY, expires_at INTEGER NOT NULL, revision INTEGER NOT NULL);
  CREATE INDEX IF NOT EXISTS expiry_expires_at ON expiry (expires_at);
`;

export interface DueKey {
  readonly name: Buffer;
  /** The revision of the write whose TTL this is. */
  readonly revision: number;
}

export class KeyExpiry {
  private readonly statements: {
    readonly set: StatementSync;
    readonly clear: StatementSync;
    readonly due: StatementSync;
    readonly next: StatementSync;
  };
  /** False while the table is known empty, so writes without a TTL skip clearing. */
  private inUse: boolean;

  constructor(db: DatabaseSync) {
    db.exec(SCHEMA);
    this.statements = {
      set: db.prepare(
        'INSERT INTO expiry (name, expires_at, revision) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET expires_at = excluded.expires_at, revision = excluded.revision',
      ),
      clear: db.prepare('DELETE FROM expiry WHERE name = ?'),
      due: db.prepare('SELECT name, revision FROM expiry WHERE expires_at <= ? ORDER BY expires_at LIMIT ?'),
      next: db.prepare('SELECT MIN(expires_at) AS at FROM expiry'),
    };
    this.inUse = this.nextAt() !== undefined;
  }

  /** The key, as written at `revision`, expires at `expiresAtMs` (Unix ms). */
  set(name: Buffer, expiresAtMs: number, revision: number): void {
    this.statements.set.run(name, expiresAtMs, revision);
    this.inUse = true;
  }

  clear(name: Buffer | Uint8Array): void {
    if (this.inUse) this.statements.clear.run(name);
  }

  /** Up to `limit` keys due at `nowMs`, soonest first. */
  due(nowMs: number, limit: number): DueKey[] {
    const rows = this.statements.due.all(nowMs, limit) as unknown as { name: Uint8Array; revision: number }[];
    return rows.map((row) => ({ name: Buffer.from(row.name), revision: row.revision }));
  }

  /** When the next key is due (Unix ms), or undefined when none has an expiry. */
  nextAt(): number | undefined {
    const row = this.statements.next.get() as { at: number | null };
    if (row.at === null) this.inUse = false;
    return row.at ?? undefined;
  }
}
