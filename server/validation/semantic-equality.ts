/**
 * apimachinery's equality.Semantic.DeepEqual of two v1 values, as their INTERNAL Go structs
 * compare: the reference converts a request to its internal types before it validates an update,
 * and decides there whether an immutable field changed. The Go shape of each value comes from the
 * generated table of internal structs (internal-json-fields.ts): what the v1 JSON cannot tell is
 * where Go holds a pointer, and a nil pointer differs from a pointer to a zero struct, while a
 * missing value field equals its zero (`{}`, `""`, `0`, `false`). Otherwise Go's reflection rules
 * hold with the semantic exceptions: a nil list or map equals an empty one, quantities compare by
 * amount (`1Gi` and `1073741824`) and times by instant.
 */
import { isObject } from '../json/value';
import { parseQuantity, canonicalQuantity } from '../quantity/quantity';
import { deepEqual, FIELD_IMMUTABLE, invalid, type FieldPath } from '../status/field-errors';
import type { FieldError } from '../status/field-error';
import { internalSource, v1Value } from './internal-json';
import { INTERNAL_STRUCTS } from './internal-json-fields';

/** The table's name of a `*metav1.LabelSelector`, the selector most specs hold. */
export const LABEL_SELECTOR_POINTER = '*v1.LabelSelector';

const absent = (value: unknown) => value === undefined || value === null;

/** resource.Quantity's Cmp, on the amount Go parses (rounded up to nanos, as canonicalQuantity does). */
function quantitiesEqual(a: unknown, b: unknown): boolean {
  const amount = (value: unknown) =>
    typeof value === 'string' ? parseQuantity(canonicalQuantity(value) ?? value) : parseQuantity('0');
  const [left, right] = [amount(a), amount(b)];
  if (left === undefined || right === undefined) return deepEqual(a, b);
  return left.compareTo(right) === 0;
}

/** metav1.Time by its instant; the zero time is the absent one. */
function timesEqual(a: unknown, b: unknown): boolean {
  const instant = (value: unknown) => (typeof value === 'string' ? Date.parse(value) : undefined);
  const [left, right] = [instant(a), instant(b)];
  if (left === undefined || right === undefined) return left === right;
  return Number.isNaN(left) || Number.isNaN(right) ? a === b : left === right;
}

/** intstr.IntOrString compares its type and both values; the zero is the integer 0. */
function intOrStringsEqual(a: unknown, b: unknown): boolean {
  return (absent(a) ? 0 : a) === (absent(b) ? 0 : b);
}

function listsEqual(elem: string, a: unknown, b: unknown): boolean {
  const [left, right] = [Array.isArray(a) ? a : [], Array.isArray(b) ? b : []];
  return left.length === right.length && left.every((item, i) => equalAs(elem, item, right[i]));
}

function mapsEqual(elem: string, a: unknown, b: unknown): boolean {
  const entries = (value: unknown) =>
    isObject(value) ? Object.entries(value).filter(([, member]) => member !== undefined) : [];
  const [left, right] = [entries(a), new Map(entries(b))];
  return (
    left.length === right.size && left.every(([key, member]) => right.has(key) && equalAs(elem, member, right.get(key)))
  );
}

function structsEqual(name: string, a: unknown, b: unknown): boolean {
  const fields = INTERNAL_STRUCTS[name];
  if (fields === undefined) throw new Error(`internal-json-fields.ts has no struct ${name}`);
  const [left, right] = [internalSource(name, a), internalSource(name, b)];
  return fields.every((field) => equalAs(field.type, v1Value(left, field.v1Key), v1Value(right, field.v1Key)));
}

function equalAs(type: string, a: unknown, b: unknown): boolean {
  if (type.startsWith('*')) return absent(a) || absent(b) ? absent(a) && absent(b) : equalAs(type.slice(1), a, b);
  if (type === '[]byte') return (typeof a === 'string' ? a : '') === (typeof b === 'string' ? b : '');
  if (type.startsWith('[]')) return listsEqual(type.slice(2), a, b);
  if (type.startsWith('map[string]')) return mapsEqual(type.slice('map[string]'.length), a, b);
  switch (type) {
    case 'string':
      return (typeof a === 'string' ? a : '') === (typeof b === 'string' ? b : '');
    case 'bool':
      return (a === true) === (b === true);
    case 'int':
      return (typeof a === 'number' ? a : 0) === (typeof b === 'number' ? b : 0);
    case 'Quantity':
      return quantitiesEqual(a, b);
    case 'Time':
      return timesEqual(a, b);
    case 'IntOrString':
      return intOrStringsEqual(a, b);
    // Go compares the bytes the client sent; their JSON value is what survives storage.
    case 'FieldsV1':
    case 'RawExtension':
      return deepEqual(a ?? null, b ?? null);
  }
  return structsEqual(type, a, b);
}

/**
 * Whether `a` and `b`, v1 values of the internal Go type `type` (a struct's name in the
 * generated table, or a pointer, list or map of one, or a leaf type the table names), are
 * semantically equal. The same JSON is the same Go value and needs no walk of the type, which
 * for a pod spec visits about a thousand fields.
 */
export function semanticEqual(type: string, a: unknown, b: unknown): boolean {
  return deepEqual(a, b) || equalAs(type, a, b);
}

/** The generated internal type of the member of struct `name` held under the v1 key `v1Key`. */
export function memberType(name: string, v1Key: string): string {
  const field = INTERNAL_STRUCTS[name]?.find((candidate) => candidate.v1Key === v1Key);
  if (field === undefined) throw new Error(`internal-json-fields.ts has no ${v1Key} in ${name}`);
  return field.type;
}

/** The reference's ValidateImmutableField: the new value (printed as `shown`) may not differ semantically. */
export function immutableAs(
  type: string,
  path: FieldPath,
  next: unknown,
  old: unknown,
  shown: unknown = next,
): FieldError[] {
  return semanticEqual(type, next, old) ? [] : [invalid(path, shown, FIELD_IMMUTABLE)];
}
