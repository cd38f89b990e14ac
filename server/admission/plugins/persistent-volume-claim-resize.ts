/**
 * PersistentVolumeClaimResize: a claim may ask for more storage only once bound, and only when
 * it keeps the class that provisioned it and that StorageClass says `allowVolumeExpansion`, so
 * that no one asks a volume plugin for a growth it cannot give. Shrinking is validation's call.
 */
import { refusedName } from '../refused-name';
import type { KubeObject } from '../../../api/objects';
import { parseQuantity } from '../../quantity/quantity';
import { forbidden } from '../../status/catalogue';
import { getCached, type StorageOf } from '../lookup';
import type { AdmissionPlugin } from '../types';

/** The legacy annotation wins over spec.storageClassName, as the reference reads a claim's class. */
const LEGACY_STORAGE_CLASS = 'volume.beta.kubernetes.io/storage-class';

type Fields = Record<string, unknown>;
const record = (value: unknown): Fields =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Fields) : {};

function classOf(claim: KubeObject): string {
  const annotated = claim.metadata.annotations?.[LEGACY_STORAGE_CLASS];
  if (annotated !== undefined) return annotated;
  const name = record(claim.spec).storageClassName;
  return typeof name === 'string' ? name : '';
}

function requestedStorage(claim: KubeObject) {
  const text = record(record(record(claim.spec).resources).requests).storage;
  return parseQuantity(typeof text === 'string' ? text : '0') ?? parseQuantity('0')!;
}

export function persistentVolumeClaimResizePlugin(storageOf: StorageOf): AdmissionPlugin {
  return {
    name: 'PersistentVolumeClaimResize',
    async validate(attributes) {
      const { resource, subResource, object, oldObject } = attributes;
      if (resource.group !== '' || resource.resource !== 'persistentvolumeclaims' || subResource !== '') return;
      if (object === undefined || oldObject === undefined) return;
      if (requestedStorage(object).compareTo(requestedStorage(oldObject)) <= 0) return;
      const refuse = (reason: string) => forbidden(resource, refusedName(attributes), reason);
      if (record(oldObject.status).phase !== 'Bound')
        throw refuse('Only bound persistent volume claims can be expanded');
      const className = classOf(object);
      const storageClass =
        className !== '' && className === classOf(oldObject)
          ? await getCached(storageOf('storage.k8s.io', 'storageclasses'), className)
          : undefined;
      if (storageClass?.allowVolumeExpansion !== true) {
        throw refuse(
          'only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize',
        );
      }
    },
  };
}
