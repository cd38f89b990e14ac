/**
 * Values between JSON (what objects, claims and requests are made of) and CEL.
 *
 * CEL tells int from double, which JSON does not: a JSON number without a fraction becomes a
 * CEL int (bigint), as the reference's unstructured conversion does; other numbers are doubles.
 * Maps become `Map`s so that a key such as `__proto__` or `constructor` is only ever a key.
 */
import { Duration, UnsignedInt } from './engine-values';
import { Optional } from '@marcbachmann/cel-js';

export type CelValue =
  | null
  | boolean
  | bigint
  | number
  | string
  | Uint8Array
  | Date
  | Duration
  | UnsignedInt
  | CelValue[]
  | Map<string, CelValue>
  | object;

/** A JSON value as a dynamically typed CEL value. */
export function fromJson(value: unknown): CelValue {
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case 'boolean':
    case 'string':
    case 'bigint':
      return value;
    case 'number':
      return Number.isSafeInteger(value) ? BigInt(value) : value;
    case 'object':
      if (Array.isArray(value)) return value.map(fromJson);
      // Values of CEL's own types (Map, Date, bytes, library objects) are already CEL values.
      if (Object.getPrototypeOf(value) !== Object.prototype) return value;
      return new Map(Object.entries(value).map(([k, v]) => [k, fromJson(v)]));
    default:
      throw new TypeError(`value of type ${typeof value} has no CEL form`);
  }
}

/** A CEL result as JSON: ints within 2^53 as numbers, maps and objects as plain objects. */
export function toJson(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (value instanceof UnsignedInt) return toJson(value.value);
  if (Array.isArray(value)) return value.map(toJson);
  if (value instanceof Date) return value.toISOString().replace('.000Z', 'Z');
  if (value instanceof Duration) return `${Number(value.valueOf()) / 1000}s`;
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (value instanceof Optional) return value.hasValue() ? toJson(value.value()) : null;
  if (value instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of value) out[String(k)] = toJson(v);
    return out;
  }
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = toJson(v);
    return out;
  }
  return value;
}
