/**
 * A claim's `dataSource` and `dataSourceRef` always show their `apiGroup`: the reference's types
 * declare it as a pointer without `omitempty`, so a reference to a core kind (a claim) is
 * written with `"apiGroup": null`, first, as the field comes first in the struct. capstan keeps
 * objects as they are served, so the null is put in place on every way through the defaults
 * (protobuf, which stores no null, drops it again). Null reads as absent everywhere else.
 */
type Json = Record<string, unknown>;

export function showClaimSourceGroups(claimSpec: Json): void {
  for (const member of ['dataSource', 'dataSourceRef']) {
    const reference = claimSpec[member];
    if (reference === null || typeof reference !== 'object') continue;
    const { apiGroup = null, ...rest } = reference as Json;
    claimSpec[member] = { apiGroup, ...rest };
  }
}
