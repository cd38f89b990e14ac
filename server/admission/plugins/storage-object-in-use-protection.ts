/**
 * StorageObjectInUseProtection: new claims and volumes carry the protection finalizers, so
 * that deleting one still in use only marks it; the controller manager's protection
 * controllers remove the finalizer once nothing uses it.
 */
import { writes } from '../lookup';
import type { AdmissionPlugin } from '../types';

const FINALIZERS: ReadonlyArray<[string, string]> = [
  ['persistentvolumeclaims', 'kubernetes.io/pvc-protection'],
  ['persistentvolumes', 'kubernetes.io/pv-protection'],
];

export function storageObjectInUseProtectionPlugin(): AdmissionPlugin {
  return {
    name: 'StorageObjectInUseProtection',
    async admit(attributes) {
      if (attributes.operation !== 'CREATE' || attributes.object === undefined) return;
      const finalizer = FINALIZERS.find(([resource]) => writes(attributes, '', resource))?.[1];
      if (finalizer === undefined) return;
      const meta = attributes.object.metadata;
      const finalizers = meta.finalizers ?? [];
      if (!finalizers.includes(finalizer)) meta.finalizers = [...finalizers, finalizer];
    },
  };
}
