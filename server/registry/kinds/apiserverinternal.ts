/** internal.apiserver.k8s.io/v1alpha1: StorageVersions, where API servers record the version each writes a resource in. */
import { storageVersionPrinter } from '../../table/admin-printers';
import type { ResourceType } from '../types';
import { defineKind } from './define';
import { RESET_OBJECT_META_FOR_STATUS } from '../strategy';
import { METADATA_AND_SPEC } from '../reset-fields';

export const apiserverInternalKinds: readonly ResourceType[] = [
  defineKind({
    group: 'internal.apiserver.k8s.io',
    resource: 'storageversions',
    requiresResourceVersionOnUpdate: true,
    printer: storageVersionPrinter,
    kind: 'StorageVersion',
    namespaced: false,
    versions: ['v1alpha1'],
    nameRule: 'group-resource',
    subresources: { status: true },
    statusResetFields: METADATA_AND_SPEC,
    // Its update checks nothing of its own, its status write keeps the stored metadata.
    behaviour: {
      initialStatus: () => ({}),
      updatePasses: [],
      statusKeepsMetadata: RESET_OBJECT_META_FOR_STATUS,
    },
  }),
];
