/**
 * Node selectors (core/v1 NodeSelector and its terms), as a pod's required and preferred node
 * affinity hold them, after the reference's ValidateNodeSelector and its helpers: the texts,
 * field paths and order of causes are the reference's.
 */
import type { FieldError } from '../status/field-error';
import { FieldPath, invalid, required } from '../status/field-errors';
import { isDNS1123Subdomain, isValidLabelValue } from './names';
import { validateLabelRequirement, type LabelRequirement } from './object-meta';

type NodeSelectorRequirement = LabelRequirement;

export interface NodeSelectorTerm {
  matchExpressions?: (NodeSelectorRequirement | null)[] | null;
  matchFields?: (NodeSelectorRequirement | null)[] | null;
}

export interface NodeSelector {
  nodeSelectorTerms?: (NodeSelectorTerm | null)[] | null;
}

/** A requirement on node fields: only `metadata.name`, compared with In or NotIn to one node name. */
function validateNodeFieldSelectorRequirement(requirement: NodeSelectorRequirement, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const values = requirement.values ?? [];
  if (requirement.operator === 'In' || requirement.operator === 'NotIn') {
    if (values.length !== 1)
      errors.push(
        required(
          path.child('values'),
          "must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
        ),
      );
  } else {
    errors.push(invalid(path.child('operator'), requirement.operator ?? '', 'not a valid selector operator'));
  }
  if (requirement.key !== 'metadata.name') {
    errors.push(invalid(path.child('key'), requirement.key ?? '', 'not a valid field selector key'));
  } else {
    values.forEach((value, i) => {
      for (const message of isDNS1123Subdomain(value))
        errors.push(invalid(path.child('values').index(i), value, message));
    });
  }
  return errors;
}

/**
 * A term: its label requirements and its field requirements. `allowInvalidLabelValues`: leave
 * label values unchecked, as for preferred terms always and for required ones a stored pod
 * spec already has invalid.
 */
export function validateNodeSelectorTerm(
  term: NodeSelectorTerm,
  allowInvalidLabelValues: boolean,
  path: FieldPath,
): FieldError[] {
  return [
    ...(term.matchExpressions ?? []).flatMap((requirement, i) =>
      validateLabelRequirement(requirement ?? {}, path.child('matchExpressions').index(i), {
        allowInvalidLabelValues,
        comparisons: true,
      }),
    ),
    ...(term.matchFields ?? []).flatMap((requirement, i) =>
      validateNodeFieldSelectorRequirement(requirement ?? {}, path.child('matchFields').index(i)),
    ),
  ];
}

/** A selector of at least one term; a node matching any term is selected. */
export function validateNodeSelector(
  selector: NodeSelector,
  allowInvalidLabelValues: boolean,
  path: FieldPath,
): FieldError[] {
  const termsPath = path.child('nodeSelectorTerms');
  const terms = selector.nodeSelectorTerms ?? [];
  if (terms.length === 0) return [required(termsPath, 'must have at least one node selector term')];
  return terms.flatMap((term, i) => validateNodeSelectorTerm(term ?? {}, allowInvalidLabelValues, termsPath.index(i)));
}

/** Whether a label requirement of the terms holds a value that is no label value (the reference's HasInvalidLabelValueInNodeSelectorTerms). */
export function hasInvalidLabelValueInNodeSelectorTerms(
  terms: readonly (NodeSelectorTerm | null)[] | null | undefined,
): boolean {
  return (terms ?? []).some((term) =>
    (term?.matchExpressions ?? []).some((requirement) =>
      (requirement?.values ?? []).some((value) => isValidLabelValue(value).length > 0),
    ),
  );
}

/** A term as the reference prints it as an invalid value: its internal Go struct as JSON. */
export function goNodeSelectorTerm(term: NodeSelectorTerm | null | undefined): unknown {
  const requirements = (list: readonly (NodeSelectorRequirement | null)[] | null | undefined) =>
    list == null
      ? null
      : list.map((requirement) => ({
          Key: requirement?.key ?? '',
          Operator: requirement?.operator ?? '',
          Values: requirement?.values ?? null,
        }));
  return { MatchExpressions: requirements(term?.matchExpressions), MatchFields: requirements(term?.matchFields) };
}

/** Terms as decoded JSON holds them, printed as goNodeSelectorTerm does. */
export function goNodeSelectorTerms(terms: readonly unknown[]): unknown[] {
  return terms.map((term) => goNodeSelectorTerm(term as NodeSelectorTerm | null));
}
