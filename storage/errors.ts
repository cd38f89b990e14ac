/**
 * Errors of the storage layer. They name what went wrong in storage terms; the server turns
 * them into `Status` responses at its boundary (server/status), where the resource's name is
 * known.
 */

/** A read or watch asked for a revision that compaction removed. */
export class CompactedError extends Error {
  constructor(
    readonly requestedRevision: number,
    readonly compactedRevision: number,
  ) {
    super(`required revision ${requestedRevision} has been compacted (compacted at ${compactedRevision})`);
    this.name = 'CompactedError';
  }
}

/** A read asked for a revision the store has not reached yet. */
export class FutureRevisionError extends Error {
  constructor(
    readonly requestedRevision: number,
    readonly currentRevision: number,
  ) {
    super(`required revision ${requestedRevision} is a future revision (current ${currentRevision})`);
    this.name = 'FutureRevisionError';
  }
}

/** The backend could not be reached or failed; the request may be retried. */
export class StoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}

/**
 * A write not sent because the request that asked for it is past its deadline (WriteDeadline):
 * Go's context error, whose words the reference's logs and timeout answers carry.
 */
export class DeadlineExceededError extends Error {
  constructor() {
    super('context deadline exceeded');
    this.name = 'DeadlineExceededError';
  }
}

/** Throws DeadlineExceededError once `deadline` (epoch ms) has passed; no deadline never expires. */
export function checkDeadline(deadline: number | undefined): void {
  if (deadline !== undefined && Date.now() >= deadline) throw new DeadlineExceededError();
}

/**
 * The largest key and value one write may store. An etcd member refuses a request past its
 * `--max-request-bytes` (1.5 MiB by default: "request is too large"), and a write's transaction
 * carries the key three times and its framing: 8 KiB are kept for those. SQLite takes the same
 * bound, so that both backends accept and refuse the same objects.
 */
export const MAX_STORED_BYTES = 1.5 * 1024 * 1024 - 8 * 1024;

/** A write larger than MAX_STORED_BYTES. */
export class ValueTooLargeError extends Error {
  constructor(readonly bytes: number) {
    super('etcdserver: request is too large');
    this.name = 'ValueTooLargeError';
  }
}

/** The error for a write of this key and value, when they exceed the bound. */
export function tooLargeToStore(key: string, value: Buffer): ValueTooLargeError | undefined {
  const bytes = Buffer.byteLength(key) + value.length;
  return bytes > MAX_STORED_BYTES ? new ValueTooLargeError(bytes) : undefined;
}

export type ObjectErrorReason =
  | 'NotFound' // the object does not exist
  | 'AlreadyExists' // create of an existing key
  | 'Conflict' // a resourceVersion or uid precondition does not hold
  | 'Expired' // revision compacted, or no longer in the cache's window (410)
  | 'TooLargeResourceVersion' // not reached within the wait (504, Retry-After)
  | 'BadRequest' // invalid continue token or resourceVersion combination (400)
  | 'Invalid' // object cannot be stored as given (e.g. resourceVersion set on create)
  | 'InternalError' // stored bytes cannot be read (details.corrupt), and the like
  | 'StorageReadError'; // a list met objects it cannot read (details.corruptValues)

/**
 * A stored value that cannot be read: encryption at rest could not open it, or the opened bytes
 * do not decode. The facts only: how a client is told depends on the server's
 * AllowUnsafeMalformedObjectDeletion gate, which words (and lists) them differently.
 */
export interface CorruptValue {
  /** The store key, e.g. `/registry/secrets/default/a`. */
  readonly key: string;
  readonly failure: 'untransformable' | 'undecodable';
  /** The revision the reference names: the key's mod revision when decoding failed, 0 when the value did not open. */
  readonly revision: number;
  /** What the transformer or the decoder said. */
  readonly cause: string;
}

/** The reference's words for what failed (its corruptObjectError): `<failure> revision=<n>: <cause>`. */
export function corruptionText(value: CorruptValue): string {
  const failed =
    value.failure === 'untransformable' ? 'data from the storage is not transformable' : 'object not decodable';
  return `${failed} revision=${value.revision}: ${value.cause}`;
}

/**
 * The reference's storage error for a corrupt value (storage error code 7), naming it by `key`:
 * the store key in a list, the key below the etcd prefix for a single object.
 */
export function corruptObjectText(value: CorruptValue, key: string = value.key): string {
  return `StorageError: corrupt object, Code: 7, Key: ${key}, ResourceVersion: 0, AdditionalErrorMsg: ${corruptionText(value)}`;
}

/**
 * An object-layer failure. `message` is the reference server's full text for it (the object
 * layer knows its qualified resource, e.g. `deployments.apps`, and the name); the server only
 * maps `reason` to a `Status` code.
 */
export class ObjectError extends Error {
  constructor(
    readonly reason: ObjectErrorReason,
    message: string,
    readonly details: {
      readonly name?: string;
      /** Expired continue: a token that resumes at the newest revision (rv -1). */
      readonly continueToken?: string;
      /** TooLargeResourceVersion: seconds for the `Retry-After` header. */
      readonly retryAfterSeconds?: number;
      readonly currentRevision?: number;
      /** InternalError: the object's stored value cannot be read (a corrupt object). */
      readonly corrupt?: CorruptValue;
      /**
       * InternalError: where the corrupt value was met, which changes the reference's words: a
       * read, the read an update starts from, or the value a deletion removed (a watch's DELETED
       * event). Absent: a read.
       */
      readonly corruptIn?: 'read' | 'update' | 'deletion';
      /**
       * InternalError: the message is the reference's storage.InternalError reason, which the
       * client sees as `Internal error occurred: <message>` with the message alone as its cause.
       */
      readonly storageInternal?: boolean;
      /** StorageReadError: the list's unreadable objects in key order, at most 100. */
      readonly corruptValues?: readonly CorruptValue[];
      /** StorageReadError: more unreadable objects followed those in corruptValues. */
      readonly moreCorruptValues?: boolean;
    } = {},
  ) {
    super(message);
    this.name = 'ObjectError';
  }
}

/** True for the object layer's "not found": the answer that means "absent" to a caller that reads to decide. */
export function isNotFoundError(error: unknown): error is ObjectError {
  return error instanceof ObjectError && error.reason === 'NotFound';
}

/** What `read` gives, or `undefined` when what it reads (or deletes) is not there; other errors as they are. */
export async function unlessNotFound<T>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read;
  } catch (error) {
    if (isNotFoundError(error)) return undefined;
    throw error;
  }
}
