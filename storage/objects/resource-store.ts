/**
 * The object layer straight over a revisioned store: objects of one resource type, in the bytes
 * of its codec, under `<keyPrefix>/[<namespace>/]<name>`, their resourceVersion being the key's
 * mod revision.
 *
 * Writes follow the reference server's storage contract (storage notes, "Writes"): create only
 * when absent; update and delete compare the mod revision they read and, when a concurrent
 * write wins, re-read and try again, so no caller ever sees a lost update. Reads translate the
 * store's revision errors into the reference's 410/504 answers.
 */
import { checkDeadline, CompactedError, FutureRevisionError, ObjectError, type CorruptValue } from '../errors';
import type { KeyValue, RangeResult, RevisionedStore, WriteOptions } from '../store';
import { corruptObjectMetIn, decodeObject, encodeObject, isCorruptObjectError, type ValueCodec } from './codec';
import { encodeContinueToken, LATEST_REVISION } from './continue-token';
import { objectKey, qualifiedResourceName, scopePrefix, type ResourceKeySpace } from './keys';
import { interpretListOptions, ListRead } from './list-request';
import { parseResourceVersion, tooLargeResourceVersion } from './resource-version';
import { startStoreWatch } from './store-watch';
import type {
  CreateOptions,
  DeleteOptions,
  GetOptions,
  ListOptions,
  ListResult,
  ObjectKey,
  ObjectStorage,
  ObjectWatch,
  Preconditions,
  Scope,
  UpdateFunction,
  UpdateOptions,
  UpdateResult,
  WatchOptions,
} from './types';
import type { WriteDecodes } from './write-decodes';

import { goQuote } from '../../api/go-quote';
import type { KubeObject } from '../../api/objects';
export interface ResourceStoreOptions {
  readonly store: RevisionedStore;
  /** Where this resource's keys start, without a trailing "/": e.g. `/registry/deployments.apps`. */
  readonly keyPrefix: string;
  /** Names the resource in messages: `pods`, `deployments.apps`. */
  readonly qualifiedResource: { readonly group: string; readonly resource: string };
  readonly namespaced: boolean;
  /** How values are encoded and decoded; absent: plain JSON. */
  readonly codec?: ValueCodec;
  /**
   * Objects of this resource are deleted this many seconds after their last write (Events:
   * `--event-ttl`, as the reference's event registry asks of its store). Absent: kept.
   */
  readonly ttlSeconds?: number;
  /** Shares each write's decoded answer with the watch cache's event of it (write-decodes.ts). */
  readonly writeDecodes?: WriteDecodes;
}

/** The reference store never asks etcd for more keys than this in one range while paging with a selector. */
const MAX_RANGE_LIMIT = 10_000;

export const LIST_EXPIRED_MESSAGE = 'The resourceVersion for the provided list is too old.';
export const CONTINUE_EXPIRED_MESSAGE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list ' +
  'without the continue parameter, or use the continue token in this response to retrieve the remainder of ' +
  'the results. Continuing with the provided token results in an inconsistent list - objects that were ' +
  'created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';
export const OPTIMISTIC_LOCK_MESSAGE =
  'the object has been modified; please apply your changes to the latest version and try again';
/** The reference's storage error code for an object that fails a precondition ("invalid object"). */
const INVALID_OBJECT_CODE = 4;

export class ResourceStore implements ObjectStorage {
  private readonly store: RevisionedStore;
  private readonly resourceName: string;
  private readonly namespaced: boolean;
  private readonly keySpace: ResourceKeySpace;
  private readonly codec: ValueCodec | undefined;
  private readonly writeOptions: WriteOptions | undefined;
  private readonly writeDecodes: WriteDecodes | undefined;

  constructor(options: ResourceStoreOptions) {
    this.store = options.store;
    this.codec = options.codec;
    this.resourceName = qualifiedResourceName(options.qualifiedResource);
    this.namespaced = options.namespaced;
    this.keySpace = { keyPrefix: options.keyPrefix, namespaced: options.namespaced };
    this.writeOptions = options.ttlSeconds ? { ttlSeconds: options.ttlSeconds } : undefined;
    this.writeDecodes = options.writeDecodes;
  }

  async get(key: ObjectKey, options: GetOptions = {}): Promise<KubeObject> {
    const storeKey = objectKey(this.keySpace, key);
    const minimumRevision = parseResourceVersion(options.resourceVersion);
    const result = await this.store.get(storeKey);
    if (result.revision < minimumRevision) {
      throw tooLargeResourceVersion({ requested: minimumRevision, current: result.revision });
    }
    if (result.kv === undefined) throw this.notFound(key.name);
    return decodeObject(result.kv, this.codec);
  }

  async create(key: ObjectKey, object: KubeObject, options: CreateOptions = {}): Promise<KubeObject> {
    const storeKey = objectKey(this.keySpace, key);
    const value = encodeObject(object, this.codec);
    // A dry run only looks for the key, as the reference's dry-run storage does, and answers
    // the object as it would be stored and read back (the reference copies it through its
    // codec), with the resourceVersion it was given, since nothing is written.
    if (options.dryRun) {
      const existing = await this.store.get(storeKey);
      if (existing.kv !== undefined) throw this.alreadyExists(key.name);
      return this.readBack(storeKey, value, object.metadata.resourceVersion);
    }
    if (object.metadata.resourceVersion !== undefined && object.metadata.resourceVersion !== '') {
      throw new ObjectError('Invalid', 'resourceVersion should not be set on objects to be created', {
        name: key.name,
      });
    }
    checkDeadline(options.deadline);
    return this.whileWriting(storeKey, async () => {
      const result = await this.store.create(storeKey, value, this.writeOptions);
      if (!result.succeeded || result.kv === undefined) throw this.alreadyExists(key.name);
      return this.decodeWritten(result.kv);
    });
  }

  update(key: ObjectKey, update: UpdateFunction, options: UpdateOptions = {}): Promise<UpdateResult> {
    const storeKey = objectKey(this.keySpace, key);
    return this.whileWriting(storeKey, () => this.updateStored(storeKey, key, update, options));
  }

  private async updateStored(
    storeKey: string,
    key: ObjectKey,
    update: UpdateFunction,
    options: UpdateOptions,
  ): Promise<UpdateResult> {
    let current = (await this.store.get(storeKey)).kv;
    // Each turn either returns or learns the newer state that beat it; a retry never reuses stale state.
    for (;;) {
      if (current === undefined && !options.allowCreate) throw this.notFound(key.name);
      const currentObject = current === undefined ? undefined : this.decodeForUpdate(current);
      this.checkUpdatePreconditions({
        storeKey,
        name: key.name,
        current: currentObject,
        preconditions: options.preconditions,
      });

      // The update function may change what it gets: it gets the object just decoded, which
      // nothing else holds, and the rare no-op answer decodes the stored bytes again.
      const updated = await update(currentObject);
      const value = encodeObject(updated, this.codec);
      if (current !== undefined && !current.stale && value.equals(current.value)) {
        // Nothing changed: no write, no new revision, no event. A stale value (encrypted with
        // a key being rotated away from) is rewritten all the same, which is how rotation works.
        return { object: decodeObject(current, this.codec), created: false };
      }
      if (options.dryRun) {
        // What would be stored, at the version it replaces (none for a creation).
        if (current !== undefined) return { object: decodeObject({ ...current, value }, this.codec), created: false };
        return { object: this.readBack(storeKey, value, undefined), created: true };
      }

      checkDeadline(options.deadline);
      const result =
        current === undefined
          ? await this.store.create(storeKey, value, this.writeOptions)
          : await this.store.update(storeKey, value, current.modRevision, this.writeOptions);
      if (result.succeeded && result.kv !== undefined) {
        return { object: this.decodeWritten(result.kv), created: current === undefined };
      }
      current = result.kv;
    }
  }

  async delete(key: ObjectKey, options: DeleteOptions = {}): Promise<KubeObject> {
    if (options.ignoreStoreReadError) return this.deleteUnread(key, options.deadline);
    const storeKey = objectKey(this.keySpace, key);
    let current = (await this.store.get(storeKey)).kv;
    for (;;) {
      if (current === undefined) throw this.notFound(key.name);
      const currentObject = decodeObject(current, this.codec);
      this.checkDeletePreconditions({
        storeKey,
        name: key.name,
        current: currentObject,
        preconditions: options.preconditions,
      });
      await options.validate?.(structuredClone(currentObject));
      if (options.dryRun) return currentObject;

      checkDeadline(options.deadline);
      const result = await this.store.delete(storeKey, current.modRevision);
      if (result.succeeded && result.kv !== undefined) return decodeObject(result.kv, this.codec);
      current = result.kv;
    }
  }

  /** `write` of `storeKey`, known to the watch cache's event side while it runs (write-decodes.ts). */
  private whileWriting<T>(storeKey: string, write: () => Promise<T>): Promise<T> {
    return this.writeDecodes === undefined ? write() : this.writeDecodes.writing(storeKey, write);
  }

  /** The object a write stored, decoded once for the write's answer and the cache's event of it. */
  private decodeWritten(kv: KeyValue): KubeObject {
    if (this.writeDecodes === undefined) return decodeObject(kv, this.codec);
    return this.writeDecodes.forWrite(kv, () => decodeObject(kv, this.codec));
  }

  /** `value` as a read would decode it, stamped with `resourceVersion` (none when empty, which Go omits). */
  private readBack(storeKey: string, value: Buffer, resourceVersion: string | undefined): KubeObject {
    const object = decodeObject({ key: storeKey, value, modRevision: 0 }, this.codec);
    if (!resourceVersion) delete object.metadata.resourceVersion;
    else object.metadata.resourceVersion = resourceVersion;
    return object;
  }

  /** The object an update starts from; a corrupt value is marked so (the reference words it apart). */
  private decodeForUpdate(current: KeyValue): KubeObject {
    try {
      return decodeObject(current, this.codec);
    } catch (error) {
      if (!isCorruptObjectError(error)) throw error;
      throw corruptObjectMetIn(error, 'update');
    }
  }

  /** Removes whatever the key holds, at the mod revision it was read at, never decoding it. */
  private async deleteUnread(key: ObjectKey, deadline: number | undefined): Promise<KubeObject> {
    const storeKey = objectKey(this.keySpace, key);
    let current = (await this.store.get(storeKey)).kv;
    for (;;) {
      if (current === undefined) throw this.notFound(key.name);
      checkDeadline(deadline);
      const result = await this.store.delete(storeKey, current.modRevision);
      if (result.succeeded) {
        const metadata = {
          name: key.name,
          ...(this.namespaced ? { namespace: key.namespace } : {}),
          resourceVersion: String(result.revision),
        };
        return { metadata };
      }
      current = result.kv;
    }
  }

  async list(scope: Scope, options: ListOptions): Promise<ListResult> {
    const listPrefix = scopePrefix(this.keySpace, scope);
    const read = interpretListOptions(options, listPrefix);
    try {
      return await this.readList({ listPrefix, read, options });
    } catch (error) {
      throw this.listError({ error, read, listPrefix });
    }
  }

  watch(scope: Scope, options: WatchOptions): Promise<ObjectWatch> {
    return startStoreWatch({
      store: this.store,
      prefix: scopePrefix(this.keySpace, scope),
      options,
      codec: this.codec,
    });
  }

  /**
   * Reads one page (or everything without a limit) at one revision. With a selector, it keeps
   * reading at that revision until the page is full, doubling the range each time, and the
   * token then points just past the last key it examined, matched or not.
   */
  private async readList(request: { listPrefix: string; read: ListRead; options: ListOptions }): Promise<ListResult> {
    const { listPrefix, read, options } = request;
    const { predicate } = options;
    const pageSize = options.limit !== undefined && options.limit > 0 ? options.limit : 0;
    const paging = pageSize > 0;
    // 0 until the first range pins the revision every later range (and page) is read at.
    let revision = pinnedRevisionOf(read);
    let startKey = read.kind === 'continue' ? read.startKey : listPrefix;
    let rangeLimit = pageSize;
    const items: KubeObject[] = [];
    let lastKey: string | undefined;
    let hasMore = false;
    let lastRange: RangeResult;
    const unreadable = new UnreadableObjects(this.resourceName, this.codec);

    for (;;) {
      lastRange = await this.store.range({ prefix: listPrefix, startKey, revision, limit: rangeLimit });
      if (revision === 0) {
        revision = lastRange.revision;
        if (read.kind === 'notOlderThan' && revision < read.revision) {
          throw tooLargeResourceVersion({ requested: read.revision, current: revision });
        }
      }
      hasMore = lastRange.remaining > 0;
      for (const kv of lastRange.kvs) {
        if (paging && items.length >= pageSize) {
          hasMore = true;
          break;
        }
        lastKey = kv.key;
        const object = unreadable.decode(kv);
        if (object !== undefined && predicate.matches(object)) items.push(object);
      }
      if (!paging || !hasMore || items.length >= pageSize || lastKey === undefined) break;
      rangeLimit = Math.min(rangeLimit * 2, MAX_RANGE_LIMIT);
      startKey = `${lastKey}\u0000`;
    }

    unreadable.throwIfAny();
    const result: ListResult = { items, resourceVersion: String(revision) };
    if (!paging || !hasMore || lastKey === undefined) return result;
    return {
      ...result,
      continue: encodeContinueToken({ listPrefix, startKey: `${lastKey}\u0000`, revision }),
      // Without a selector every key is an item, so the store's count of keys left is exact.
      ...(predicate.everything ? { remainingItemCount: lastRange.remaining } : {}),
    };
  }

  private listError(failure: { error: unknown; read: ListRead; listPrefix: string }): unknown {
    const { error, read, listPrefix } = failure;
    if (error instanceof CompactedError) {
      if (read.kind !== 'continue') return new ObjectError('Expired', LIST_EXPIRED_MESSAGE);
      const continueToken = encodeContinueToken({ listPrefix, startKey: read.startKey, revision: LATEST_REVISION });
      return new ObjectError('Expired', CONTINUE_EXPIRED_MESSAGE, { continueToken });
    }
    if (error instanceof FutureRevisionError) {
      return tooLargeResourceVersion({
        requested: error.requestedRevision,
        current: error.currentRevision,
        retryAfterSeconds: 0,
      });
    }
    return error;
  }

  private checkUpdatePreconditions(check: PreconditionCheck): void {
    this.checkUidPrecondition(check);
    const expected = check.preconditions?.resourceVersion;
    if (expected !== undefined && expected !== check.current?.metadata.resourceVersion) {
      throw this.conflict(check.name, OPTIMISTIC_LOCK_MESSAGE);
    }
  }

  private checkDeletePreconditions(check: PreconditionCheck): void {
    this.checkUidPrecondition(check);
    const expected = check.preconditions?.resourceVersion;
    const actual = check.current?.metadata.resourceVersion ?? '';
    if (expected !== undefined && expected !== actual) {
      throw this.invalidObject(
        check,
        `Precondition failed: ResourceVersion in precondition: ${expected}, ResourceVersion in object meta: ${actual}`,
      );
    }
  }

  private checkUidPrecondition(check: PreconditionCheck): void {
    const expected = check.preconditions?.uid;
    const actual = check.current?.metadata.uid ?? '';
    if (expected !== undefined && expected !== actual) {
      throw this.invalidObject(
        check,
        `Precondition failed: UID in precondition: ${expected}, UID in object meta: ${actual}`,
      );
    }
  }

  /** A failed precondition, worded as the reference's storage error wrapped in a 409. */
  private invalidObject(check: PreconditionCheck, detail: string): ObjectError {
    return this.conflict(
      check.name,
      `StorageError: invalid object, Code: ${INVALID_OBJECT_CODE}, Key: ${check.storeKey}, ResourceVersion: 0, ` +
        `AdditionalErrorMsg: ${detail}`,
    );
  }

  private conflict(name: string, cause: string): ObjectError {
    return new ObjectError(
      'Conflict',
      `Operation cannot be fulfilled on ${this.resourceName} ${goQuote(name)}: ${cause}`,
      {
        name,
      },
    );
  }

  private notFound(name: string): ObjectError {
    return new ObjectError('NotFound', `${this.resourceName} ${goQuote(name)} not found`, { name });
  }

  private alreadyExists(name: string): ObjectError {
    return new ObjectError('AlreadyExists', `${this.resourceName} ${goQuote(name)} already exists`, { name });
  }
}

/** The reference reports at most this many unreadable objects of one list, then says that more followed. */
const MAX_UNREADABLE_REPORTED = 100;

/**
 * Objects of one list whose stored values cannot be read: the list reads on past them and then
 * fails with one StorageReadError holding them in key order, from which the server tells the
 * client of the first (as the reference does by default) or of all of them (with
 * AllowUnsafeMalformedObjectDeletion, so that an operator learns every corrupt object at once).
 */
class UnreadableObjects {
  private readonly values: CorruptValue[] = [];
  private more = false;

  constructor(
    private readonly resourceName: string,
    private readonly codec: ValueCodec | undefined,
  ) {}

  /** The object, or undefined when its stored value is corrupt (remembered for throwIfAny). */
  decode(kv: Parameters<typeof decodeObject>[0]): KubeObject | undefined {
    try {
      return decodeObject(kv, this.codec);
    } catch (error) {
      if (!isCorruptObjectError(error)) throw error;
      if (this.values.length < MAX_UNREADABLE_REPORTED) this.values.push(error.details.corrupt);
      else this.more = true;
      return undefined;
    }
  }

  throwIfAny(): void {
    if (this.values.length === 0) return;
    throw new ObjectError('StorageReadError', `failed to read one or more ${this.resourceName} from the storage`, {
      name: 'list',
      corruptValues: this.values,
      ...(this.more ? { moreCorruptValues: true } : {}),
    });
  }
}

function pinnedRevisionOf(read: ListRead): number {
  if (read.kind === 'exact') return read.revision;
  if (read.kind === 'continue' && read.revision !== LATEST_REVISION) return read.revision;
  return 0;
}

interface PreconditionCheck {
  readonly storeKey: string;
  readonly name: string;
  readonly current: KubeObject | undefined;
  readonly preconditions: Preconditions | undefined;
}
