/**
 * The object layer's contract: what request handlers use to read and write the objects of one
 * resource type. Two implementations share it: `ResourceStore` (storage/objects/resource-store.ts),
 * straight over a `RevisionedStore`, and the watch cache (storage/cache/), which serves reads
 * and watches from memory and passes writes through.
 *
 * Objects are plain JSON values of the resource's storage version. Objects returned by any
 * method are shared (the cache hands the same object to many readers): callers must not mutate
 * them; copy first (`structuredClone`). `metadata.resourceVersion` of every returned object is
 * the decimal mod revision of its key; it is never part of the stored bytes.
 *
 * Failures are `ObjectError`s (storage/errors.ts) carrying the reference server's messages.
 */
import type { KubeObject } from '../../api/objects';

/** Where an object lives: cluster-scoped objects have no namespace. */
export interface ObjectKey {
  readonly namespace?: string;
  readonly name: string;
}

/** Which objects a list or watch covers: one namespace, or (absent) every namespace. */
export interface Scope {
  readonly namespace?: string;
}

/** A label/field selector compiled by the server; storage only asks it. */
export interface Predicate {
  /** True when the predicate selects every object (no selector): pages then report remainingItemCount. */
  readonly everything: boolean;
  matches(object: KubeObject): boolean;
  /** When the selector pins `metadata.name`, watch dispatch can index on it. */
  readonly name?: string;
}

export const EVERYTHING: Predicate = { everything: true, matches: () => true };

export type ResourceVersionMatch = 'Exact' | 'NotOlderThan';

export interface GetOptions {
  /** "" or absent: most recent (consistent); "0": any; other: not older than. */
  readonly resourceVersion?: string;
}

export interface ListOptions {
  readonly resourceVersion?: string;
  readonly resourceVersionMatch?: ResourceVersionMatch;
  readonly limit?: number;
  readonly continue?: string;
  readonly predicate: Predicate;
}

export interface ListResult {
  readonly items: KubeObject[];
  /** The revision the list was read at. */
  readonly resourceVersion: string;
  /** Token for the next page, absent on the last one. */
  readonly continue?: string;
  /** Items after this page; only with `predicate.everything` and when `continue` is set. */
  readonly remainingItemCount?: number;
}

export interface Preconditions {
  readonly uid?: string;
  readonly resourceVersion?: string;
}

/**
 * Computes the new object from the current one. Receives a private deep copy it may mutate
 * (undefined when the object does not exist and `allowCreate` was given). Returning an object
 * whose encoding equals the stored bytes writes nothing (no new revision, no event). Throwing
 * aborts the update with that error. Called again with fresh state when a concurrent write wins.
 */
export type UpdateFunction = (current: KubeObject | undefined) => KubeObject | Promise<KubeObject>;

/**
 * What every write may carry: the deadline (epoch ms) of the request that asked for it. Past it,
 * the write is not sent and fails with DeadlineExceededError, as the reference's storage calls
 * fail on the request's expired context: a client answered 504 is not then written for.
 */
export interface WriteDeadline {
  readonly deadline?: number;
}

export interface CreateOptions extends WriteDeadline {
  /** Check the name is free and return what would have been stored. */
  readonly dryRun?: boolean;
}

export interface UpdateOptions extends WriteDeadline {
  readonly preconditions?: Preconditions;
  /** Call `update(undefined)` and create when the object is absent (PUT that creates). */
  readonly allowCreate?: boolean;
  /** Run everything but the write; return what would have been stored. */
  readonly dryRun?: boolean;
}

export interface UpdateResult {
  readonly object: KubeObject;
  /** True when the object did not exist and was created. */
  readonly created: boolean;
}

export interface DeleteOptions extends WriteDeadline {
  readonly preconditions?: Preconditions;
  readonly dryRun?: boolean;
  /**
   * Last check before the key is removed, on the current object (a copy); throwing aborts.
   * Re-run when a concurrent write forces a retry.
   */
  readonly validate?: (current: KubeObject) => void | Promise<void>;
  /**
   * Remove the key without reading what it holds: for an object whose stored bytes do not
   * decode. Preconditions, `validate` and `dryRun` are not consulted; the returned object
   * carries only the key's name, namespace and the deletion's resourceVersion.
   */
  readonly ignoreStoreReadError?: boolean;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export type ObjectWatchEvent =
  | {
      readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
      readonly object: KubeObject;
      /** MODIFIED: the state before the change, where the source has it (the watch cache does). */
      readonly previous?: KubeObject;
    }
  /** `object` carries only metadata.resourceVersion (and annotations for initial-events-end). */
  | { readonly type: 'BOOKMARK'; readonly object: KubeObject }
  /** In-band failure (e.g. Expired); the stream ends after it. */
  | { readonly type: 'ERROR'; readonly error: Error };

export interface WatchOptions {
  /** Close the watch after this many seconds (the handler picks a random default when absent). */
  readonly timeoutSeconds?: number;
  /** "" / absent: consistent start with synthetic ADDED; "0": any state, synthetic ADDED; N: events after N. */
  readonly resourceVersion?: string;
  readonly predicate: Predicate;
  readonly allowWatchBookmarks?: boolean;
  /** Synthetic ADDED for current state, then (with bookmarks) the initial-events-end BOOKMARK. */
  readonly sendInitialEvents?: boolean;
}

/**
 * A running watch. Events are read by async iteration, at the reader's pace; a reader that
 * falls too far behind is dropped (the iteration just ends). `stop()` ends it from either side.
 */
export interface ObjectWatch extends AsyncIterable<ObjectWatchEvent> {
  stop(): void;
  /**
   * Settles once the watch has ended, whoever ended it (the reader, its timeout, or the source
   * closing it for being too slow): a reader busy waiting on its client learns of it here.
   */
  readonly done: Promise<void>;
}

export interface ObjectStorage {
  get(key: ObjectKey, options?: GetOptions): Promise<KubeObject>;
  list(scope: Scope, options: ListOptions): Promise<ListResult>;
  /** 409 AlreadyExists when the key exists; `metadata.resourceVersion` must be unset unless it is a dry run. */
  create(key: ObjectKey, object: KubeObject, options?: CreateOptions): Promise<KubeObject>;
  /** Read-modify-write with retry on lost races ("guaranteed update"). */
  update(key: ObjectKey, update: UpdateFunction, options?: UpdateOptions): Promise<UpdateResult>;
  /** Removes the key; returns the last state with resourceVersion = the deletion's revision. */
  delete(key: ObjectKey, options?: DeleteOptions): Promise<KubeObject>;
  watch(scope: Scope, options: WatchOptions): Promise<ObjectWatch>;
}
