/** An image pull policy, a container's or an image volume's, as the reference's validatePullPolicy checks it. */
import type { FieldError } from '../status/field-error';
import type { FieldPath } from '../status/field-errors';
import { validateEnum } from './object-meta';

const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'];

/** Required (the defaults fill it), and one of the three. */
export function validatePullPolicy(policy: string | undefined, path: FieldPath): FieldError[] {
  return validateEnum(policy, PULL_POLICIES, path, true);
}
