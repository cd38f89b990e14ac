/** policy/v1 PodDisruptionBudget rules, after the reference's ValidatePodDisruptionBudgetSpec. */
import type { KubeObject } from '../../api/objects';
import type { FieldError } from '../status/field-error';
import { FieldPath, invalid, notSupported } from '../status/field-errors';
import { validateLabelSelector, type LabelSelectorShape } from './object-meta';

const UNHEALTHY_POD_EVICTION_POLICIES = ['AlwaysAllow', 'IfHealthyBudget'];

interface BudgetSpec {
  minAvailable?: number | string;
  maxUnavailable?: number | string;
  selector?: LabelSelectorShape;
  unhealthyPodEvictionPolicy?: string;
}

export function validatePodDisruptionBudget(budget: KubeObject): FieldError[] {
  const spec = (budget.spec as BudgetSpec | undefined) ?? {};
  const path = FieldPath.root('spec');
  const errors: FieldError[] = [];
  if (spec.minAvailable !== undefined && spec.maxUnavailable !== undefined)
    errors.push(invalid(path, spec, 'minAvailable and maxUnavailable cannot be both set'));
  errors.push(...validateLabelSelector(spec.selector, path.child('selector')));
  const policy = spec.unhealthyPodEvictionPolicy;
  if (policy !== undefined && !UNHEALTHY_POD_EVICTION_POLICIES.includes(policy))
    errors.push(notSupported(path.child('unhealthyPodEvictionPolicy'), policy, UNHEALTHY_POD_EVICTION_POLICIES));
  return errors;
}
