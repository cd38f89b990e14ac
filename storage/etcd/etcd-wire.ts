/**
 * Translation between the store's terms and etcd's gRPC messages: key ranges, key-values,
 * events and errors.
 */
import type { IEvent, IKeyValue } from 'etcd3';
import { StoreUnavailableError } from '../errors';
import type { KeyValue, StoreEvent } from '../store';

/** etcd's "\0": as a key, the lowest key; as a range end, "no upper bound". */
const NUL = Buffer.from([0]);

/**
 * The etcd range [key, range_end) of keys starting with `prefix`, from `startKey` on. The last
 * byte of a UTF-8 string is never 0xff, so incrementing it gives the prefix's end.
 */
export function etcdRange(prefix: string, startKey?: string): { key: Buffer; range_end: Buffer } {
  const start = startKey ?? prefix;
  const key = start === '' ? NUL : Buffer.from(start, 'utf8');
  if (prefix === '') return { key, range_end: NUL };
  const rangeEnd = Buffer.from(prefix, 'utf8');
  rangeEnd[rangeEnd.length - 1] += 1;
  return { key, range_end: rangeEnd };
}

export function keyValueOf(kv: IKeyValue): KeyValue {
  return {
    key: kv.key.toString('utf8'),
    value: kv.value,
    createRevision: Number(kv.create_revision),
    modRevision: Number(kv.mod_revision),
  };
}

/** etcd puts the deletion's revision in a delete event's kv.mod_revision already. */
export function eventOf(event: IEvent): StoreEvent {
  const kv = keyValueOf(event.kv);
  const type = event.type === 'Delete' ? 'delete' : 'put';
  // Protobuf defaults fill an absent prev_kv with an empty message: no key means none.
  return event.prev_kv && event.prev_kv.key.length > 0 ? { type, kv, prevKv: keyValueOf(event.prev_kv) } : { type, kv };
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
