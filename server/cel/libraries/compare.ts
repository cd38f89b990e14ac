/**
 * Equality and ordering of CEL values, for the functions that compare (indexOf, min, max,
 * isSorted) and for equality of schema object types: numbers across int, uint and double,
 * strings by code point, bytes, bools, timestamps, durations, lists and maps (an object of a
 * schema type is a map of its set fields).
 */
import { Duration, UnsignedInt } from '../engine-values';
import { CelFunctionError } from './library';

function numeric(value: unknown): number | bigint | undefined {
  if (typeof value === 'bigint' || typeof value === 'number') return value;
  if (value instanceof UnsignedInt) return value.value;
  return undefined;
}

function compareNumbers(a: number | bigint, b: number | bigint): number {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  const x = Number(a);
  const y = Number(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

function compareStrings(a: string, b: string): number {
  // Code point order, as Go compares UTF-8 bytes (UTF-16 units would misorder astral characters).
  const x = Array.from(a);
  const y = Array.from(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i].codePointAt(0)! - y[i].codePointAt(0)!;
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return x.length - y.length < 0 ? -1 : x.length > y.length ? 1 : 0;
}

/** -1, 0 or 1; an error when the two values have no order between them. */
export function compareValues(a: unknown, b: unknown): number {
  const x = numeric(a);
  const y = numeric(b);
  if (x !== undefined && y !== undefined) return compareNumbers(x, y);
  if (typeof a === 'string' && typeof b === 'string') return compareStrings(a, b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1;
  if (a instanceof Uint8Array && b instanceof Uint8Array) return Buffer.compare(a, b);
  if (a instanceof Date && b instanceof Date) return compareNumbers(a.getTime(), b.getTime());
  if (a instanceof Duration && b instanceof Duration) return compareNumbers(a.valueOf(), b.valueOf());
  throw new CelFunctionError('no such overload');
}

function entries(map: Map<unknown, unknown>): Map<unknown, unknown> {
  // Objects of schema types list their unset fields with undefined values.
  return new Map([...map].filter(([, v]) => v !== undefined));
}

/** CEL's `==`. */
export function celEquals(a: unknown, b: unknown): boolean {
  const x = numeric(a);
  const y = numeric(b);
  if (x !== undefined && y !== undefined) return compareNumbers(x, y) === 0 && !Number.isNaN(Number(x));
  if (a instanceof Uint8Array && b instanceof Uint8Array) return Buffer.compare(a, b) === 0;
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (a instanceof Duration && b instanceof Duration) return a.valueOf() === b.valueOf();
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => celEquals(item, b[i]));
  if (a instanceof Map && b instanceof Map) {
    const left = entries(a);
    const right = entries(b);
    return left.size === right.size && [...left].every(([k, v]) => right.has(k) && celEquals(v, right.get(k)));
  }
  return a === b;
}
