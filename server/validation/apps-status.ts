/**
 * apps/v1 workload status writes, as the reference's Validate*StatusUpdate rules check them: the
 * status alone (the spec is the stored one): counts not negative, no count of pods in a state
 * above the count it is part of, and a collision count never lowered (nor removed), which
 * would let the controller reuse a revision's name.
 */
import type { KubeObject } from '../../api/objects';
import type { FieldError } from '../status/field-error';
import { FieldPath, invalid } from '../status/field-errors';
import { kubeFinalizerListErrors, validateNonnegative, validateObjectMetaUpdate } from './object-meta';

type WorkloadStatus = Record<string, number | undefined>;

const STATUS = FieldPath.root('status');

function statusOf(object: KubeObject): WorkloadStatus {
  return (object.status as WorkloadStatus | undefined) ?? {};
}

function nonnegative(status: WorkloadStatus, fields: readonly string[]): FieldError[] {
  return fields.flatMap((name) => validateNonnegative(status[name], STATUS.child(name)));
}

/** Each field's count above `limit`'s, worded as the reference words that bound. */
function notAbove(status: WorkloadStatus, fields: readonly string[], limit: string, wording: string): FieldError[] {
  return fields.flatMap((name) =>
    // An absent count is Go's zero, as the message shows it.
    (status[name] ?? 0) > (status[limit] ?? 0) ? [invalid(STATUS.child(name), status[name] ?? 0, wording)] : [],
  );
}

/** Lowered or removed: an absent count reads as 0 against a stored one. */
function collisionCountDecremented(status: WorkloadStatus, old: WorkloadStatus): FieldError[] {
  if (old.collisionCount === undefined) return [];
  const count = status.collisionCount;
  return count === undefined || count < old.collisionCount
    ? [invalid(STATUS.child('collisionCount'), count ?? 0, 'cannot be decremented')]
    : [];
}

const ABOVE_REPLICAS = 'cannot be greater than status.replicas';

/**
 * The reference's ValidateStatefulSetStatusUpdate checks the metadata's update itself, between
 * the counts and the collision count, so the kind's status write runs no metadata pass of its own.
 */
export function validateStatefulSetStatusUpdate(statefulSet: KubeObject, old: KubeObject): FieldError[] {
  const status = statusOf(statefulSet);
  return [
    ...nonnegative(status, [
      'replicas',
      'readyReplicas',
      'currentReplicas',
      'updatedReplicas',
      'availableReplicas',
      'observedGeneration',
      'collisionCount',
    ]),
    ...notAbove(
      status,
      ['readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas'],
      'replicas',
      ABOVE_REPLICAS,
    ),
    ...notAbove(status, ['availableReplicas'], 'readyReplicas', 'cannot be greater than status.readyReplicas'),
    ...validateObjectMetaUpdate(statefulSet.metadata, old.metadata),
    ...kubeFinalizerListErrors(statefulSet.metadata.finalizers),
    ...collisionCountDecremented(status, statusOf(old)),
  ];
}

export function validateDeploymentStatusUpdate(deployment: KubeObject, old: KubeObject): FieldError[] {
  const status = statusOf(deployment);
  return [
    ...nonnegative(status, [
      'observedGeneration',
      'replicas',
      'updatedReplicas',
      'readyReplicas',
      'availableReplicas',
      'unavailableReplicas',
      'terminatingReplicas',
      'collisionCount',
    ]),
    ...notAbove(status, ['updatedReplicas', 'readyReplicas', 'availableReplicas'], 'replicas', ABOVE_REPLICAS),
    ...notAbove(status, ['availableReplicas'], 'readyReplicas', 'cannot be greater than readyReplicas'),
    ...collisionCountDecremented(status, statusOf(old)),
  ];
}

export function validateReplicaSetStatusUpdate(replicaSet: KubeObject): FieldError[] {
  const status = statusOf(replicaSet);
  return [
    ...nonnegative(status, [
      'replicas',
      'fullyLabeledReplicas',
      'readyReplicas',
      'availableReplicas',
      'observedGeneration',
      'terminatingReplicas',
    ]),
    ...notAbove(status, ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas'], 'replicas', ABOVE_REPLICAS),
    ...notAbove(status, ['availableReplicas'], 'readyReplicas', 'cannot be greater than readyReplicas'),
  ];
}

/** A DaemonSet's counts bound nothing but themselves: its controller counts nodes, not replicas. */
export function validateDaemonSetStatusUpdate(daemonSet: KubeObject, old: KubeObject): FieldError[] {
  const status = statusOf(daemonSet);
  return [
    ...nonnegative(status, [
      'currentNumberScheduled',
      'numberMisscheduled',
      'desiredNumberScheduled',
      'numberReady',
      'observedGeneration',
      'updatedNumberScheduled',
      'numberAvailable',
      'numberUnavailable',
      'collisionCount',
    ]),
    ...collisionCountDecremented(status, statusOf(old)),
  ];
}
