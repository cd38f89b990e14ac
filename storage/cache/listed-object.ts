/**
 * An object of a watch cache's list, kept as the store's bytes until something reads it. A
 * replica's start lists every stored object; decoding them all then was about two thirds of the
 * CPU of a start with 100,000 objects (protobuf decode and the garbage it makes), for objects
 * that are mostly not read for a while, on a replica without controllers perhaps never. Kept
 * as bytes, an object costs a small fraction of its decoded form too.
 *
 * The first read decodes it and keeps the result (dropping the bytes), so every later read
 * shares one object, as they shared the eagerly decoded one. Bytes that do not decode throw
 * the store's corrupt-object error at every read, exactly as the store's own read would; the
 * cache answers such a read from the store (watch-cache.ts).
 *
 * The bytes are the store client's buffer, not a copy: for etcd a slice of its response page,
 * which stays alive until every object of the page is decoded or replaced.
 */
import { decodeObject, type ValueCodec } from '../objects/codec';
import type { KeyValue } from '../store';
import type { KubeObject } from '../../api/objects';

type StoredBytes = Pick<KeyValue, 'key' | 'value' | 'modRevision' | 'transformError'>;

export class ListedObject {
  private stored: StoredBytes | undefined;
  private decoded: KubeObject | undefined;

  constructor(
    kv: StoredBytes,
    private readonly codec: ValueCodec | undefined,
  ) {
    this.stored = kv;
  }

  /** Whether the first read has happened (and decoded). */
  get isDecoded(): boolean {
    return this.decoded !== undefined;
  }

  /** The object, decoded on the first call; throws the corrupt-object ObjectError while its bytes do not decode. */
  object(): KubeObject {
    if (this.decoded !== undefined) return this.decoded;
    const decoded = decodeObject(this.stored!, this.codec);
    this.decoded = decoded;
    this.stored = undefined;
    return decoded;
  }
}

/** What a cache holds under a key: an object decoded from an event, or one listed and not yet read. */
export type CachedObject = KubeObject | ListedObject;

export function objectOf(cached: CachedObject): KubeObject {
  return cached instanceof ListedObject ? cached.object() : cached;
}
