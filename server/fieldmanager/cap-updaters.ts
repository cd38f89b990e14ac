/**
 * The reference keeps at most ten `Update` entries in managedFields: after each non-apply
 * write, the oldest updaters are merged, per apiVersion, into one `ancient-changes` entry until
 * no more than ten remain. Apply entries are never merged (an applier's set is what its next
 * apply is compared against).
 *
 * The merge follows the reference step by step, including its order (oldest first, ties by
 * manager identity) and that the first updater of a version only becomes the bucket once a
 * second one of that version is merged.
 */
import { managerIdentity } from './managers';
import { union } from './field-set';
import type { ManagedFieldsEntry } from './managed-fields-entry';

export const MAX_UPDATE_MANAGERS = 10;
const BUCKET_MANAGER = 'ancient-changes';

function seconds(time: string | undefined): number {
  return time === undefined ? 0 : Math.floor(Date.parse(time) / 1000);
}

/** The entries with the oldest updaters merged into buckets; the input is not changed. */
export function capUpdateManagers(
  entries: readonly ManagedFieldsEntry[],
  max = MAX_UPDATE_MANAGERS,
): ManagedFieldsEntry[] {
  // There are no more updaters than non-apply entries: most writes stop here, without an
  // identity worked out for each entry.
  if (entries.reduce((count, entry) => (entry.operation === 'Apply' ? count : count + 1), 0) <= max)
    return [...entries];
  const byIdentity = new Map(entries.map((entry) => [managerIdentity(entry), { ...entry }] as const));
  const updaters = [...byIdentity.keys()].filter((id) => byIdentity.get(id)!.operation !== 'Apply');
  if (updaters.length <= max) return [...entries];
  updaters.sort(
    (a, b) => seconds(byIdentity.get(a)!.time) - seconds(byIdentity.get(b)!.time) || (a < b ? -1 : a > b ? 1 : 0),
  );

  const firstOfVersion = new Map<string, string>();
  let remaining = updaters.length;
  for (let index = 0; index < updaters.length && remaining > max; index++) {
    const id = updaters[index];
    // Only entries already passed over are ever moved, so this one is still there.
    const entry = byIdentity.get(id)!;
    const version = entry.apiVersion ?? '';
    const bucketId = managerIdentity({ manager: BUCKET_MANAGER, operation: 'Update', apiVersion: version });
    const first = firstOfVersion.get(version);
    if (first === undefined) {
      firstOfVersion.set(version, id);
      continue;
    }
    if (!byIdentity.has(bucketId)) {
      const moved = byIdentity.get(first)!;
      byIdentity.delete(first);
      byIdentity.set(bucketId, {
        ...moved,
        manager: BUCKET_MANAGER,
        operation: 'Update',
        apiVersion: version,
        subresource: undefined,
      });
    }
    const bucket = byIdentity.get(bucketId)!;
    const merged: ManagedFieldsEntry = {
      manager: BUCKET_MANAGER,
      operation: 'Update',
      apiVersion: version,
      // The bucket takes the time of the update merged last, the most recent one so far.
      time: entry.time,
      fieldsType: 'FieldsV1',
      fieldsV1: union(entry.fieldsV1 ?? {}, bucket.fieldsV1 ?? {}),
    };
    byIdentity.set(bucketId, merged);
    // As in the reference, merging the bucket itself (when an older updater of its version came
    // first) removes it.
    byIdentity.delete(id);
    remaining--;
  }
  return [...byIdentity.values()].map(withoutUndefined);
}

function withoutUndefined(entry: ManagedFieldsEntry): ManagedFieldsEntry {
  return Object.fromEntries(Object.entries(entry).filter(([, value]) => value !== undefined)) as ManagedFieldsEntry;
}
