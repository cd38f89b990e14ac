/**
 * Where two JSON documents differ, by JSON path: what tests comparing a served document with
 * the reference's report, so that a failure names the places (and the start of what is there)
 * rather than dumping megabytes.
 */

/** How much of a value a difference shows. */
const SHOWN_CHARACTERS = 200;

function shown(value: unknown): string {
  return (JSON.stringify(value) ?? 'undefined').slice(0, SHOWN_CHARACTERS);
}

/**
 * Each place where `served` and `reference` differ: `extra` or `missing` with the path and the
 * value there, or `changed` with the path and both values (served first).
 */
export function differences(served: unknown, reference: unknown, path = ''): string[] {
  const bothObjects = (a: unknown, b: unknown) =>
    a !== null && b !== null && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b);
  const changed = () => [`changed ${path || '/'}: served ${shown(served)} | reference ${shown(reference)}`];
  if (!bothObjects(served, reference)) return served === reference ? [] : changed();
  if (Array.isArray(served) && Array.isArray(reference) && served.length !== reference.length) return changed();
  const ours = served as Record<string, unknown>;
  const theirs = reference as Record<string, unknown>;
  const found: string[] = [];
  for (const key of Object.keys(ours)) {
    const child = `${path}/${key}`;
    if (!(key in theirs)) found.push(`extra ${child}: ${shown(ours[key])}`);
    else found.push(...differences(ours[key], theirs[key], child));
  }
  for (const key of Object.keys(theirs))
    if (!(key in ours)) found.push(`missing ${path}/${key}: ${shown(theirs[key])}`);
  return found;
}
