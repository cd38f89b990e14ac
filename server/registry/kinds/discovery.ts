/** discovery.k8s.io/v1 resources. */
import { items } from '../defaults/fill';
import { validateEndpointSlice, validateEndpointSliceUpdate } from '../../validation/discovery';
import type { ResourceType } from '../types';
import { defineKind } from './define';
import { endpointSlicePrinter } from '../../table/admin-printers';

export const discoveryKinds: readonly ResourceType[] = [
  defineKind({
    group: 'discovery.k8s.io',
    resource: 'endpointslices',
    printer: endpointSlicePrinter,
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
      validateUpdate: validateEndpointSliceUpdate,
    },
  }),
];
