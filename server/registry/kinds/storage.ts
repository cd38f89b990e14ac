/** storage.k8s.io/v1 resources, with the defaults a 1.34 server fills. */
import { csiStorageCapacityWarnings, storageClassWarnings } from '../../validation/storage-warnings';
import {
  validateCSINode,
  validateCSIStorageCapacity,
  validateStorageClass,
  validateStorageClassUpdate,
  validateNewVolumeAttachment,
  validateVolumeAttachment,
  validateVolumeAttributesClass,
  validateVolumeAttributesClassUpdate,
  validateCSIDriver,
  validateCSIDriverUpdate,
  validateCSINodeUpdate,
  validateCSIStorageCapacityUpdate,
  validateVolumeAttachmentUpdate,
} from '../../validation/storage';
import { child, fill, fillWhenEmpty, items, type Json } from '../defaults/fill';
import type { ResourceType } from '../types';
import { RESET_OBJECT_META_FOR_STATUS } from '../strategy';
import { defineKind } from './define';
import { dropDisabledFieldsOf, gatedField } from './gated-fields';
import {
  csiDriverPrinter,
  csiNodePrinter,
  volumeAttachmentPrinter,
  volumeAttributesClassPrinter,
} from '../../table/device-printers';
import { storageClassPrinter } from '../../table/admin-printers';
import { METADATA_AND_SPEC } from '../reset-fields';

export const storageKinds: readonly ResourceType[] = [
  defineKind({
    group: 'storage.k8s.io',
    resource: 'storageclasses',
    returnsDeletedObject: true,
    printer: storageClassPrinter,
    kind: 'StorageClass',
    namespaced: false,
    shortNames: ['sc'],
    behaviour: {
      updatePasses: ['create', 'createRules', 'update', 'updateRules'],
      defaults: (storageClass) => {
        fill(storageClass as Json, 'reclaimPolicy', 'Delete');
        fill(storageClass as Json, 'volumeBindingMode', 'Immediate');
      },
      validate: validateStorageClass,
      validateUpdate: validateStorageClassUpdate,
      warnings: storageClassWarnings,
    },
  }),
  defineKind({
    group: 'storage.k8s.io',
    resource: 'csidrivers',
    requiresResourceVersionOnUpdate: true,
    returnsDeletedObject: true,
    printer: csiDriverPrinter,
    kind: 'CSIDriver',
    namespaced: false,
    behaviour: {
      tracksGeneration: 'on-update',
      defaults: (driver, _version, featureEnabled) => {
        const spec = child(driver as Json, 'spec');
        fill(spec, 'attachRequired', true);
        fill(spec, 'podInfoOnMount', false);
        fill(spec, 'storageCapacity', false);
        fill(spec, 'fsGroupPolicy', 'ReadWriteOnceWithFSType');
        fill(spec, 'requiresRepublish', false);
        if (featureEnabled('SELinuxMountReadWriteOncePod')) fill(spec, 'seLinuxMount', false);
        fillWhenEmpty(spec, 'volumeLifecycleModes', ['Persistent']);
      },
      dropDisabledFields: dropDisabledFieldsOf([
        gatedField('SELinuxMountReadWriteOncePod', 'spec.seLinuxMount'),
        gatedField('MutableCSINodeAllocatableCount', 'spec.nodeAllocatableUpdatePeriodSeconds'),
      ]),
      validate: validateCSIDriver,
      validateUpdate: validateCSIDriverUpdate,
    },
  }),
  defineKind({
    group: 'storage.k8s.io',
    resource: 'csinodes',
    requiresResourceVersionOnUpdate: true,
    returnsDeletedObject: true,
    printer: csiNodePrinter,
    kind: 'CSINode',
    namespaced: false,
    behaviour: {
      updatePasses: ['create', 'createRules', 'create', 'createRules', 'updateRules'],
      // The reference's Go type has no omitempty on topologyKeys: a driver without keys says null
      // (stored in protobuf, which has no empty list, it reads back as null from the decoder).
      defaults: (node) => {
        for (const driver of items((node as Json).spec as Json | undefined, 'drivers'))
          if (!('topologyKeys' in driver)) driver.topologyKeys = null;
      },
      validate: validateCSINode,
      validateUpdate: validateCSINodeUpdate,
    },
  }),
  defineKind({
    group: 'storage.k8s.io',
    resource: 'csistoragecapacities',
    requiresResourceVersionOnUpdate: true,
    kind: 'CSIStorageCapacity',
    namespaced: true,
    behaviour: {
      updatePasses: ['create', 'createRules', 'update', 'updateRules'],
      validate: (capacity) => validateCSIStorageCapacity(capacity),
      validateOnUpdate: (capacity, old) => validateCSIStorageCapacity(capacity, old),
      validateUpdate: validateCSIStorageCapacityUpdate,
      warnings: csiStorageCapacityWarnings,
    },
  }),
  defineKind({
    group: 'storage.k8s.io',
    resource: 'volumeattachments',
    requiresResourceVersionOnUpdate: true,
    printer: volumeAttachmentPrinter,
    returnsDeletedObject: true,
    kind: 'VolumeAttachment',
    namespaced: false,
    subresources: { status: true },
    statusResetFields: METADATA_AND_SPEC,
    behaviour: {
      updatePasses: ['create', 'createRules', 'create', 'createRules', 'updateRules'],
      // The reference's status strategy validates as its main one (the metadata it resets).
      statusUpdatePasses: ['create', 'createRules', 'create', 'createRules', 'updateRules'],
      initialStatus: () => ({ attached: false }),
      statusKeepsMetadata: RESET_OBJECT_META_FOR_STATUS,
      // Error codes of attach and detach failures, each kept while the stored attachment has it.
      dropDisabledFields: dropDisabledFieldsOf([
        gatedField('MutableCSINodeAllocatableCount', 'status.attachError.errorCode'),
        gatedField('MutableCSINodeAllocatableCount', 'status.detachError.errorCode'),
      ]),
      validate: validateNewVolumeAttachment,
      validateOnUpdate: validateVolumeAttachment,
      validateUpdate: validateVolumeAttachmentUpdate,
    },
  }),
  defineKind({
    group: 'storage.k8s.io',
    resource: 'volumeattributesclasses',
    returnsDeletedObject: true,
    printer: volumeAttributesClassPrinter,
    kind: 'VolumeAttributesClass',
    namespaced: false,
    // Field-identical in all three: a version is an apiVersion.
    versions: ['v1', 'v1beta1', 'v1alpha1'],
    // The reference's storage factory keeps writing v1beta1.
    encodedVersion: 'v1beta1',
    shortNames: ['vac'],
    behaviour: {
      updatePasses: ['create', 'createRules', 'update', 'updateRules', 'create', 'createRules'],
      validate: validateVolumeAttributesClass,
      validateUpdate: validateVolumeAttributesClassUpdate,
    },
  }),
];
