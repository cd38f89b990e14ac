/**
 * Translation between the store's terms and etcd's messages: key ranges, key-values, events
 * and errors.
 */
import { StoreUnavailableError } from '../errors';
import type { KeyValue, StoreEvent } from '../store';
import type * as etcd from './client/messages';

/** etcd's "\0": as a key, the lowest key; as a range end, "no upper bound". */
const NUL = Buffer.from([0]);

/**
 * The etcd range [key, rangeEnd) of keys starting with `prefix`, from `startKey` on. The last
 * byte of a UTF-8 string is never 0xff, so incrementing it gives the prefix's end.
 */
export function etcdRange(prefix: string, startKey?: string): { key: Buffer; rangeEnd: Buffer } {
  const start = startKey ?? prefix;
  const key = start === '' ? NUL : Buffer.from(start, 'utf8');
  if (prefix === '') return { key, rangeEnd: NUL };
  const rangeEnd = Buffer.from(prefix, 'utf8');
  rangeEnd[rangeEnd.length - 1] += 1;
  return { key, rangeEnd };
}

export function keyValueOf(kv: etcd.KeyValue): KeyValue {
  return {
    key: kv.key.toString('utf8'),
    value: kv.value,
    createRevision: kv.createRevision,
    modRevision: kv.modRevision,
  };
}

/** etcd puts the deletion's revision in a delete event's kv.modRevision already. */
export function eventOf(event: etcd.WatchEvent): StoreEvent {
  const kv = keyValueOf(event.kv);
  // An empty previous key-value (no key) is no previous value.
  return event.prevKv && event.prevKv.key.length > 0
    ? { type: event.type, kv, prevKv: keyValueOf(event.prevKv) }
    : { type: event.type, kv };
}

export function isCompactedMessage(error: unknown): boolean {
  return error instanceof Error && error.message.includes('required revision has been compacted');
}

export function isFutureRevisionMessage(error: unknown): boolean {
  return error instanceof Error && error.message.includes('required revision is a future revision');
}

export function unavailable(what: string, error: unknown): StoreUnavailableError {
  const reason = error instanceof Error ? error.message : String(error);
  return new StoreUnavailableError(`etcd ${what} failed: ${reason}`, { cause: error });
}
