/**
 * A pod spec's `affinity`: node affinity (a required node selector and weighted preferred
 * terms) and pod (anti-)affinity terms, after the reference's validateAffinity, with its
 * field paths, texts and order of causes, its quirks included (`namespace` for an entry of
 * `namespaces`, unindexed; a key in both matchLabelKeys and the labelSelector named at the
 * term's path with the key's index).
 */
import type { FieldError } from '../status/field-error';
import { FieldPath, forbidden, invalid, required } from '../status/field-errors';
import { isDNS1123Label } from './names';
import {
  hasInvalidLabelValueInNodeSelectorTerms,
  validateNodeSelector,
  validateNodeSelectorTerm,
} from './node-selector';
import type { NodeSelector, NodeSelectorTerm } from './node-selector';
import { validateLabelName, validateLabelSelector, type LabelSelectorShape } from './object-meta';

export interface PodAffinityTerm {
  labelSelector?: LabelSelectorShape | null;
  namespaceSelector?: LabelSelectorShape | null;
  namespaces?: string[] | null;
  topologyKey?: string;
  matchLabelKeys?: string[] | null;
  mismatchLabelKeys?: string[] | null;
}

interface WeightedPodAffinityTerm {
  weight?: number;
  podAffinityTerm?: PodAffinityTerm | null;
}

interface PodAffinity {
  requiredDuringSchedulingIgnoredDuringExecution?: (PodAffinityTerm | null)[] | null;
  preferredDuringSchedulingIgnoredDuringExecution?: (WeightedPodAffinityTerm | null)[] | null;
}

interface NodeAffinity {
  requiredDuringSchedulingIgnoredDuringExecution?: NodeSelector | null;
  preferredDuringSchedulingIgnoredDuringExecution?:
    ({ weight?: number; preference?: NodeSelectorTerm | null } | null)[] | null;
}

export interface Affinity {
  nodeAffinity?: NodeAffinity | null;
  podAffinity?: PodAffinity | null;
  podAntiAffinity?: PodAffinity | null;
}

/** What an update spares of a stored spec's affinity, as the reference's PodValidationOptions. */
export interface AffinityOptions {
  /** The values of pod (anti-)affinity terms' selectors go unchecked: the stored spec has an invalid selector there. */
  readonly allowInvalidLabelValueInAffinitySelector: boolean;
  /** The values of required node affinity go unchecked: the stored spec has an invalid one there. */
  readonly allowInvalidLabelValueInRequiredNodeAffinity: boolean;
}

function weightErrors(weight: number | undefined, path: FieldPath): FieldError[] {
  const value = weight ?? 0;
  return value >= 1 && value <= 100 ? [] : [invalid(path, value, 'must be in the range 1-100')];
}

function validateNodeAffinity(affinity: NodeAffinity, options: AffinityOptions, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const required = affinity.requiredDuringSchedulingIgnoredDuringExecution;
  if (required != null)
    errors.push(
      ...validateNodeSelector(
        required,
        options.allowInvalidLabelValueInRequiredNodeAffinity,
        path.child('requiredDuringSchedulingIgnoredDuringExecution'),
      ),
    );
  const preferredPath = path.child('preferredDuringSchedulingIgnoredDuringExecution');
  (affinity.preferredDuringSchedulingIgnoredDuringExecution ?? []).forEach((term, i) => {
    const at = preferredPath.index(i);
    errors.push(...weightErrors(term?.weight, at.child('weight')));
    // Preferred terms may name label values no node has: with one node they still schedule.
    errors.push(...validateNodeSelectorTerm(term?.preference ?? {}, true, at.child('preference')));
  });
  return errors;
}

/** The two selectors of a term (the reference's ValidatePodAffinityTermSelector). */
function validateTermSelectors(term: PodAffinityTerm, allowInvalidLabelValues: boolean, path: FieldPath): FieldError[] {
  const options = { allowInvalidLabelValues };
  return [
    ...validateLabelSelector(term.labelSelector ?? undefined, path.child('labelSelector'), options),
    ...validateLabelSelector(term.namespaceSelector ?? undefined, path.child('namespaceSelector'), options),
  ];
}

function validateLabelKeys(
  keys: readonly string[],
  selector: LabelSelectorShape | undefined,
  path: FieldPath,
): FieldError[] {
  if (keys.length === 0) return [];
  if (selector === undefined) return [forbidden(path, 'must not be specified when labelSelector is not set')];
  return keys.flatMap((key, i) => validateLabelName(key, path.index(i)));
}

/**
 * matchLabelKeys and mismatchLabelKeys: label keys, only beside a labelSelector, and none in
 * both lists. A matchLabelKeys key may not also be selected on by the labelSelector; on a pod's
 * create the selector has by now been given an `In` expression for each such key the pod has a
 * label of, so a key the selector already selects on shows up twice.
 */
export function validateMatchLabelKeysAndMismatchLabelKeys(term: PodAffinityTerm, path: FieldPath): FieldError[] {
  const matchLabelKeys = term.matchLabelKeys ?? [];
  const mismatchLabelKeys = term.mismatchLabelKeys ?? [];
  const selector = term.labelSelector ?? undefined;
  const errors = [
    ...validateLabelKeys(matchLabelKeys, selector, path.child('matchLabelKeys')),
    ...validateLabelKeys(mismatchLabelKeys, selector, path.child('mismatchLabelKeys')),
  ];
  if (selector !== undefined) {
    const indexOfKey = new Map(matchLabelKeys.map((key, i) => [key, i]));
    const selected = new Set(Object.keys(selector.matchLabels ?? {}));
    for (const expression of selector.matchExpressions ?? []) {
      const key = expression?.key ?? '';
      const i = indexOfKey.get(key);
      if (i !== undefined && selected.has(key))
        errors.push(invalid(path.index(i), key, 'exists in both matchLabelKeys and labelSelector'));
      selected.add(key);
    }
  }
  const mismatched = new Set(mismatchLabelKeys);
  matchLabelKeys.forEach((key, i) => {
    if (mismatched.has(key))
      errors.push(
        invalid(path.child('matchLabelKeys').index(i), key, 'exists in both matchLabelKeys and mismatchLabelKeys'),
      );
  });
  return errors;
}

function validatePodAffinityTerm(
  term: PodAffinityTerm,
  allowInvalidLabelValues: boolean,
  path: FieldPath,
): FieldError[] {
  const errors = validateTermSelectors(term, allowInvalidLabelValues, path);
  for (const namespace of term.namespaces ?? [])
    for (const message of isDNS1123Label(namespace)) errors.push(invalid(path.child('namespace'), namespace, message));
  errors.push(...validateMatchLabelKeysAndMismatchLabelKeys(term, path));
  const topologyKey = term.topologyKey ?? '';
  if (topologyKey === '') errors.push(required(path.child('topologyKey'), 'can not be empty'));
  errors.push(...validateLabelName(topologyKey, path.child('topologyKey')));
  return errors;
}

function validatePodAffinity(affinity: PodAffinity, allowInvalidLabelValues: boolean, path: FieldPath): FieldError[] {
  const requiredPath = path.child('requiredDuringSchedulingIgnoredDuringExecution');
  const preferredPath = path.child('preferredDuringSchedulingIgnoredDuringExecution');
  return [
    ...(affinity.requiredDuringSchedulingIgnoredDuringExecution ?? []).flatMap((term, i) =>
      validatePodAffinityTerm(term ?? {}, allowInvalidLabelValues, requiredPath.index(i)),
    ),
    ...(affinity.preferredDuringSchedulingIgnoredDuringExecution ?? []).flatMap((weighted, i) => [
      ...weightErrors(weighted?.weight, preferredPath.index(i).child('weight')),
      ...validatePodAffinityTerm(
        weighted?.podAffinityTerm ?? {},
        allowInvalidLabelValues,
        preferredPath.index(i).child('podAffinityTerm'),
      ),
    ]),
  ];
}

export function validateAffinity(
  affinity: Affinity | null | undefined,
  options: AffinityOptions,
  path: FieldPath,
): FieldError[] {
  if (affinity == null) return [];
  const errors: FieldError[] = [];
  if (affinity.nodeAffinity != null)
    errors.push(...validateNodeAffinity(affinity.nodeAffinity, options, path.child('nodeAffinity')));
  for (const kind of ['podAffinity', 'podAntiAffinity'] as const) {
    const podAffinity = affinity[kind];
    if (podAffinity != null)
      errors.push(
        ...validatePodAffinity(podAffinity, options.allowInvalidLabelValueInAffinitySelector, path.child(kind)),
      );
  }
  return errors;
}

/** Every pod (anti-)affinity term of the affinity, required and preferred. */
function podAffinityTerms(affinity: Affinity | null | undefined): PodAffinityTerm[] {
  return [affinity?.podAffinity, affinity?.podAntiAffinity].flatMap((podAffinity) => [
    ...(podAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []).map((term) => term ?? {}),
    ...(podAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? []).map(
      (weighted) => weighted?.podAffinityTerm ?? {},
    ),
  ]);
}

/** What a stored spec's affinity lets an update of it keep (the reference's GetValidationOptionsFromPodSpecAndMeta). */
export function affinityOptionsOf(stored: Affinity | null | undefined): AffinityOptions {
  return {
    allowInvalidLabelValueInAffinitySelector: podAffinityTerms(stored).some(
      (term) => validateTermSelectors(term, false, FieldPath.root()).length > 0,
    ),
    allowInvalidLabelValueInRequiredNodeAffinity: hasInvalidLabelValueInNodeSelectorTerms(
      stored?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms,
    ),
  };
}
