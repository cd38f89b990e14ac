/** discovery.k8s.io/v1 resources. */
import { endpointSliceWarnings } from '../../validation/write-warnings';
import { fill, items } from '../defaults/fill';
import { validateEndpointSlice, validateEndpointSliceUpdate } from '../../validation/discovery';
import type { ResourceType } from '../types';
import { defineKind } from './define';
import { dropDisabledFieldsOf, isSet, listAt, objectAt } from './gated-fields';

/** Endpoints' hints: the per-node ones kept while any endpoint of the stored slice has them. */
const dropDisabledEndpointSliceFields = dropDisabledFieldsOf([
  {
    gates: ['PreferSameTrafficDistribution'],
    inUse: (slice) => listAt(slice, 'endpoints').some((endpoint) => isSet(objectAt(endpoint, 'hints')?.forNodes)),
    drop: (slice) => {
      for (const endpoint of listAt(slice, 'endpoints')) delete objectAt(endpoint, 'hints')?.forNodes;
    },
  },
]);
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
      updatePasses: ['create'],
      defaults: (slice) => {
        for (const port of items(slice, 'ports')) {
          fill(port, 'protocol', 'TCP');
          fill(port, 'name', '');
        }
      },
      tracksGeneration: true,
      dropDisabledFields: dropDisabledEndpointSliceFields,
      validate: validateEndpointSlice,
      validateUpdate: validateEndpointSliceUpdate,
      warnings: endpointSliceWarnings,
    },
  }),
];
