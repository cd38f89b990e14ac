/**
 * What an ephemeral container may not do beyond any container's rules, as the reference's
 * validateEphemeralContainers checks it: it serves debugging and never the pod's own work, so
 * no ports, resources, probes or lifecycle, no sub-path mounts (their bind mounts would outlive
 * it), and a target that is one of the pod's other containers.
 */
import type { FieldError } from '../status/field-error';
import { fieldNotFound, forbidden, type FieldPath } from '../status/field-errors';

type Json = Record<string, unknown>;

const NOT_FOR_EPHEMERAL = 'cannot be set for an Ephemeral Container';
/** The container fields outside the reference's allow list, in its struct's order. */
const FORBIDDEN_FIELDS = [
  'ports',
  'resources',
  'resizePolicy',
  'restartPolicy',
  'restartPolicyRules',
  'livenessProbe',
  'readinessProbe',
  'startupProbe',
  'lifecycle',
] as const;

const isSet = (value: unknown): boolean => value !== undefined && value !== null;

/**
 * Whether a field differs from Go's zero value: an empty list or map counts as set, while the
 * resources struct is set only when one of its members is.
 */
function fieldIsSet(container: Json, member: (typeof FORBIDDEN_FIELDS)[number]): boolean {
  const value = container[member];
  if (member !== 'resources') return isSet(value);
  return isSet(value) && Object.values(value as Json).some(isSet);
}

/** `targets`: the names of the pod's regular and init containers, which one may debug. */
export function ephemeralContainerErrors(container: Json, path: FieldPath, targets: ReadonlySet<string>): FieldError[] {
  const errors: FieldError[] = [];
  const target = typeof container.targetContainerName === 'string' ? container.targetContainerName : '';
  if (target !== '' && !targets.has(target)) errors.push(fieldNotFound(path.child('targetContainerName'), target));
  for (const member of FORBIDDEN_FIELDS)
    if (fieldIsSet(container, member)) errors.push(forbidden(path.child(member), NOT_FOR_EPHEMERAL));
  const mounts = Array.isArray(container.volumeMounts) ? (container.volumeMounts as Json[]) : [];
  mounts.forEach((mount, i) => {
    for (const member of ['subPath', 'subPathExpr'])
      if (typeof mount[member] === 'string' && mount[member] !== '')
        errors.push(forbidden(path.child('volumeMounts').index(i).child(member), NOT_FOR_EPHEMERAL));
  });
  return errors;
}
