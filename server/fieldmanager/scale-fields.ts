/**
 * Field ownership across the scale subresource, as the reference's scale handler converts it:
 * a write to `<parent>/scale` is tracked on the Scale object, whose only owned field is
 * `.spec.replicas`, and the result is folded back into the parent's managedFields.
 *
 * - toScale: each parent entry owning the parent's replicas field becomes a Scale entry
 *   (apiVersion autoscaling/v1) owning `.spec.replicas`; other entries are left out.
 * - toParent: parent entries not owning replicas stay as they are; one owning replicas keeps
 *   it only if the Scale write kept an entry of the same identity, else loses it (and goes
 *   when nothing is left); Scale entries the parent did not have become parent entries owning
 *   the parent's replicas field, in the request's version, without a time (the reference takes
 *   their time from the parent's entries, where they have none). Parent entries of versions
 *   the kind does not serve are dropped.
 *
 * Entries are matched by manager identity (managers.ts), which for Update entries includes
 * the apiVersion, exactly as the reference matches them.
 */
import { managerIdentity, sortManagedFields } from './managers';
import { fieldsV1Of, pathsOfFieldsV1, PathSet, type FieldPath } from './path-set';
import type { ManagedFieldsEntry } from './managed-fields-entry';

export const SCALE_API_VERSION = 'autoscaling/v1';
const SCALE_REPLICAS: FieldPath = ['f:spec', 'f:replicas'];

export interface ReplicasMapping {
  /** The parent's replicas field, by each apiVersion the parent is served in. */
  readonly replicasPaths: ReadonlyMap<string, FieldPath>;
}

/** The reference's DecodeManagedFields: one entry per identity, the last one winning. */
function byIdentity(entries: readonly ManagedFieldsEntry[] | undefined): Map<string, ManagedFieldsEntry> {
  return new Map((entries ?? []).map((entry) => [managerIdentity(entry), entry] as const));
}

function entryWith(
  entry: ManagedFieldsEntry,
  changes: { apiVersion: string; set: PathSet; time: string | undefined },
): ManagedFieldsEntry {
  return {
    manager: entry.manager,
    operation: entry.operation,
    apiVersion: changes.apiVersion,
    ...(changes.time !== undefined ? { time: changes.time } : {}),
    fieldsType: 'FieldsV1',
    fieldsV1: fieldsV1Of(changes.set),
    ...(entry.subresource ? { subresource: entry.subresource } : {}),
  };
}

/** The Scale's managedFields, from the parent's. */
export function toScaleManagedFields(
  parentEntries: readonly ManagedFieldsEntry[] | undefined,
  mapping: ReplicasMapping,
): ManagedFieldsEntry[] {
  const entries: ManagedFieldsEntry[] = [];
  for (const entry of byIdentity(parentEntries).values()) {
    const path = mapping.replicasPaths.get(entry.apiVersion ?? '');
    if (path === undefined || !pathsOfFieldsV1(entry.fieldsV1).has(path)) continue;
    entries.push(
      entryWith(entry, { apiVersion: SCALE_API_VERSION, set: new PathSet([SCALE_REPLICAS]), time: entry.time }),
    );
  }
  return sortManagedFields(entries);
}

/** The parent's managedFields after a Scale write left `scaleEntries`; `apiVersion` is the request's. */
export function toParentManagedFields(options: {
  readonly parentEntries: readonly ManagedFieldsEntry[] | undefined;
  readonly scaleEntries: readonly ManagedFieldsEntry[] | undefined;
  readonly mapping: ReplicasMapping;
  readonly apiVersion: string;
}): ManagedFieldsEntry[] {
  const { mapping } = options;
  const parent = byIdentity(options.parentEntries);
  const scale = byIdentity(options.scaleEntries);
  const result = new Map<string, ManagedFieldsEntry>();
  for (const [id, entry] of parent) {
    const path = mapping.replicasPaths.get(entry.apiVersion ?? '');
    if (path === undefined) continue;
    const set = pathsOfFieldsV1(entry.fieldsV1);
    if (!set.has(path)) {
      result.set(id, entry);
    } else if (scale.delete(id)) {
      // The Scale write kept this manager's replicas.
      result.set(id, entry);
    } else {
      const rest = set.minus(new PathSet([path]));
      if (!rest.isEmpty())
        result.set(id, entryWith(entry, { apiVersion: entry.apiVersion ?? '', set: rest, time: entry.time }));
    }
  }
  const replicas = mapping.replicasPaths.get(options.apiVersion);
  for (const [id, entry] of scale) {
    if (replicas === undefined || !pathsOfFieldsV1(entry.fieldsV1).has(SCALE_REPLICAS)) continue;
    result.set(
      id,
      entryWith(entry, { apiVersion: options.apiVersion, set: new PathSet([replicas]), time: parent.get(id)?.time }),
    );
  }
  return sortManagedFields([...result.values()]);
}
