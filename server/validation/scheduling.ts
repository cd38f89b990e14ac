/** Rules of the scheduling.k8s.io kinds, with the reference's texts. */
import type { KubeObject } from '../../api/objects';
import type { FieldError } from '../status/field-error';
import { FieldPath, forbidden, immutable, notSupported, required } from '../status/field-errors';

const PREEMPTION_POLICIES = ['PreemptLowerPriority', 'Never'];

/** Values above it are the system's own, so that no user's pods can outrank its critical ones. */
const HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000;
const SYSTEM_PREFIX = 'system-';

/**
 * The reference's system priority classes (scheduling/bootstrap-system-priority-classes): the
 * server makes them at start, and a `system-` name must be one of them, with its value.
 */
export const SYSTEM_PRIORITY_CLASSES: readonly KubeObject[] = [
  {
    apiVersion: 'scheduling.k8s.io/v1',
    kind: 'PriorityClass',
    metadata: { name: 'system-node-critical' },
    value: 2000001000,
    description: 'Used for system critical pods that must not be moved from their current node.',
  },
  {
    apiVersion: 'scheduling.k8s.io/v1',
    kind: 'PriorityClass',
    metadata: { name: 'system-cluster-critical' },
    value: 2000000000,
    description:
      'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.',
  },
];

/** Why a `system-` name is refused (the reference's IsKnownSystemPriorityClass), or undefined. */
function systemClassError(name: string, value: unknown, globalDefault: boolean): string | undefined {
  const known = SYSTEM_PRIORITY_CLASSES.find((spc) => spc.metadata.name === name);
  if (known === undefined) return `${name} is not a known system priority class`;
  if (known.value !== value) return `value of ${name} PriorityClass must be ${known.value}`;
  // None of them is the default: pods without a class must not become system-critical.
  if (globalDefault) return `globalDefault of ${name} PriorityClass must be false`;
  return undefined;
}

export function validatePriorityClass(priorityClass: KubeObject): FieldError[] {
  const errors: FieldError[] = [];
  const name = priorityClass.metadata.name ?? '';
  if (name.startsWith(SYSTEM_PREFIX)) {
    const error = systemClassError(name, priorityClass.value, priorityClass.globalDefault === true);
    if (error !== undefined)
      errors.push(
        forbidden(
          FieldPath.root('metadata', 'name'),
          `priority class names with '${SYSTEM_PREFIX}' prefix are reserved for system use only. error: ${error}`,
        ),
      );
  } else if (typeof priorityClass.value === 'number' && priorityClass.value > HIGHEST_USER_DEFINABLE_PRIORITY) {
    errors.push(
      forbidden(
        FieldPath.root('value'),
        `maximum allowed value of a user defined priority is ${HIGHEST_USER_DEFINABLE_PRIORITY}`,
      ),
    );
  }
  errors.push(...preemptionPolicyErrors(priorityClass.preemptionPolicy));
  return errors;
}

/**
 * The preemption policy is a pointer in Go, defaulted only when left out: `""` sent is refused as
 * missing, any other unknown value as unsupported (in Go's order of values).
 */
function preemptionPolicyErrors(policy: unknown): FieldError[] {
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
