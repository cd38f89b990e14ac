/**
 * Stored form of an object. What the bytes are is the resource's `ValueCodec`: the server gives
 * each resource the reference's encoding (protobuf with the `k8s\0` envelope for built-in kinds,
 * JSON for custom resources), and the storage layer, which knows no kinds, only frames it:
 * what the reference never persists is dropped before encoding, and `metadata.resourceVersion`
 * is injected on every read as the decimal mod revision of the key (so the version a client
 * sees is always the store's, and identical content encodes to identical bytes).
 */
import { corruptObjectText, ObjectError, type CorruptValue } from '../errors';
import type { KeyValue } from '../store';
import type { KubeObject } from '../../api/objects';

/**
 * How one resource's objects become bytes and back. `decode` reads whatever a writer of the
 * same store may have left (another encoding, another version of the kind) and answers the
 * object as the resource keeps it in memory; it throws an Error whose message says why the
 * bytes do not decode. Neither sees `metadata.resourceVersion` or `metadata.selfLink`.
 */
export interface ValueCodec {
  encode(object: KubeObject): Buffer;
  decode(value: Buffer): unknown;
}

/** Plain JSON: what a store without a server's codec (tests, tools) reads and writes. */
export const JSON_VALUE_CODEC: ValueCodec = {
  encode: (object) => Buffer.from(JSON.stringify(object)),
  decode: (value) => JSON.parse(value.toString('utf8')),
};

/**
 * The bytes of `object` as `codec` stores them, without what the reference never persists: the
 * resourceVersion (the key's revision says it) and the selfLink (no longer set since 1.20, and
 * cleared before every write by the reference's storage).
 */
export function encodeObject(object: KubeObject, codec: ValueCodec = JSON_VALUE_CODEC): Buffer {
  const { resourceVersion: _version, selfLink: _selfLink, ...metadata } = object.metadata;
  return codec.encode({ ...object, metadata });
}

/** Decodes a stored value and stamps it with `revision` (default: the key's mod revision). */
export function decodeObject(
  kv: Pick<KeyValue, 'key' | 'value' | 'modRevision' | 'transformError'>,
  codec: ValueCodec = JSON_VALUE_CODEC,
  revision: number = kv.modRevision,
): KubeObject {
  // Encryption at rest could not decrypt it: as corrupt as undecodable bytes, and as removable.
  if (kv.transformError !== undefined)
    throw corruptObject({ key: kv.key, failure: 'untransformable', revision: 0, cause: kv.transformError.message });
  let decoded: unknown;
  try {
    decoded = codec.decode(kv.value);
  } catch (error) {
    throw corruptObject(undecodable(kv, (error as Error).message));
  }
  if (!isKubeObject(decoded)) throw corruptObject(undecodable(kv, "Object 'metadata' is missing"));
  decoded.metadata.resourceVersion = String(revision);
  return decoded;
}

function corruptObject(corrupt: CorruptValue): ObjectError {
  return new ObjectError('InternalError', corruptObjectText(corrupt), { corrupt });
}

function undecodable(kv: Pick<KeyValue, 'key' | 'modRevision'>, cause: string): CorruptValue {
  return { key: kv.key, failure: 'undecodable', revision: kv.modRevision, cause };
}

/** `error` (a corrupt object's) marked with where the value was met; see ObjectError's `corruptIn`. */
export function corruptObjectMetIn(
  error: ObjectError & { details: { corrupt: CorruptValue } },
  corruptIn: 'read' | 'update' | 'deletion',
): ObjectError {
  return new ObjectError('InternalError', error.message, { corrupt: error.details.corrupt, corruptIn });
}

export function isCorruptObjectError(error: unknown): error is ObjectError & { details: { corrupt: CorruptValue } } {
  return error instanceof ObjectError && error.details.corrupt !== undefined;
}

/** A copy of `object` whose resourceVersion is `revision`; the original is left untouched (it may be shared). */
export function withResourceVersion(object: KubeObject, revision: number): KubeObject {
  return { ...object, metadata: { ...object.metadata, resourceVersion: String(revision) } };
}

function isKubeObject(value: unknown): value is KubeObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const metadata = (value as { metadata?: unknown }).metadata;
  return typeof metadata === 'object' && metadata !== null && !Array.isArray(metadata);
}
