/**
 * What a PersistentVolumeClaim's status write may hold, as the reference's
 * ValidatePersistentVolumeClaimStatusUpdate judges it (recovery from expansion failure on, as in
 * 1.34): access modes in the spec kept as stored (a claim stored without them has every status
 * write refused; the reference's path is capitalized), capacity amounts not below zero, then the
 * resize status of each resource, then the amounts allocated to each. Its `resourceVersion`
 * check never fires: the store gives a write without one the stored version first. Resources there are keyed by qualified names, `storage` alone among
 * the native ones.
 */
import type { KubeObject } from '../../api/objects';
import { parseQuantity, valueRoundedUp } from '../quantity/quantity';
import type { FieldError } from '../status/field-error';
import { FieldPath, GoValue, invalid, notSupported, required } from '../status/field-errors';
import { isQualifiedName } from './names';
import { isNativeResource } from './resource-requirements';

/** The resize states, sorted as the reference lists them. */
const RESIZE_STATUSES = [
  'ControllerResizeInProgress',
  'ControllerResizeInfeasible',
  'NodeResizeInProgress',
  'NodeResizeInfeasible',
  'NodeResizePending',
];

type Entries = Record<string, unknown>;

const entriesOf = (value: unknown): [string, unknown][] =>
  typeof value === 'object' && value !== null ? Object.entries(value as Entries) : [];

/** A claim's resource key: a qualified name, and `storage` if it is a native one. Errors name the list, not the key. */
export function validateClaimResourceKey(name: string, path: FieldPath): FieldError[] {
  const messages = isQualifiedName(name);
  if (messages.length > 0) return messages.map((message) => invalid(path, name, message));
  return isNativeResource(name) && name !== 'storage' ? [notSupported(path, name, ['storage'])] : [];
}

/**
 * An amount whose whole value (rounded away from zero) is negative; the reference prints that
 * value, not the amount. Since it rounds away from zero, no negative amount escapes, and the
 * quantity rules the reference runs after this one on allocated storage never find more.
 */
function negativeAmount(written: unknown, path: FieldPath): FieldError[] {
  const amount =
    typeof written === 'string' || typeof written === 'number' ? parseQuantity(String(written)) : undefined;
  if (amount === undefined) return [];
  const value = valueRoundedUp(amount, 1n);
  return value < 0n ? [invalid(path, new GoValue(String(value)), 'must be a valid resource quantity')] : [];
}

export function validatePersistentVolumeClaimStatus(claim: KubeObject): FieldError[] {
  const status = (claim.status ?? {}) as Entries;
  const accessModes = ((claim.spec ?? {}) as Entries).accessModes;
  const errors =
    Array.isArray(accessModes) && accessModes.length > 0 ? [] : [required(FieldPath.root('Spec', 'accessModes'))];
  errors.push(
    ...entriesOf(status.capacity).flatMap(([name, amount]) =>
      negativeAmount(amount, FieldPath.root('status', 'capacity').key(name)),
    ),
  );
  const statusesPath = FieldPath.root('status', 'allocatedResourceStatuses');
  for (const [name, state] of entriesOf(status.allocatedResourceStatuses)) {
    errors.push(...validateClaimResourceKey(name, statusesPath));
    // The reference shows the resource's name, not its state, as the unsupported value.
    if (!RESIZE_STATUSES.includes(state as string)) errors.push(notSupported(statusesPath, name, RESIZE_STATUSES));
  }
  const allocatedPath = FieldPath.root('status', 'allocatedResources');
  for (const [name, amount] of entriesOf(status.allocatedResources)) {
    const keyErrors = validateClaimResourceKey(name, allocatedPath);
    errors.push(...(keyErrors.length > 0 ? keyErrors : negativeAmount(amount, allocatedPath.key(name))));
  }
  return errors;
}
