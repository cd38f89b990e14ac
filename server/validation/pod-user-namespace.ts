/**
 * A pod in a user namespace of its own (`hostUsers: false`, with UserNamespacesSupport), as the
 * reference's validateHostUsers and ValidateSecurityContext judge it: such a pod shares no other
 * namespace with the host, and its containers take no raw block devices (which are neither
 * id-mapped nor given to the pod's users), unless the stored spec already had some; an Unmasked
 * /proc is only for such a pod.
 */
import type { FieldError } from '../status/field-error';
import { FieldPath, forbidden, invalid, notSupported } from '../status/field-errors';
import { containersOf, type ContainerLists } from './pod-containers';

export interface UserNamespacePodSpec extends ContainerLists<{ volumeDevices?: readonly unknown[] | null } | null> {
  hostUsers?: unknown;
  hostNetwork?: unknown;
  hostPID?: unknown;
  hostIPC?: unknown;
}

const WHEN_OWN_USER_NAMESPACE = 'when `hostUsers` is false';
/** In the reference's order, which its message keeps. */
const PROC_MOUNT_TYPES = ['Default', 'Unmasked'];

/** Whether the pod's users are the host's: they are unless `hostUsers` is false. */
export function sharesHostUsers(spec: { hostUsers?: unknown } | undefined): boolean {
  return spec?.hostUsers !== false;
}

function hasVolumeDevices(container: { volumeDevices?: readonly unknown[] | null } | null): boolean {
  return (container?.volumeDevices?.length ?? 0) > 0;
}

/** Whether a stored spec already gives a container volume devices in the pod's own user namespace. */
export function usesVolumeDevicesInUserNamespace(spec: UserNamespacePodSpec | undefined): boolean {
  if (spec === undefined || sharesHostUsers(spec)) return false;
  return containersOf(spec, FieldPath.root('spec')).some(([container]) => hasVolumeDevices(container));
}

/**
 * The host namespaces a pod with its own users may not join, then its containers' volume devices
 * (init, regular, ephemeral), unless `allowVolumeDevices`. The paths of hostPID and hostIPC keep
 * the reference's capitals (`spec.HostPID`).
 */
export function validateHostUsers(
  spec: UserNamespacePodSpec,
  specPath: FieldPath,
  { allowVolumeDevices }: { readonly allowVolumeDevices: boolean },
): FieldError[] {
  if (sharesHostUsers(spec)) return [];
  const errors: FieldError[] = [];
  if (spec.hostNetwork === true) errors.push(forbidden(specPath.child('hostNetwork'), WHEN_OWN_USER_NAMESPACE));
  if (spec.hostPID === true) errors.push(forbidden(specPath.child('HostPID'), WHEN_OWN_USER_NAMESPACE));
  if (spec.hostIPC === true) errors.push(forbidden(specPath.child('HostIPC'), WHEN_OWN_USER_NAMESPACE));
  if (!allowVolumeDevices)
    for (const [container, path] of containersOf(spec, specPath))
      if (hasVolumeDevices(container)) errors.push(forbidden(path.child('volumeDevices'), WHEN_OWN_USER_NAMESPACE));
  return errors;
}

/** A container's /proc mount type: a known one, and Unmasked only where the pod has its own users. */
export function procMountErrors(procMount: unknown, hostUsers: boolean, path: FieldPath): FieldError[] {
  if (procMount === undefined || procMount === null) return [];
  const errors: FieldError[] = [];
  if (!PROC_MOUNT_TYPES.includes(procMount as string)) errors.push(notSupported(path, procMount, PROC_MOUNT_TYPES));
  if (hostUsers && procMount === 'Unmasked')
    errors.push(invalid(path, procMount, '`hostUsers` must be false to use `Unmasked`'));
  return errors;
}
