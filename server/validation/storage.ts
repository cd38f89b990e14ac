/** Rules of the storage.k8s.io kinds beyond required fields, with the reference's texts. */
import type { KubeObject } from '../../storage/objects/types';
import type { FieldError } from '../registry/types';
import { FieldPath, invalid, required } from './field-errors';
import { isDNS1123Subdomain } from './names';

/** A VolumeAttachment names its attacher and exactly one source. */
export function validateVolumeAttachment(object: KubeObject): FieldError[] {
  const spec = (object.spec ?? {}) as { attacher?: string; source?: { persistentVolumeName?: string; inlineVolumeSpec?: unknown } };
  const errors: FieldError[] = [];
  const specPath = FieldPath.root('spec');
  if (!spec.attacher) errors.push(required(specPath.child('attacher')));
  const sources = [spec.source?.persistentVolumeName, spec.source?.inlineVolumeSpec].filter((source) => source !== undefined && source !== null && source !== '');
  if (sources.length !== 1) errors.push(required(specPath.child('source'), 'must specify exactly one of inlineVolumeSpec and persistentVolumeName'));
  return errors;
}

/** A VolumeAttributesClass names its driver and carries at least one parameter. */
export function validateVolumeAttributesClass(object: KubeObject): FieldError[] {
  const errors: FieldError[] = [];
  if (!object.driverName) errors.push(required(FieldPath.root('driverName')));
  const parameters = object.parameters as Record<string, string> | undefined;
  if (parameters === undefined || parameters === null || Object.keys(parameters).length === 0) {
    errors.push(required(FieldPath.root('parameters'), 'must contain at least one key/value pair'));
  }
  return errors;
}

/** A CSIStorageCapacity's storage class name is a DNS subdomain. */
export function validateCSIStorageCapacity(object: KubeObject): FieldError[] {
  const name = typeof object.storageClassName === 'string' ? object.storageClassName : '';
  return isDNS1123Subdomain(name).map((message) => invalid(FieldPath.root('storageClassName'), name, message));
}
