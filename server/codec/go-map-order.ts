/**
 * Objects holding a map whose keys JavaScript cannot enumerate in Go's order. A custom resource
 * is a tree of Go maps, written with each map's keys sorted by their bytes; a JavaScript object
 * enumerates the keys that are array indices ("9", "10") first, in numeric order, whatever
 * order they were added in, so JSON.stringify of such an object cannot write what Go writes.
 * The stored value is read once (storage-value.ts), and when its text holds such a key the
 * object is marked; the JSON writers then write it with every map's keys sorted, and every
 * other object, as before, with JSON.stringify.
 */
import { sortedJson } from '../json/value';

/** Set (enumerable, so that a spread copy keeps it; JSON ignores symbols) on a marked object. */
const SORTED_MAPS = Symbol('sorted maps');

/** A key that is an array index, as a member of compact JSON: `{"10":` or `,"9":`. */
const INDEX_KEY = /[{,]"(?:0|[1-9]\d{0,9})":/;

/**
 * Marks `object`, decoded from `text`, when the text may hold a key that is an array index (a
 * string value that looks like one only costs the slower writer).
 */
export function markedIfIndexKeys<T extends object>(object: T, text: string): T {
  if (INDEX_KEY.test(text)) (object as Record<symbol, unknown>)[SORTED_MAPS] = true;
  return object;
}

/** The value as JSON: a marked object with every map's keys in Go's order, anything else as JSON.stringify writes it. */
export function jsonText(value: unknown): string {
  if (typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[SORTED_MAPS] === true)
    return sortedJson(value);
  return JSON.stringify(value);
}
