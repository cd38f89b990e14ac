/**
 * The scheduling parts of a pod spec (tolerations, topology spread constraints, scheduling and
 * readiness gates) and Node taints, after the reference's rules and texts.
 */
import type { FieldError } from '../status/field-error';
import { duplicate, FieldPath, forbidden, GoValue, invalid, notSupported, required } from '../status/field-errors';
import { internalCompactJson } from './internal-json';
import { validateMatchLabelKeysAndMismatchLabelKeys } from './pod-affinity';
import { isValidLabelValue } from './names';
import { labelSelectorParses, validateLabelName, validateLabelSelector, type LabelSelectorShape } from './object-meta';

// In the reference's order, which its message keeps.
const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];
const TOLERATION_OPERATORS = ['Equal', 'Exists'];
const WHEN_UNSATISFIABLE = ['DoNotSchedule', 'ScheduleAnyway'];
const NODE_INCLUSION_POLICIES = ['Honor', 'Ignore'];

function validateTaintEffect(effect: string | undefined, allowEmpty: boolean, path: FieldPath): FieldError[] {
  if (!effect) return allowEmpty ? [] : [required(path)];
  return TAINT_EFFECTS.includes(effect) ? [] : [notSupported(path, effect, TAINT_EFFECTS)];
}

/** A pod's toleration (core/v1 Toleration). */
export interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}

/** A toleration but for its tolerationSeconds (its list key), absent members as Go's zero values. */
export function tolerationIdentity({ key, operator, value, effect }: Toleration): string {
  return JSON.stringify([key ?? '', operator ?? '', value ?? '', effect ?? '']);
}

export function validateTolerations(tolerations: readonly Toleration[] | undefined, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  (tolerations ?? []).forEach((toleration, i) => {
    const at = path.index(i);
    const key = toleration.key ?? '';
    const operator = toleration.operator ?? '';
    const value = toleration.value ?? '';
    if (key !== '') errors.push(...validateLabelName(key, at.child('key')));
    if (key === '' && operator !== 'Exists') {
      errors.push(
        invalid(
          at.child('operator'),
          operator,
          'operator must be Exists when `key` is empty, which means "match all values and all keys"',
        ),
      );
    }
    if (toleration.tolerationSeconds !== undefined && toleration.effect !== 'NoExecute') {
      errors.push(
        invalid(
          at.child('effect'),
          toleration.effect ?? '',
          "effect must be 'NoExecute' when `tolerationSeconds` is set",
        ),
      );
    }
    if (operator === '' || operator === 'Equal') {
      const messages = isValidLabelValue(value);
      if (messages.length > 0) errors.push(invalid(at.child('operator'), value, messages.join(';')));
    } else if (operator === 'Exists') {
      if (value !== '')
        errors.push(invalid(at.child('operator'), value, "value must be empty when `operator` is 'Exists'"));
    } else {
      errors.push(notSupported(at.child('operator'), operator, TOLERATION_OPERATORS));
    }
    errors.push(...validateTaintEffect(toleration.effect, true, at.child('effect')));
  });
  return errors;
}

interface Taint {
  key?: string;
  value?: string;
  effect?: string;
}

/**
 * A Node's taints: a qualified key, a label value, a known effect, one taint per key and
 * effect. The reference reports them under `metadata.taints`, and so do we.
 */
export function validateNodeTaints(taints: readonly Taint[] | undefined): FieldError[] {
  const errors: FieldError[] = [];
  const path = FieldPath.root('metadata', 'taints');
  const seen = new Set<string>();
  (taints ?? []).forEach((taint, i) => {
    const at = path.index(i);
    const key = taint.key ?? '';
    errors.push(...validateLabelName(key, at.child('key')));
    const valueMessages = isValidLabelValue(taint.value ?? '');
    if (valueMessages.length > 0) errors.push(invalid(at.child('value'), taint.value ?? '', valueMessages.join(';')));
    errors.push(...validateTaintEffect(taint.effect, false, at.child('effect')));
    const identity = `${key}\u0000${taint.effect ?? ''}`;
    if (seen.has(identity)) {
      // Printed as the internal struct it is in the reference, every field and Go's names.
      const repeated = duplicate(at, new GoValue(internalCompactJson('core.Taint', taint)));
      errors.push({ ...repeated, detail: `${repeated.detail}: taints must be unique by key and effect pair` });
    }
    seen.add(identity);
  });
  return errors;
}

interface TopologySpreadConstraint {
  matchLabelKeys?: string[] | null;
  maxSkew?: number;
  topologyKey?: string;
  whenUnsatisfiable?: string;
  minDomains?: number;
  nodeAffinityPolicy?: string;
  nodeTaintsPolicy?: string;
  labelSelector?: LabelSelectorShape | null;
}

function positive(value: number, path: FieldPath): FieldError[] {
  return value > 0 ? [] : [invalid(path, value, 'must be greater than zero')];
}

/**
 * Whether a stored spec has a spread constraint whose labelSelector is invalid in any way: an
 * update of it then leaves the selectors unchecked, as the reference's
 * AllowInvalidTopologySpreadConstraintLabelSelector does.
 */
export function hasInvalidTopologySpreadSelector(constraints: unknown): boolean {
  return (
    Array.isArray(constraints) &&
    (constraints as TopologySpreadConstraint[]).some(
      (constraint) => !labelSelectorParses(constraint?.labelSelector ?? undefined),
    )
  );
}

/**
 * How a spread constraint's matchLabelKeys are checked. `merged`: as pod affinity's, since a new
 * pod's selector has been given the keys' requirements (a key the selector selects on then shows
 * up twice); `legacy`: no key may be one the selector selects on at all.
 */
export type SpreadMatchLabelKeysRule = 'merged' | 'legacy';

/** The legacy rule (the reference's ValidateMatchLabelKeysInTopologySpread). */
function legacyMatchLabelKeysErrors(constraint: TopologySpreadConstraint, path: FieldPath): FieldError[] {
  const keys = constraint.matchLabelKeys ?? [];
  if (keys.length === 0) return [];
  const selector = constraint.labelSelector;
  const errors: FieldError[] = [];
  const selected = new Set([
    ...Object.keys(selector?.matchLabels ?? {}),
    ...(selector?.matchExpressions ?? []).map((expression) => expression.key),
  ]);
  if (selector == null) errors.push(forbidden(path, 'must not be specified when labelSelector is not set'));
  keys.forEach((key, i) => {
    errors.push(...validateLabelName(key, path.index(i)));
    if (selected.has(key)) errors.push(invalid(path.index(i), key, 'exists in both matchLabelKeys and labelSelector'));
  });
  return errors;
}

function matchLabelKeysErrors(
  constraint: TopologySpreadConstraint,
  rule: SpreadMatchLabelKeysRule,
  path: FieldPath,
): FieldError[] {
  return rule === 'merged'
    ? validateMatchLabelKeysAndMismatchLabelKeys(constraint, path)
    : legacyMatchLabelKeysErrors(constraint, path.child('matchLabelKeys'));
}

/**
 * Whether a stored spec has a spread constraint whose matchLabelKeys the rule refuses: an update
 * of it then checks them by the other rule, so that the pod stays editable.
 */
export function violatesSpreadMatchLabelKeysRule(constraints: unknown, rule: SpreadMatchLabelKeysRule): boolean {
  return (
    Array.isArray(constraints) &&
    (constraints as TopologySpreadConstraint[]).some(
      (constraint) => matchLabelKeysErrors(constraint ?? {}, rule, FieldPath.root()).length > 0,
    )
  );
}

/**
 * `checkLabelSelectors`: check each labelSelector strictly, values included (off for a stored
 * spec with invalid ones); `matchLabelKeysRule`: how matchLabelKeys are checked.
 */
export function validateTopologySpreadConstraints(
  constraints: readonly TopologySpreadConstraint[] | undefined,
  path: FieldPath,
  {
    checkLabelSelectors,
    matchLabelKeysRule,
  }: { readonly checkLabelSelectors: boolean; readonly matchLabelKeysRule: SpreadMatchLabelKeysRule },
): FieldError[] {
  const errors: FieldError[] = [];
  const all = constraints ?? [];
  all.forEach((constraint, i) => {
    const at = path.index(i);
    const whenUnsatisfiable = constraint.whenUnsatisfiable ?? '';
    errors.push(...positive(constraint.maxSkew ?? 0, at.child('maxSkew')));
    if (!constraint.topologyKey) errors.push(required(at.child('topologyKey'), 'can not be empty'));
    if (!WHEN_UNSATISFIABLE.includes(whenUnsatisfiable))
      errors.push(notSupported(at.child('whenUnsatisfiable'), whenUnsatisfiable, WHEN_UNSATISFIABLE));
    const repeated = all
      .slice(i + 1)
      .some(
        (other) =>
          (other.topologyKey ?? '') === (constraint.topologyKey ?? '') &&
          (other.whenUnsatisfiable ?? '') === whenUnsatisfiable,
      );
    if (repeated)
      errors.push(
        duplicate(
          at.child('{topologyKey, whenUnsatisfiable}'),
          `{${constraint.topologyKey ?? ''}, ${whenUnsatisfiable}}`,
        ),
      );
    if (constraint.minDomains !== undefined) {
      errors.push(...positive(constraint.minDomains, at.child('minDomains')));
      if (whenUnsatisfiable !== 'DoNotSchedule') {
        errors.push(
          invalid(
            at.child('minDomains'),
            constraint.minDomains,
            `can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ${whenUnsatisfiable}`,
          ),
        );
      }
    }
    for (const policy of ['nodeAffinityPolicy', 'nodeTaintsPolicy'] as const) {
      const value = constraint[policy];
      if (value !== undefined && !NODE_INCLUSION_POLICIES.includes(value))
        errors.push(notSupported(at.child(policy), value, NODE_INCLUSION_POLICIES));
    }
    errors.push(...matchLabelKeysErrors(constraint, matchLabelKeysRule, at));
    if (checkLabelSelectors)
      errors.push(
        ...validateLabelSelector(constraint.labelSelector ?? undefined, at.child('labelSelector'), {
          allowInvalidLabelValues: false,
        }),
      );
  });
  return errors;
}

export function validateSchedulingGates(
  gates: readonly { name?: string }[] | undefined,
  path: FieldPath,
): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  (gates ?? []).forEach((gate, i) => {
    const name = gate.name ?? '';
    errors.push(...validateLabelName(name, path.index(i)));
    if (seen.has(name)) errors.push(duplicate(path.index(i), name));
    seen.add(name);
  });
  return errors;
}

export function validateReadinessGates(
  gates: readonly { conditionType?: string }[] | undefined,
  path: FieldPath,
): FieldError[] {
  return (gates ?? []).flatMap((gate, i) =>
    validateLabelName(gate.conditionType ?? '', path.index(i).child('conditionType')),
  );
}
