/** storagemigration.k8s.io/v1alpha1: StorageVersionMigrations, served while the StorageVersionMigrator gate is on. */
import { storageVersionMigrationPrinter } from '../../table/admin-printers';
import type { ResourceType } from '../types';
import { defineKind } from './define';
import { RESET_OBJECT_META_FOR_STATUS } from '../strategy';
import {
  validateStorageVersionMigration,
  validateStorageVersionMigrationUpdate,
} from '../../validation/storagemigration';
import { METADATA_AND_SPEC } from '../reset-fields';

export const storageMigrationKinds: readonly ResourceType[] = [
  defineKind({
    group: 'storagemigration.k8s.io',
    resource: 'storageversionmigrations',
    requiresResourceVersionOnUpdate: true,
    printer: storageVersionMigrationPrinter,
    kind: 'StorageVersionMigration',
    namespaced: false,
    versions: ['v1alpha1'],
    featureGate: 'StorageVersionMigrator',
    subresources: { status: true },
    statusResetFields: METADATA_AND_SPEC,
    behaviour: {
      initialStatus: () => ({}),
      statusKeepsMetadata: RESET_OBJECT_META_FOR_STATUS,
      updatePasses: ['create', 'update'],
      validate: validateStorageVersionMigration,
      validateUpdate: validateStorageVersionMigrationUpdate,
    },
  }),
];
