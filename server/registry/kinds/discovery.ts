/** discovery.k8s.io/v1 resources. */
import { items } from '../defaults/fill';
import { validateEndpointSlice } from '../../validation/discovery';
import type { ResourceType } from '../types';
import { defineKind } from './define';

export const discoveryKinds: readonly ResourceType[] = [
  defineKind({
    group: 'discovery.k8s.io',
    resource: 'endpointslices',
    allowCreateOnUpdate: true,
    kind: 'EndpointSlice',
    namespaced: true,
    behaviour: {
      defaults: (slice) => {
        for (const port of items(slice, 'ports')) {
          if (port.protocol === undefined) port.protocol = 'TCP';
          if (port.name === undefined) port.name = '';
        }
      },
      tracksGeneration: true,
      validate: validateEndpointSlice,
    },
  }),
];
