/** Rules of the scheduling.k8s.io kinds, with the reference's texts. */
import type { KubeObject } from '../../api/objects';
import type { FieldError } from '../status/field-error';
import { FieldPath, forbidden, immutable, notSupported, required } from '../status/field-errors';

const PREEMPTION_POLICIES = ['PreemptLowerPriority', 'Never'];

/**
 * The preemption policy is a pointer in Go, defaulted only when left out: `""` sent is refused as
 * missing, any other unknown value as unsupported (in Go's order of values).
 */
export function validatePriorityClass(priorityClass: KubeObject): FieldError[] {
  const policy = priorityClass.preemptionPolicy;
  const path = FieldPath.root('preemptionPolicy');
  if (policy === undefined || policy === null) return [];
  if (policy === '') return [required(path)];
  return typeof policy === 'string' && PREEMPTION_POLICIES.includes(policy)
    ? []
    : [notSupported(path, policy, PREEMPTION_POLICIES)];
}

/** A PriorityClass's value and preemption policy are fixed once made: pods were admitted by them. */
export function validatePriorityClassUpdate(priorityClass: KubeObject, old: KubeObject): FieldError[] {
  const errors: FieldError[] = [];
  if (priorityClass.value !== old.value)
    errors.push(forbidden(FieldPath.root('value'), 'may not be changed in an update.'));
  errors.push(
    ...immutable(
      FieldPath.root('preemptionPolicy'),
      priorityClass.preemptionPolicy ?? null,
      old.preemptionPolicy ?? null,
    ),
  );
  return errors;
}
