/**
 * Compiles a request's `labelSelector` and `fieldSelector` into the storage `Predicate`, or, when
 * the kind's own fields can only be read on the object as served (a kind that converts between
 * versions, selected in another version than it stores), into a `Selection` whose storage
 * predicate holds the labels and metadata fields and whose `servedFields` the rest.
 */
import { EVERYTHING, type Predicate } from '../../storage/objects/types';
import {
  convertFieldLabels,
  fieldLabelsOf,
  isMetadataField,
  matchesFields,
  parseFieldSelector,
  type FieldLabels,
  type SelectableFields,
} from './field-selector';
import { matchesLabels, parseLabelSelector } from './label-selector';
import type { KubeObject } from '../../api/objects';
export { SelectorParseError } from './label-selector';

export interface SelectorInput {
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  readonly selectableFields: SelectableFields;
  /** The kind's own field label conversion; absent: the one its selectable fields imply. */
  readonly fieldLabels?: FieldLabels;
  /** The version the kind is served in, which some refusals name. */
  readonly version?: string;
}

export interface Selection {
  /** What the storage filters by. */
  readonly predicate: Predicate;
  /** The field requirements left for each object as served; absent when the predicate is the whole selection. */
  readonly servedFields?: (served: KubeObject) => boolean;
}

/** Throws `SelectorParseError` (a 400 for the caller) on a malformed or unsupported selector. */
export function compilePredicate(input: SelectorInput): Predicate {
  return compileSelection(input, false).predicate;
}

/** As compilePredicate; with `fieldsOnServedObjects`, the kind's own fields are left to `servedFields`. */
export function compileSelection(
  { labelSelector, fieldSelector, selectableFields, fieldLabels, version }: SelectorInput,
  fieldsOnServedObjects: boolean,
): Selection {
  const labels = parseLabelSelector(labelSelector ?? '');
  const fields = convertFieldLabels(
    parseFieldSelector(fieldSelector ?? ''),
    fieldLabelsOf(fieldLabels, selectableFields),
    version ?? '',
  );
  const stored = fieldsOnServedObjects ? fields.filter((requirement) => isMetadataField(requirement.field)) : fields;
  const served = fields.filter((requirement) => !stored.includes(requirement));
  const servedFields =
    served.length === 0 ? undefined : (object: KubeObject) => matchesFields(served, selectableFields, object);
  if (labels.length === 0 && fields.length === 0) return { predicate: EVERYTHING };
  const pinnedName = stored.find((r) => r.field === 'metadata.name' && r.operator === '=')?.value;
  return {
    // Not `everything` even when only served fields select: the storage's count of what is left would be wrong.
    predicate: {
      everything: false,
      name: pinnedName,
      matches: (object) => matchesLabels(labels, object) && matchesFields(stored, selectableFields, object),
    },
    ...(servedFields ? { servedFields } : {}),
  };
}
