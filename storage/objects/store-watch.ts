/**
 * A watch served straight from the store (no watch cache): optional synthetic ADDED events for
 * the state at one revision, then the store's events after it, filtered through the predicate.
 */
import { CompactedError, ObjectError } from '../errors';
import type { RevisionedStore, StoreEvent, StoreWatch } from '../store';
import { decodeObject, isCorruptObjectError, type ValueCodec } from './codec';
import { parseResourceVersion, tooLargeResourceVersion } from './resource-version';
import type { ObjectWatch, ObjectWatchEvent, WatchOptions } from './types';
import { objectChangeOf, watchEventFor } from './watch-events';
import { WatchQueue } from './watch-queue';
import type { KubeObject } from '../../api/objects';

export const WATCH_EXPIRED_MESSAGE = 'The resourceVersion for the provided watch is too old.';
export const INITIAL_EVENTS_END_ANNOTATION = 'k8s.io/initial-events-end';

/** Live events a reader may fall behind before it is dropped. */
const DEFAULT_BUFFER_SIZE = 1_000;
/** Keys read per range while collecting the initial state. */
const INITIAL_RANGE_LIMIT = 10_000;

export interface StoreWatchRequest {
  readonly store: RevisionedStore;
  /** The watched range, with its trailing "/". */
  readonly prefix: string;
  readonly options: WatchOptions;
  readonly bufferSize?: number;
  /** How the watched values decode; absent: plain JSON. */
  readonly codec?: ValueCodec;
}

export async function startStoreWatch(request: StoreWatchRequest): Promise<ObjectWatch> {
  const { store, prefix, options, codec } = request;
  const requestedRevision = parseResourceVersion(options.resourceVersion);
  const sendsInitialEvents = options.sendInitialEvents ?? requestedRevision === 0;

  // Without initial events and without a version, the watch starts at the newest state.
  let fromRevision =
    (requestedRevision === 0 && !sendsInitialEvents ? await store.currentRevision() : requestedRevision) + 1;
  const initialEvents: ObjectWatchEvent[] = [];
  if (sendsInitialEvents) {
    const state = await readInitialState({ store, prefix, options, codec });
    if (state.revision < requestedRevision) {
      throw tooLargeResourceVersion({ requested: requestedRevision, current: state.revision });
    }
    initialEvents.push(...state.events);
    // As the reference's etcd watcher: the objects before an unreadable one, its error, and the end.
    if (state.unreadable !== undefined)
      return endedWatch([...initialEvents, { type: 'ERROR', error: state.unreadable }]);
    if (options.sendInitialEvents && options.allowWatchBookmarks) {
      initialEvents.push({
        type: 'BOOKMARK',
        object: {
          metadata: {
            resourceVersion: String(state.revision),
            annotations: { [INITIAL_EVENTS_END_ANNOTATION]: 'true' },
          },
        },
      });
    }
    fromRevision = state.revision + 1;
  }

  let storeWatch: StoreWatch | undefined;
  let timer: NodeJS.Timeout | undefined;
  const queue = new WatchQueue({
    // The initial state is delivered whatever its size; only live events count against the reader.
    capacity: initialEvents.length + (request.bufferSize ?? DEFAULT_BUFFER_SIZE),
    onClose: () => {
      clearTimeout(timer);
      storeWatch?.close();
    },
  });
  for (const event of initialEvents) queue.push(event);

  const failWith = (error: ObjectError): void => {
    queue.push({ type: 'ERROR', error });
    queue.end();
  };
  const deliver = (events: StoreEvent[]): void => {
    for (const event of events) {
      if (queue.isEnded) return;
      let watchEvent: ObjectWatchEvent | undefined;
      try {
        watchEvent = watchEventFor(objectChangeOf(event, codec), options.predicate);
      } catch (error) {
        failWith(asObjectError(error));
        return;
      }
      if (watchEvent !== undefined) queue.push(watchEvent);
    }
  };

  const watch = store.watch({
    prefix,
    fromRevision,
    onEvents: deliver,
    onError: (error) => failWith(asObjectError(error)),
  });
  // The watch may have failed (and the queue closed) before `store.watch` returned.
  if (queue.isEnded) watch.close();
  else storeWatch = watch;

  if (options.timeoutSeconds !== undefined && options.timeoutSeconds > 0) {
    timer = setTimeout(() => queue.end(), options.timeoutSeconds * 1000);
    timer.unref();
  }
  return queue;
}

async function readInitialState(request: {
  store: RevisionedStore;
  prefix: string;
  options: WatchOptions;
  codec: ValueCodec | undefined;
}): Promise<{ revision: number; events: ObjectWatchEvent[]; unreadable?: ObjectError }> {
  const { store, prefix, options, codec } = request;
  const events: ObjectWatchEvent[] = [];
  let revision = 0;
  let startKey = prefix;
  for (;;) {
    const range = await store.range({ prefix, startKey, revision, limit: INITIAL_RANGE_LIMIT });
    revision = range.revision;
    for (const kv of range.kvs) {
      let object: KubeObject;
      try {
        object = decodeObject(kv, codec);
      } catch (error) {
        if (!isCorruptObjectError(error)) throw error;
        return { revision, events, unreadable: error };
      }
      if (options.predicate.matches(object)) events.push({ type: 'ADDED', object });
    }
    const lastKv = range.kvs.at(-1);
    if (range.remaining === 0 || lastKv === undefined) return { revision, events };
    startKey = `${lastKv.key}\u0000`;
  }
}

/** A watch that has nothing more to say than `events`. */
function endedWatch(events: readonly ObjectWatchEvent[]): ObjectWatch {
  const queue = new WatchQueue({ capacity: events.length });
  for (const event of events) queue.push(event);
  queue.end();
  return queue;
}

function asObjectError(error: unknown): ObjectError {
  if (error instanceof ObjectError) return error;
  if (error instanceof CompactedError) return new ObjectError('Expired', WATCH_EXPIRED_MESSAGE);
  return new ObjectError('InternalError', error instanceof Error ? error.message : String(error));
}
