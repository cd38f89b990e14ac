/** storage.k8s.io/v1 resources. */
import { requireFields } from '../../validation/required';
import { fill, type Json } from '../defaults/fill';
import type { ResourceType } from '../types';
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
      validate: requireFields('provisioner'),
    },
  }),
];
