/**
 * Stored form of an object: its JSON bytes without `metadata.resourceVersion`, which is never
 * stored but injected on every read as the decimal mod revision of the key (so the version a
 * client sees is always the store's, and identical content encodes to identical bytes).
 */
import { ObjectError } from '../errors';
import type { KeyValue } from '../store';
import type { KubeObject } from './types';

export function encodeObject(object: KubeObject): Buffer {
  const { resourceVersion: _dropped, ...metadata } = object.metadata;
  return Buffer.from(JSON.stringify({ ...object, metadata }));
}

/** Decodes a stored value and stamps it with `revision` (default: the key's mod revision). */
export function decodeObject(
  kv: Pick<KeyValue, 'key' | 'value' | 'modRevision'>,
  revision: number = kv.modRevision,
): KubeObject {
  let parsed: unknown;
  try {
    parsed = JSON.parse(kv.value.toString('utf8'));
  } catch (error) {
    throw corruptObject(kv, (error as Error).message);
  }
  if (!isKubeObject(parsed)) throw corruptObject(kv, 'Object \'metadata\' is missing');
  parsed.metadata.resourceVersion = String(revision);
  return parsed;
}

/** The reference's storage error for an object whose bytes do not decode (storage error code 7). */
function corruptObject(kv: Pick<KeyValue, 'key' | 'modRevision'>, cause: string): ObjectError {
  const message =
    `StorageError: corrupt object, Code: 7, Key: ${kv.key}, ResourceVersion: 0, ` +
    `AdditionalErrorMsg: object not decodable revision=${kv.modRevision}: ${cause}`;
  return new ObjectError('InternalError', message, { corruptKey: kv.key });
}

export function isCorruptObjectError(error: unknown): error is ObjectError {
  return error instanceof ObjectError && error.details.corruptKey !== undefined;
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
