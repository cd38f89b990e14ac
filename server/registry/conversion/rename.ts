/** Field renaming between two versions of a kind whose other fields are identical. */

export type Json = Record<string, unknown>;

/** Copies `source` with the keys in `renames` ([from, to] pairs) renamed; other keys kept as they are. */
export function renameFields(source: Json, renames: readonly (readonly [string, string])[]): Json {
  const map = new Map(renames);
  const out: Json = {};
  for (const [key, value] of Object.entries(source)) out[map.get(key) ?? key] = structuredClone(value);
  return out;
}

export function reversed(renames: readonly (readonly [string, string])[]): [string, string][] {
  return renames.map(([from, to]) => [to, from]);
}
