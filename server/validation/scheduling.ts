/** Rules of the scheduling.k8s.io kinds, with the reference's texts. */
import type { KubeObject } from '../../api/objects';
import type { FieldError } from '../status/field-error';
import { FieldPath, forbidden, immutable } from '../status/field-errors';

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
