/**
 * Compiles a request's `labelSelector` and `fieldSelector` into the storage `Predicate`.
 */
import { EVERYTHING, type Predicate } from '../../storage/objects/types';
import type { SelectableFields } from '../registry/types';
import { checkSelectableFields, matchesFields, parseFieldSelector } from './field-selector';
import { matchesLabels, parseLabelSelector } from './label-selector';

export { SelectorParseError } from './label-selector';

export interface SelectorInput {
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  readonly selectableFields: SelectableFields;
}

/** Throws `SelectorParseError` (a 400 for the caller) on a malformed or unsupported selector. */
export function compilePredicate({ labelSelector, fieldSelector, selectableFields }: SelectorInput): Predicate {
  const labels = parseLabelSelector(labelSelector ?? '');
  const fields = parseFieldSelector(fieldSelector ?? '');
  checkSelectableFields(fields, { selectableFields, hasCustomFields: Object.keys(selectableFields).length > 0 });
  if (labels.length === 0 && fields.length === 0) return EVERYTHING;
  const pinnedName = fields.find((r) => r.field === 'metadata.name' && r.operator === '=')?.value;
  return {
    everything: false,
    name: pinnedName,
    matches: (object) => matchesLabels(labels, object) && matchesFields(fields, selectableFields, object),
  };
}
