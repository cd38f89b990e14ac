/**
 * StorageObjectInUseProtection: new claims, volumes and volume attributes classes carry the
 * protection finalizers, so that deleting one still in use only marks it; the controller
 * manager's protection controllers (capstan's storage protection) remove the finalizer once
 * nothing uses it. Classes only with the VolumeAttributesClass gate, as the reference's.
 */
import { writes } from '../lookup';
import type { AdmissionPlugin } from '../types';

const FINALIZERS: ReadonlyArray<readonly [group: string, resource: string, finalizer: string]> = [
  ['', 'persistentvolumeclaims', 'kubernetes.io/pvc-protection'],
  ['', 'persistentvolumes', 'kubernetes.io/pv-protection'],
  ['storage.k8s.io', 'volumeattributesclasses', 'kubernetes.io/vac-protection'],
];

export function storageObjectInUseProtectionPlugin(options: { volumeAttributesClasses: boolean }): AdmissionPlugin {
  const protectedKinds = FINALIZERS.filter(([, resource]) =>
    resource === 'volumeattributesclasses' ? options.volumeAttributesClasses : true,
  );
  return {
    name: 'StorageObjectInUseProtection',
    async admit(attributes) {
      if (attributes.operation !== 'CREATE' || attributes.object === undefined) return;
      const finalizer = protectedKinds.find(([group, resource]) => writes(attributes, group, resource))?.[2];
      if (finalizer === undefined) return;
      const meta = attributes.object.metadata;
      const finalizers = meta.finalizers ?? [];
      if (!finalizers.includes(finalizer)) meta.finalizers = [...finalizers, finalizer];
    },
  };
}
