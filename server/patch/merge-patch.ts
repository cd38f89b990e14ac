/**
 * JSON Merge Patch (RFC 7386). Written here because it is a dozen lines and the npm packages
 * for it are unmaintained; fast-json-patch does only RFC 6902.
 */

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

function isObject(value: unknown): value is Record<string, JsonValue> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Returns a new document; neither input is changed. */
export function applyMergePatch(target: unknown, patch: unknown): JsonValue {
  if (!isObject(patch)) return structuredClone(patch) as JsonValue;
  const result: Record<string, JsonValue> = isObject(target) ? { ...(target as Record<string, JsonValue>) } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = applyMergePatch(result[key], value);
  }
  return result;
}
