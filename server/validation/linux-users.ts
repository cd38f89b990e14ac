/**
 * The user and group ids a Linux process runs as: non-negative 32-bit numbers (the reference's
 * IsValidUserID and IsValidGroupID), in the security contexts a pod asks for and in the users its
 * container statuses report. A Windows pod's statuses report no Linux user at all; a pod that
 * declares no OS is taken for a Linux one.
 */
import type { FieldError } from '../status/field-error';
import { forbidden, invalid, type FieldPath } from '../status/field-errors';
import { inclusiveRangeError } from './names';

const MAX_ID = 2 ** 31 - 1;

/** A user or group id, when set: within 0 and 2147483647. */
export function idErrors(id: unknown, path: FieldPath): FieldError[] {
  if (typeof id !== 'number' || (id >= 0 && id <= MAX_ID)) return [];
  return [invalid(path, id, inclusiveRangeError(0, MAX_ID))];
}

interface ContainerStatus {
  user?: { linux?: { uid?: unknown; gid?: unknown; supplementalGroups?: unknown[] | null } | null } | null;
}

/** The users one list of container statuses reports, against the pod's declared OS (`osName`). */
export function containerStatusUserErrors(
  statuses: readonly (ContainerStatus | null)[] | undefined,
  osName: string,
  path: FieldPath,
): FieldError[] {
  const errors: FieldError[] = [];
  (statuses ?? []).forEach((status, i) => {
    const linux = status?.user?.linux;
    const at = path.index(i).child('user', 'linux');
    if (osName === 'windows') {
      if (linux !== undefined && linux !== null) errors.push(forbidden(at, 'cannot be set for a windows pod'));
    } else if (osName === 'linux' && linux !== undefined && linux !== null) {
      errors.push(...idErrors(linux.uid, at.child('uid')));
      errors.push(...idErrors(linux.gid, at.child('gid')));
      (linux.supplementalGroups ?? []).forEach((group, g) =>
        errors.push(...idErrors(group, at.child('supplementalGroups').index(g))),
      );
    }
  });
  return errors;
}
