/** Small helpers shared by the defaulting modules: fill a field only when it is absent. */

export type Json = Record<string, unknown>;

/** Sets `object[key]` to `value` when absent (undefined or null); returns the field's value. */
export function fill<T>(object: Json, key: string, value: T): T {
  if (object[key] === undefined || object[key] === null) object[key] = value;
  return object[key] as T;
}

/**
 * Sets the string, number or list `object[key]` to `value` when absent or empty: Go defaults a
 * value field it finds at its zero (`x == ""`, `x == 0`, `len(x) == 0`), so `""`, `0` or `[]`
 * sent is defaulted as much as a field left out. Fields Go holds as pointers are defaulted only
 * when absent (`fill`): an empty string sent to one is kept, and validation judges it.
 */
export function fillWhenEmpty<T extends string | number | readonly unknown[]>(object: Json, key: string, value: T): T {
  const current = object[key];
  if (current === '' || current === 0 || (Array.isArray(current) && current.length === 0)) object[key] = value;
  return fill(object, key, value);
}

/** The nested object at `key`, created empty when absent. */
export function child(object: Json, key: string): Json {
  return fill<Json>(object, key, {});
}

/** The array at `key` when it is one, else an empty list (never stored). */
export function items(object: Json | undefined, key: string): Json[] {
  const value = object?.[key];
  return Array.isArray(value) ? (value as Json[]) : [];
}

export function isEmptyValue(value: unknown): boolean {
  return value === undefined || value === null || value === '' || value === 0;
}
