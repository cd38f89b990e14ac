/**
 * How a container reaches the pod's volumes, as the reference's ValidateVolumeMounts and
 * ValidateVolumeDevices check it: a mount (a filesystem at a path) or a device (a raw block
 * volume at a device path) names a volume of the pod that passed its own checks, and no volume
 * or path is taken both ways. The reference reports a mount's sub-path, propagation and
 * recursive read-only problems at `volumeMounts.<member>`, without the mount's index.
 */
import type { FieldError } from '../status/field-error';
import { fieldNotFound, type FieldPath, forbidden, invalid, notSupported, required } from '../status/field-errors';
import { localDescendingPathErrors, pathNoBackstepsErrors } from './volume-file-paths';
import type { Volume } from './volume-sources';

export interface VolumeMount {
  name?: string;
  mountPath?: string;
  subPath?: string;
  subPathExpr?: string;
  readOnly?: boolean;
  mountPropagation?: string;
  recursiveReadOnly?: string;
}

export interface VolumeDevice {
  name?: string;
  devicePath?: string;
}

const MOUNT_PROPAGATIONS = ['Bidirectional', 'HostToContainer', 'None'];
const RECURSIVE_READ_ONLY_MODES = ['Disabled', 'Enabled', 'IfPossible'];

/** Name to path, the later entry winning, as the reference's GetVolumeMountMap and GetVolumeDeviceMap. */
function pathsByName(entries: readonly (VolumeMount | VolumeDevice)[], pathOf: (entry: never) => string | undefined) {
  return new Map(entries.map((entry) => [entry.name ?? '', pathOf(entry as never) ?? '']));
}

/** Bidirectional propagation reaches back into the host's mounts, which only a privileged container may do. */
function mountPropagationErrors(propagation: string, privileged: boolean, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  if (!MOUNT_PROPAGATIONS.includes(propagation)) errors.push(notSupported(path, propagation, MOUNT_PROPAGATIONS));
  if (propagation === 'Bidirectional' && !privileged)
    errors.push(forbidden(path, 'Bidirectional mount propagation is available only to privileged containers'));
  return errors;
}

/** A recursive read-only mount is a read-only one whose sub-mounts cannot propagate in. */
function recursiveReadOnlyErrors(mount: VolumeMount, path: FieldPath): FieldError[] {
  const mode = mount.recursiveReadOnly;
  if (mode === undefined || mode === 'Disabled') return [];
  if (!RECURSIVE_READ_ONLY_MODES.includes(mode)) return [notSupported(path, mode, RECURSIVE_READ_ONLY_MODES)];
  const errors: FieldError[] = [];
  if (mount.readOnly !== true) errors.push(forbidden(path, 'may only be specified when readOnly is true'));
  if (mount.mountPropagation !== undefined && mount.mountPropagation !== 'None')
    errors.push(forbidden(path, 'may only be specified when mountPropagation is None or not specified'));
  return errors;
}

export function validateVolumeMounts(
  mounts: readonly VolumeMount[],
  devices: readonly VolumeDevice[],
  volumes: ReadonlyMap<string, Volume>,
  privileged: boolean,
  path: FieldPath,
): FieldError[] {
  const errors: FieldError[] = [];
  const devicePaths = pathsByName(devices, (device: VolumeDevice) => device.devicePath);
  const mountPaths = new Set<string>();
  mounts.forEach((mount, i) => {
    const at = path.index(i);
    const name = mount.name ?? '';
    const mountPath = mount.mountPath ?? '';
    if (name === '') errors.push(required(at.child('name')));
    if (!volumes.has(name)) errors.push(fieldNotFound(at.child('name'), name));
    if (mountPath === '') errors.push(required(at.child('mountPath')));
    if (mountPaths.has(mountPath)) errors.push(invalid(at.child('mountPath'), mountPath, 'must be unique'));
    mountPaths.add(mountPath);
    if (devicePaths.has(name)) errors.push(invalid(at.child('name'), name, 'must not already exist in volumeDevices'));
    if ([...devicePaths.values()].includes(mountPath))
      errors.push(invalid(at.child('mountPath'), mountPath, 'must not already exist as a path in volumeDevices'));
    if (mount.subPath) errors.push(...localDescendingPathErrors(mount.subPath, path.child('subPath')));
    if (mount.subPathExpr) {
      if (mount.subPath)
        errors.push(
          invalid(at.child('subPathExpr'), mount.subPathExpr, 'subPathExpr and subPath are mutually exclusive'),
        );
      errors.push(...localDescendingPathErrors(mount.subPathExpr, path.child('subPathExpr')));
    }
    if (mount.mountPropagation !== undefined)
      errors.push(...mountPropagationErrors(mount.mountPropagation, privileged, path.child('mountPropagation')));
    errors.push(...recursiveReadOnlyErrors(mount, path.child('recursiveReadOnly')));
  });
  return errors;
}

/** Only a claim (named, or made for an ephemeral volume) can be handed to a container as a raw block device. */
function isClaim(volume: Volume): boolean {
  return (
    (volume.persistentVolumeClaim !== undefined && volume.persistentVolumeClaim !== null) ||
    (volume.ephemeral !== undefined && volume.ephemeral !== null)
  );
}

export function validateVolumeDevices(
  devices: readonly VolumeDevice[],
  mounts: readonly VolumeMount[],
  volumes: ReadonlyMap<string, Volume>,
  path: FieldPath,
): FieldError[] {
  const errors: FieldError[] = [];
  const mountPaths = pathsByName(mounts, (mount: VolumeMount) => mount.mountPath);
  const devicePaths = new Set<string>();
  const deviceNames = new Set<string>();
  devices.forEach((device, i) => {
    const at = path.index(i);
    const name = device.name ?? '';
    const devicePath = device.devicePath ?? '';
    const volume = volumes.get(name);
    if (name === '') errors.push(required(at.child('name')));
    if (deviceNames.has(name)) errors.push(invalid(at.child('name'), name, 'must be unique'));
    if (volume !== undefined && !isClaim(volume))
      errors.push(
        invalid(
          at.child('name'),
          name,
          'can only use volume source type of PersistentVolumeClaim or Ephemeral for block mode',
        ),
      );
    if (volume === undefined) errors.push(fieldNotFound(at.child('name'), name));
    if (devicePath === '') errors.push(required(at.child('devicePath')));
    if (devicePaths.has(devicePath)) errors.push(invalid(at.child('devicePath'), devicePath, 'must be unique'));
    if (devicePath !== '' && pathNoBackstepsErrors(devicePath, at.child('devicePath')).length > 0)
      errors.push(invalid(at.child('devicePath'), devicePath, "can not contain backsteps ('..')"));
    else devicePaths.add(devicePath);
    if (mountPaths.has(name)) errors.push(invalid(at.child('name'), name, 'must not already exist in volumeMounts'));
    if ([...mountPaths.values()].includes(devicePath))
      errors.push(invalid(at.child('devicePath'), devicePath, 'must not already exist as a path in volumeMounts'));
    if (name !== '') deviceNames.add(name);
  });
  return errors;
}
