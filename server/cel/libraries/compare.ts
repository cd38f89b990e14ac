/**
 * Equality and ordering of CEL values, for the functions that compare (indexOf, min, max,
 * isSorted) and for equality of schema object types: numbers across int, uint and double,
 * strings by code point, bytes, bools, timestamps, durations, lists and maps (an object of a
 * schema type is a map of its set fields).
 *
 * A list a schema marks `x-kubernetes-list-type: set` or `map` compares as the reference compares
 * it, without regard to order: as a set, or as a map from its items' keys to its items. As in the
 * reference, the left operand's kind of list decides (`['b', 'a'] == self.set` is ordered).
 */
import { Duration, UnsignedInt } from '../engine-values';
import { CelFunctionError } from './library';

/** How a list from a schema compares: as a set, or as a map keyed by some of its items' fields. */
export type ListSemantics = { readonly type: 'set' } | { readonly type: 'map'; readonly keys: readonly string[] };

const LIST_SEMANTICS = Symbol('listSemantics');

/** Marks `list` to compare as `semantics` say (the mark is not enumerable: the list stays a list). */
export function withListSemantics<T extends unknown[]>(list: T, semantics: ListSemantics): T {
  Object.defineProperty(list, LIST_SEMANTICS, { value: semantics });
  return list;
}

function listSemanticsOf(list: unknown[]): ListSemantics | undefined {
  return (list as unknown as { [LIST_SEMANTICS]?: ListSemantics })[LIST_SEMANTICS];
}

/** An item's field by its JSON name (the key fields of a list-map are plain identifiers, never escaped). */
function itemField(item: unknown, key: string): unknown {
  return item instanceof Map ? item.get(key) : undefined;
}

function sameKeys(a: unknown, b: unknown, keys: readonly string[]): boolean {
  return keys.every((key) => celEquals(itemField(a, key), itemField(b, key)));
}

function listsEqual(a: unknown[], b: unknown[]): boolean {
  if (a.length !== b.length) return false;
  const semantics = listSemanticsOf(a);
  switch (semantics?.type) {
    case 'set':
      return b.every((item) => a.some((candidate) => celEquals(candidate, item)));
    case 'map':
      return b.every((item) => {
        const match = a.find((candidate) => sameKeys(candidate, item, semantics.keys));
        return match !== undefined && celEquals(match, item);
      });
    default:
      return a.every((item, i) => celEquals(item, b[i]));
  }
}

/**
 * `left == right` when `left` is a list a schema marks as a set or a map, else undefined (the
 * engine's own equality holds).
 */
export function unorderedListEquals(left: unknown, right: unknown): boolean | undefined {
  if (!Array.isArray(left) || listSemanticsOf(left) === undefined) return undefined;
  return Array.isArray(right) && listsEqual(left, right);
}

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

/**
 * The CEL types with an order, by the names the engine gives them (it names CEL's timestamp and
 * duration types by their protobuf messages).
 */
export const COMPARABLE_TYPES: readonly string[] = [
  'int',
  'uint',
  'double',
  'bool',
  'string',
  'bytes',
  'google.protobuf.Duration',
  'google.protobuf.Timestamp',
];

/** Whether values of the checked type named may be ordered (a dynamic type may turn out so). */
export function isComparableType(name: string): boolean {
  return name === 'dyn' || COMPARABLE_TYPES.includes(name);
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

const isNumber = (value: unknown): boolean =>
  typeof value === 'bigint' || typeof value === 'number' || value instanceof UnsignedInt;

/**
 * The order of two numbers of different CEL kinds (int, uint, double) as cel-go orders them (an
 * int or uint against a double as a double, so 2^63-1 and 2^63 are equal; NaN for unordered),
 * or undefined when the values are not numbers of different kinds: the engine's own order holds.
 */
export function mixedNumberOrder(a: unknown, b: unknown): number | undefined {
  if (typeof a === typeof b && !(a instanceof UnsignedInt) && !(b instanceof UnsignedInt)) return undefined;
  const x = numeric(a);
  const y = numeric(b);
  if (x === undefined || y === undefined) return undefined;
  if (Number.isNaN(x) || Number.isNaN(y)) return NaN;
  return compareNumbers(x, y);
}

/**
 * `value in list` (or among a map's keys) when `value` is a number (CEL finds it among numbers of
 * any kind: `3u in [3]`), else undefined: the engine's own membership holds.
 */
export function numberMembership(value: unknown, collection: unknown): boolean | undefined {
  if (!isNumber(value)) return undefined;
  if (Array.isArray(collection)) return collection.some((item) => celEquals(value, item));
  if (collection instanceof Map) return numberKeyOf(collection, value) !== undefined;
  return undefined;
}

/**
 * The key of `map` equal to the number `key` as CEL compares numbers (`1u` finds the key `1u`,
 * and `1`), or undefined when there is none or `key` is not a number.
 */
export function numberKeyOf(map: Map<unknown, unknown>, key: unknown): unknown {
  if (!isNumber(key)) return undefined;
  if (map.has(key)) return key;
  for (const candidate of map.keys()) if (celEquals(candidate, key)) return candidate;
  return undefined;
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
  if (Array.isArray(a) && Array.isArray(b)) return listsEqual(a, b);
  if (a instanceof Map && b instanceof Map) {
    const left = entries(a);
    const right = entries(b);
    return left.size === right.size && [...left].every(([k, v]) => right.has(k) && celEquals(v, right.get(k)));
  }
  return a === b;
}
