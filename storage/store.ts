/**
 * The revisioned key-value store every backend implements (etcd for replicas, SQLite for one).
 *
 * It is etcd's data model reduced to what an API server needs: one global revision counter that
 * every write advances by one, keys that remember the revision that created them and the one
 * that last modified them, reads at a past revision until it is compacted, and a watch that
 * replays history from a revision before it follows live writes.
 *
 * Contract shared by every backend (checked by test/storage/backend-conformance.test.ts):
 * - Keys are compared byte-wise (UTF-8); ranges return keys in that order.
 * - A write that succeeds advances the store revision by exactly one; a failed compare writes
 *   nothing and does not advance it.
 * - `WriteResult.revision` is the revision of the write when it succeeded, else the store's
 *   current revision.
 * - Reading at a revision below the compacted one throws `CompactedError`; above the current
 *   one throws `FutureRevisionError`.
 * - Conflict retry is the caller's job: update/delete never retry; on a failed compare they
 *   return `succeeded: false` with the key's current value so the caller can retry from it.
 */

export interface KeyValue {
  readonly key: string;
  readonly value: Buffer;
  /** Revision of the write that created this incarnation of the key. */
  readonly createRevision: number;
  /** Revision of the write that last changed it (for a deletion event: the deletion's revision). */
  readonly modRevision: number;
  /**
   * Set by encryption at rest (storage/transform): the value was read with a key or provider
   * other than the one writes use now, so an update rewrites it even when nothing changed.
   */
  readonly stale?: boolean;
  /** Set by encryption at rest: the stored value did not decrypt; `value` holds it as stored. */
  readonly transformError?: Error;
}

export interface RangeRequest {
  /** Every key starting with this string. Use a trailing "/" so "/a" does not match "/ab". */
  readonly prefix: string;
  /** First key to return (inclusive); must start with `prefix`. Default: `prefix`. */
  readonly startKey?: string;
  /** Read the state as of this revision (0 or absent: current). */
  readonly revision?: number;
  /** At most this many keys (0 or absent: no limit). */
  readonly limit?: number;
}

export interface RangeResult {
  /** The revision the range was read at (the store's current revision when none was asked). */
  readonly revision: number;
  readonly kvs: KeyValue[];
  /** How many keys of the range come after the last returned one. */
  readonly remaining: number;
}

export interface GetResult {
  readonly revision: number;
  readonly kv: KeyValue | undefined;
}

export interface WriteResult {
  readonly succeeded: boolean;
  readonly revision: number;
  /**
   * Succeeded create/update: the written key-value. Succeeded delete: the value that was
   * deleted, with `modRevision` set to the deletion's revision. Failed: the key's current
   * key-value, or undefined when it does not exist.
   */
  readonly kv: KeyValue | undefined;
}

export interface StoreEvent {
  readonly type: 'put' | 'delete';
  /** For a delete: the key with an empty value and `modRevision` = the deletion's revision. */
  readonly kv: KeyValue;
  /** The value before this event (absent for a create). */
  readonly prevKv?: KeyValue;
}

export interface WatchRequest {
  /** Keys starting with this string; "" watches every key of the store. */
  readonly prefix: string;
  /** Deliver every event with modRevision >= this, in revision order, then live ones. */
  readonly fromRevision: number;
  /** Events in revision order; each call holds events of one or more whole revisions. */
  readonly onEvents: (events: StoreEvent[]) => void;
  /**
   * All events up to and including `revision` have been delivered. Backends call it when they
   * know (SQLite after each local write, etcd on progress notifications); callers must not rely
   * on a particular frequency.
   */
  readonly onProgress?: (revision: number) => void;
  /** The watch failed and is closed: `CompactedError` when `fromRevision` is compacted. */
  readonly onError: (error: Error) => void;
}

export interface WriteOptions {
  /**
   * The key is deleted this many seconds after the write (or a little later), unless written
   * again first; the deletion is a write like any other, with its revision and delete event.
   * Every write sets the key's expiry anew: one without a TTL makes the key permanent. etcd
   * does it with leases, SQLite with an expiry table it sweeps.
   */
  readonly ttlSeconds?: number;
}

export interface StoreWatch {
  close(): void;
}

export interface RevisionedStore {
  currentRevision(): Promise<number>;
  get(key: string, options?: { revision?: number }): Promise<GetResult>;
  range(request: RangeRequest): Promise<RangeResult>;
  /** Writes only when the key does not exist. */
  create(key: string, value: Buffer, options?: WriteOptions): Promise<WriteResult>;
  /** Writes only when the key exists with this mod revision. */
  update(key: string, value: Buffer, expectedModRevision: number, options?: WriteOptions): Promise<WriteResult>;
  /** Deletes only when the key exists with this mod revision. */
  delete(key: string, expectedModRevision: number): Promise<WriteResult>;
  watch(request: WatchRequest): StoreWatch;
  /** Forget history before `revision`; reads and watches from below it then fail. */
  compact(revision: number): Promise<void>;
  /** The revision history was compacted to (0 when never). */
  compactedRevision(): Promise<number>;
  close(): Promise<void>;
}
