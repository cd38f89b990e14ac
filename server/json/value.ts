/** Plain JSON values as the engines handle them. */

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A deep copy of a JSON value. structuredClone is correct too but costs several microseconds
 * per call, which dominated an apply of a large pod when called per field.
 */
export function copyJson<T>(value: T): T {
  if (Array.isArray(value)) return value.map(copyJson) as T;
  if (isObject(value)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) out[key] = copyJson(value[key]);
    return out as T;
  }
  return value;
}

/**
 * The value at a dotted path (`spec.replicas`, or its segments split once by a caller that reads
 * it often), undefined where the path leaves the objects.
 */
export function valueAtPath(value: unknown, path: string | readonly string[]): unknown {
  let current = value;
  for (const segment of typeof path === 'string' ? path.split('.') : path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}
