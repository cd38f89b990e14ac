/**
 * Objects holding a map whose keys JavaScript cannot enumerate in Go's order. Go writes a map's
 * keys sorted by their bytes; a JavaScript object enumerates the keys that are array indices
 * ("9", "10") first, in numeric order, whatever order they were added in, so JSON.stringify of
 * such an object cannot write what Go writes. A Go struct's JSON names are never array indices,
 * so an object whose first key is one is always a map, and a map holding one always lists one
 * first: writing the keys of exactly those objects sorted gives Go's order, for custom resources
 * (maps all through, already sorted where stored) and built-in kinds (structs in their field
 * order) alike.
 *
 * Telling costs a look at the object; the compact writers are the hot path, so a value read from
 * the store is looked at once (server/codec/storage-value.ts) and marked when it may hold such a
 * key, values made from it (its metadata alone, a table row) are marked as it is, and the compact
 * writers look only for the mark: a marked value is written by the sorting writer, every other,
 * as before, with JSON.stringify. Pretty JSON, seldom asked for, always goes through the sorting
 * writer.
 */
import { compareUtf8 } from '../string-order';

/** Set (enumerable, so that a spread copy keeps it; JSON ignores symbols) on a marked object. */
const SORTED_MAPS = Symbol('sorted maps');

/** A key that is an array index, as a member of compact JSON: `{"10":` or `,"9":`. */
const INDEX_KEY = /[{,]"(?:0|[1-9]\d{0,9})":/;

/**
 * Marks `object`, decoded from `text`, when the text may hold a key that is an array index (a
 * string value that looks like one only costs the slower writer).
 */
export function markedIfIndexKeys<T extends object>(object: T, text: string): T {
  if (INDEX_KEY.test(text)) mark(object);
  return object;
}

/**
 * Marks a built-in object whose labels or annotations hold a key that is an array index: the
 * maps of its metadata that every kind has. Looks at one key of each, the first, which is such a
 * key whenever the map holds one.
 */
export function markedIfIndexKeyedMetadata<T extends object>(object: T): T {
  const metadata = (object as { metadata?: { labels?: unknown; annotations?: unknown } }).metadata;
  if (metadata !== undefined && (startsWithIndexKey(metadata.labels) || startsWithIndexKey(metadata.annotations)))
    mark(object);
  return object;
}

/** `to` marked as `from` is: a value made from a marked one (its metadata alone, say) holds its maps. */
export function markedAs<T extends object>(to: T, from: object): T {
  if (isMarked(from)) mark(to);
  return to;
}

function mark(object: object): void {
  (object as Record<symbol, unknown>)[SORTED_MAPS] = true;
}

function isMarked(value: unknown): boolean {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[SORTED_MAPS] === true;
}

/** The value as compact JSON: a marked object with its maps' keys in Go's order, anything else as JSON.stringify writes it. */
export function jsonText(value: unknown): string {
  if (isMarked(value)) return goOrderedJson(value, '') ?? 'null';
  return JSON.stringify(value);
}

/** The value as JSON indented by two spaces, as JSON.stringify(value, null, 2) lays it out, maps' keys in Go's order. */
export function prettyJsonText(value: unknown): string {
  return goOrderedJson(value, '\n') ?? 'null';
}

/** Whether the object's first key is an array index ("0", "10", up to 2^32 - 2). */
function startsWithIndexKey(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  for (const key in value) return isArrayIndex(key);
  return false;
}

function isArrayIndex(key: string): boolean {
  const first = key.charCodeAt(0);
  if (first < 0x30 || first > 0x39) return false;
  if (key === '0') return true;
  return first !== 0x30 && /^\d{1,10}$/.test(key) && Number(key) < 2 ** 32 - 1;
}

/**
 * JSON.stringify's text, compact (`newline` empty) or indented (`newline` the line break and the
 * indentation so far), with the keys of each object that starts with an array index sorted by
 * their UTF-8 bytes. Undefined where JSON.stringify leaves a member out.
 */
function goOrderedJson(value: unknown, newline: string): string | undefined {
  if (typeof value === 'object' && value !== null && typeof (value as { toJSON?: unknown }).toJSON === 'function')
    value = (value as { toJSON(): unknown }).toJSON();
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  const inner = newline === '' ? '' : `${newline}  `;
  const separator = newline === '' ? ',' : `,${inner}`;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const items = value.map((item) => goOrderedJson(item, inner) ?? 'null');
    return `[${inner}${items.join(separator)}${newline}]`;
  }
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object);
  if (keys.length > 0 && isArrayIndex(keys[0])) keys.sort(compareUtf8);
  const members: string[] = [];
  const colon = newline === '' ? ':' : ': ';
  for (const key of keys) {
    const text = goOrderedJson(object[key], inner);
    if (text !== undefined) members.push(`${JSON.stringify(key)}${colon}${text}`);
  }
  if (members.length === 0) return '{}';
  return `{${inner}${members.join(separator)}${newline}}`;
}
