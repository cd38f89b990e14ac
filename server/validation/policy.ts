/** policy/v1 PodDisruptionBudget rules, after the reference's ValidatePodDisruptionBudgetSpec. */
import type { KubeObject } from '../../api/objects';
import type { FieldError } from '../status/field-error';
import { FieldPath, GoValue, invalid, notSupported } from '../status/field-errors';
import { notMoreThan100Percent, validatePositiveIntOrPercent } from './apps';
import { validateConditions, type Condition } from './conditions';
import {
  validateLabelSelector,
  validateNonnegative,
  type LabelSelectorOptions,
  type LabelSelectorShape,
} from './object-meta';

const UNHEALTHY_POD_EVICTION_POLICIES = ['AlwaysAllow', 'IfHealthyBudget'];

interface BudgetSpec {
  minAvailable?: number | string;
  maxUnavailable?: number | string;
  selector?: LabelSelectorShape;
  unhealthyPodEvictionPolicy?: string;
}

const specOf = (budget: KubeObject): BudgetSpec => (budget.spec as BudgetSpec | undefined) ?? {};

export function validatePodDisruptionBudget(budget: KubeObject): FieldError[] {
  return validateBudget(budget, { allowInvalidLabelValues: false });
}

/** A stored selector invalid in any way spares the values of the new one, as the reference's strategy allows. */
export function validatePodDisruptionBudgetUpdate(budget: KubeObject, old: KubeObject): FieldError[] {
  const stored = validateLabelSelector(specOf(old).selector, FieldPath.root('spec', 'selector'), {
    allowInvalidLabelValues: false,
  });
  return validateBudget(budget, { allowInvalidLabelValues: stored.length > 0 });
}

/**
 * The spec as the reference prints it here: its internal struct in Go's JSON, members named as
 * declared and in that order, absent pointers null (the selector, a metav1 type, keeps its tags).
 */
function internalBudgetSpec(spec: BudgetSpec): GoValue {
  const orNull = (value: unknown) => (value === undefined ? null : value);
  return new GoValue(
    JSON.stringify({
      MinAvailable: orNull(spec.minAvailable),
      Selector: orNull(spec.selector),
      MaxUnavailable: orNull(spec.maxUnavailable),
      UnhealthyPodEvictionPolicy: orNull(spec.unhealthyPodEvictionPolicy),
    }),
  );
}

function validateBudget(budget: KubeObject, selectorOptions: LabelSelectorOptions): FieldError[] {
  const spec = specOf(budget);
  const path = FieldPath.root('spec');
  const errors: FieldError[] = [];
  if (spec.minAvailable !== undefined && spec.maxUnavailable !== undefined)
    errors.push(invalid(path, internalBudgetSpec(spec), 'minAvailable and maxUnavailable cannot be both set'));
  for (const bound of ['minAvailable', 'maxUnavailable'] as const) {
    const value = spec[bound];
    if (value === undefined) continue;
    errors.push(
      ...validatePositiveIntOrPercent(value, path.child(bound)),
      ...notMoreThan100Percent(value, path.child(bound)),
    );
  }
  errors.push(...validateLabelSelector(spec.selector, path.child('selector'), selectorOptions));
  const policy = spec.unhealthyPodEvictionPolicy;
  if (policy !== undefined && !UNHEALTHY_POD_EVICTION_POLICIES.includes(policy))
    errors.push(notSupported(path.child('unhealthyPodEvictionPolicy'), policy, UNHEALTHY_POD_EVICTION_POLICIES));
  return errors;
}

interface BudgetStatus {
  conditions?: Condition[];
  disruptionsAllowed?: number;
  currentHealthy?: number;
  desiredHealthy?: number;
  expectedPods?: number;
}

/**
 * A status write is judged on its status alone (the reference's status strategy keeps the
 * spec): the conditions as metav1 conditions, and no count below zero.
 */
export function validatePodDisruptionBudgetStatusUpdate(budget: KubeObject): FieldError[] {
  const status = (budget.status as BudgetStatus | undefined) ?? {};
  const path = FieldPath.root('status');
  return [
    ...validateConditions(status.conditions ?? [], path.child('conditions')),
    ...(['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods'] as const).flatMap((count) =>
      validateNonnegative(status[count], path.child(count)),
    ),
  ];
}
