/**
 * ObjectMeta in the order Go's JSON encoding of the typed struct writes it: its members, and
 * those of each owner reference and managed fields entry. A custom resource's metadata is held
 * as the sorted map the reference stores, and where the reference shows it typed (the
 * PartialObjectMetadata of a table row or a metadata-only answer, a JSON patch's quoted
 * result) the members go back to the struct's order.
 */
import type { ObjectMeta } from './objects';

const OBJECT_META_ORDER = [
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
];

const OWNER_REFERENCE_ORDER = ['apiVersion', 'kind', 'name', 'uid', 'controller', 'blockOwnerDeletion'];

const MANAGED_FIELDS_ENTRY_ORDER = [
  'manager',
  'operation',
  'apiVersion',
  'time',
  'fieldsType',
  'fieldsV1',
  'subresource',
];

type Members = Record<string, unknown>;

/** `value`'s members of `order` first, in that order, then any others as they come. */
function inOrder(value: Members, order: readonly string[]): Members {
  const ordered: Members = {};
  for (const member of order) if (Object.hasOwn(value, member)) ordered[member] = value[member];
  for (const member of Object.keys(value)) if (!Object.hasOwn(ordered, member)) ordered[member] = value[member];
  return ordered;
}

function entriesInOrder(value: unknown, order: readonly string[]): unknown {
  if (!Array.isArray(value)) return value;
  return value.map((entry: unknown) =>
    typeof entry === 'object' && entry !== null && !Array.isArray(entry) ? inOrder(entry as Members, order) : entry,
  );
}

/** A copy of `metadata` with its own members in the struct's order, what they hold as it is. */
export function inGoObjectMetaMemberOrder(metadata: Members): Members {
  return inOrder(metadata, OBJECT_META_ORDER);
}

/** A copy of `metadata` in the typed struct's order (the maps inside, labels and annotations, stay sorted). */
export function inGoObjectMetaOrder(metadata: ObjectMeta): ObjectMeta {
  const ordered = inGoObjectMetaMemberOrder(metadata as unknown as Members);
  if (ordered.ownerReferences !== undefined)
    ordered.ownerReferences = entriesInOrder(ordered.ownerReferences, OWNER_REFERENCE_ORDER);
  if (ordered.managedFields !== undefined)
    ordered.managedFields = entriesInOrder(ordered.managedFields, MANAGED_FIELDS_ENTRY_ORDER);
  return ordered as unknown as ObjectMeta;
}
