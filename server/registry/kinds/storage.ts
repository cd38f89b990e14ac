/** storage.k8s.io/v1 resources, with the defaults a 1.34 server fills. */
import { validateCSINode, validateCSIStorageCapacity, validateStorageClass, validateVolumeAttachment, validateVolumeAttributesClass } from '../../validation/storage';
import { child, fill, items, type Json } from '../defaults/fill';
import type { ResourceType } from '../types';
import { RESET_OBJECT_META_FOR_STATUS } from '../strategy';
import { defineKind } from './define';

export const storageKinds: readonly ResourceType[] = [
  defineKind({
    group: 'storage.k8s.io',
    resource: 'storageclasses',
    kind: 'StorageClass',
    namespaced: false,
    shortNames: ['sc'],
    behaviour: {
      defaults: (storageClass) => {
        fill(storageClass as Json, 'reclaimPolicy', 'Delete');
        fill(storageClass as Json, 'volumeBindingMode', 'Immediate');
      },
      validate: validateStorageClass,
    },
  }),
  defineKind({
    group: 'storage.k8s.io',
    resource: 'csidrivers',
    kind: 'CSIDriver',
    namespaced: false,
    behaviour: {
      defaults: (driver) => {
        const spec = child(driver as Json, 'spec');
        fill(spec, 'attachRequired', true);
        fill(spec, 'podInfoOnMount', false);
        fill(spec, 'storageCapacity', false);
        fill(spec, 'fsGroupPolicy', 'ReadWriteOnceWithFSType');
        fill(spec, 'requiresRepublish', false);
        fill(spec, 'seLinuxMount', false);
        fill(spec, 'volumeLifecycleModes', ['Persistent']);
      },
    },
  }),
  defineKind({
    group: 'storage.k8s.io',
    resource: 'csinodes',
    kind: 'CSINode',
    namespaced: false,
    behaviour: {
      // The reference's Go type has no omitempty on topologyKeys: a driver without keys says null.
      defaults: (node) => {
        for (const driver of items((node as Json).spec as Json | undefined, 'drivers')) if (!('topologyKeys' in driver)) driver.topologyKeys = null;
      },
      validate: validateCSINode,
    },
  }),
  defineKind({
    group: 'storage.k8s.io',
    resource: 'csistoragecapacities',
    kind: 'CSIStorageCapacity',
    namespaced: true,
    behaviour: { validate: validateCSIStorageCapacity },
  }),
  defineKind({
    group: 'storage.k8s.io',
    resource: 'volumeattachments',
    returnsDeletedObject: true,
    kind: 'VolumeAttachment',
    namespaced: false,
    subresources: { status: true },
    behaviour: { initialStatus: () => ({ attached: false }), statusKeepsMetadata: RESET_OBJECT_META_FOR_STATUS, validate: validateVolumeAttachment },
  }),
  defineKind({
    group: 'storage.k8s.io',
    resource: 'volumeattributesclasses',
    kind: 'VolumeAttributesClass',
    namespaced: false,
    shortNames: ['vac'],
    behaviour: { validate: validateVolumeAttributesClass },
  }),
];
