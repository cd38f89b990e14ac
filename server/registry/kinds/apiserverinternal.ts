/** internal.apiserver.k8s.io/v1alpha1: StorageVersions, where API servers record the version each writes a resource in. */
import { storageVersionPrinter } from '../../table/admin-printers';
import type { ResourceType } from '../types';
import { defineKind } from './define';

export const apiserverInternalKinds: readonly ResourceType[] = [
  defineKind({
    group: 'internal.apiserver.k8s.io',
    resource: 'storageversions',
    printer: storageVersionPrinter,
    kind: 'StorageVersion',
    namespaced: false,
    versions: ['v1alpha1'],
    subresources: { status: true },
    behaviour: { initialStatus: () => ({}) },
  }),
];
