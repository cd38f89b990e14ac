/**
 * A `RevisionedStore` that encrypts at rest: values go through their resource's transformer on
 * every write and come back through it on every read, range and watch event, so the object
 * layer, the watch cache and both backends (etcd, SQLite) work on plaintext unaware of it.
 *
 * A value that does not transform (a key no longer configured, a tampered value) is not an
 * error of the whole read: its key-value comes back as stored, marked with `transformError`,
 * so the object layer answers for that object alone as the reference does (a corrupt object
 * a list reports among the others, and the unsafe delete can remove unread). A value read
 * with an older key comes back marked `stale`, so an update rewrites it even unchanged.
 *
 * Keys no transformer covers (`compact_rev_key`) pass through untouched.
 */
import type {
  GetResult,
  KeyValue,
  RangeRequest,
  RangeResult,
  RevisionedStore,
  StoreEvent,
  StoreWatch,
  WatchRequest,
  WriteResult,
} from '../store';
import { ObjectError } from '../errors';
import type { TransformContext, ValueTransformer } from './transformer';

/** The transformer for a key and the resource it belongs to, or undefined for keys of no resource. */
export type TransformerOfKey = (
  key: string,
) => { readonly transformer: ValueTransformer; readonly resource: string } | undefined;

export function transformingStore(store: RevisionedStore, transformerOf: TransformerOfKey): RevisionedStore {
  const contextOf = (key: string) => {
    const found = transformerOf(key);
    return (
      found && { transformer: found.transformer, context: { key, resource: found.resource } satisfies TransformContext }
    );
  };

  async function fromStorage(kv: KeyValue): Promise<KeyValue> {
    const found = contextOf(kv.key);
    if (found === undefined) return kv;
    try {
      const { data, stale } = await found.transformer.fromStorage(kv.value, found.context);
      return stale ? { ...kv, value: data, stale } : { ...kv, value: data };
    } catch (error) {
      return { ...kv, transformError: error as Error };
    }
  }

  const maybeFromStorage = (kv: KeyValue | undefined) => (kv === undefined ? undefined : fromStorage(kv));

  /** A value that cannot be encrypted (a KMS plugin away) is not written: the reference's internal error. */
  async function toStorage(key: string, value: Buffer): Promise<Buffer> {
    const found = contextOf(key);
    if (found === undefined) return value;
    try {
      return await found.transformer.toStorage(value, found.context);
    } catch (error) {
      throw new ObjectError('InternalError', (error as Error).message, { storageInternal: true });
    }
  }

  /** A write's result as the caller wrote it: the plaintext it gave, or the current state on a failed compare. */
  async function writeResult(result: WriteResult, written: Buffer): Promise<WriteResult> {
    if (result.kv === undefined) return result;
    if (result.succeeded) return { ...result, kv: { ...result.kv, value: written } };
    return { ...result, kv: await fromStorage(result.kv) };
  }

  async function eventFromStorage(event: StoreEvent): Promise<StoreEvent> {
    // A deletion's key-value has no value; the previous one does.
    const kv = event.type === 'put' ? await fromStorage(event.kv) : event.kv;
    const prevKv = await maybeFromStorage(event.prevKv);
    return prevKv === undefined ? { type: event.type, kv } : { type: event.type, kv, prevKv };
  }

  return {
    currentRevision: () => store.currentRevision(),
    async get(key, options): Promise<GetResult> {
      const result = await store.get(key, options);
      return result.kv === undefined ? result : { ...result, kv: await fromStorage(result.kv) };
    },
    async range(request: RangeRequest): Promise<RangeResult> {
      const result = await store.range(request);
      return { ...result, kvs: await Promise.all(result.kvs.map(fromStorage)) };
    },
    async create(key, value) {
      return writeResult(await store.create(key, await toStorage(key, value)), value);
    },
    async update(key, value, expectedModRevision) {
      return writeResult(await store.update(key, await toStorage(key, value), expectedModRevision), value);
    },
    async delete(key, expectedModRevision) {
      const result = await store.delete(key, expectedModRevision);
      return result.kv === undefined ? result : { ...result, kv: await fromStorage(result.kv) };
    },
    watch(request: WatchRequest): StoreWatch {
      // Transforms may wait (a KMS plugin), so deliveries are chained to keep revision order,
      // progress after the events it covers, and an error after all that came before it.
      let delivered: Promise<void> = Promise.resolve();
      let closed = false;
      const then = (step: () => Promise<void> | void) => {
        delivered = delivered.then(async () => {
          if (!closed) await step();
        });
      };
      const inner = store.watch({
        prefix: request.prefix,
        fromRevision: request.fromRevision,
        onEvents: (events) =>
          then(async () => {
            const transformed = await Promise.all(events.map(eventFromStorage));
            if (!closed) request.onEvents(transformed);
          }),
        onProgress: request.onProgress && ((revision) => then(() => request.onProgress!(revision))),
        onError: (error) => then(() => request.onError(error)),
      });
      return {
        close() {
          closed = true;
          inner.close();
        },
      };
    },
    compact: (revision) => store.compact(revision),
    compactedRevision: () => store.compactedRevision(),
    close: () => store.close(),
  };
}
