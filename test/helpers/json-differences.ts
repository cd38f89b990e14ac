/**
 * Where two JSON documents differ, by JSON path: what tests comparing a served document with
 * the reference's report, so that a failure names the places rather than dumping megabytes.
 */

/** Each place where `served` and `reference` differ: `extra`, `missing` or `changed`, then the JSON path. */
export function differences(served: unknown, reference: unknown, path = ''): string[] {
  const bothObjects = (a: unknown, b: unknown) =>
    a !== null && b !== null && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b);
  if (!bothObjects(served, reference)) return served === reference ? [] : [`changed ${path}`];
  if (Array.isArray(served) && Array.isArray(reference) && served.length !== reference.length)
    return [`changed ${path}`];
  const ours = served as Record<string, unknown>;
  const theirs = reference as Record<string, unknown>;
  const found: string[] = [];
  for (const key of Object.keys(ours)) {
    const child = `${path}/${key}`;
    if (!(key in theirs)) found.push(`extra ${child}`);
    else found.push(...differences(ours[key], theirs[key], child));
  }
  for (const key of Object.keys(theirs)) if (!(key in ours)) found.push(`missing ${path}/${key}`);
  return found;
}
