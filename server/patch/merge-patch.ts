/**
 * JSON Merge Patch (RFC 7386), as the reference applies it (evanphx/json-patch v4's MergePatch):
 * besides the RFC's removals, a value the patch puts where there was no object loses every
 * null-valued member at any depth, inside lists too (null list items stay); a list that
 * replaces an object is taken as sent. Written here because it is a few lines and the npm
 * packages for it are unmaintained; fast-json-patch does only RFC 6902.
 */

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

function isObject(value: unknown): value is Record<string, JsonValue> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Returns a new document; neither input is changed. */
export function applyMergePatch(target: unknown, patch: unknown): JsonValue {
  if (!isObject(patch)) return isObject(target) ? (structuredClone(patch) as JsonValue) : withoutNullMembers(patch);
  const result: Record<string, JsonValue> = isObject(target) ? { ...(target as Record<string, JsonValue>) } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = applyMergePatch(result[key], value);
  }
  return result;
}

/** A copy of `value` without null-valued members of its objects, at any depth. */
function withoutNullMembers(value: unknown): JsonValue {
  if (Array.isArray(value)) return value.map((item) => (item === null ? null : withoutNullMembers(item)));
  if (!isObject(value)) return value as JsonValue;
  const result: Record<string, JsonValue> = {};
  for (const [key, member] of Object.entries(value)) if (member !== null) result[key] = withoutNullMembers(member);
  return result;
}
