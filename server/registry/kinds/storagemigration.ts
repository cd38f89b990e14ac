/** storagemigration.k8s.io/v1alpha1: StorageVersionMigrations, served while the StorageVersionMigrator gate is on. */
import { storageVersionMigrationPrinter } from '../../table/admin-printers';
import type { ResourceType } from '../types';
import { defineKind } from './define';

export const storageMigrationKinds: readonly ResourceType[] = [
  defineKind({
    group: 'storagemigration.k8s.io',
    resource: 'storageversionmigrations',
    printer: storageVersionMigrationPrinter,
    kind: 'StorageVersionMigration',
    namespaced: false,
    versions: ['v1alpha1'],
    featureGate: 'StorageVersionMigrator',
    subresources: { status: true },
    behaviour: { initialStatus: () => ({}) },
  }),
];
