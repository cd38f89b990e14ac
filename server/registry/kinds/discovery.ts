/** discovery.k8s.io/v1 resources. */
import { endpointSliceWarnings } from '../../validation/write-warnings';
import { fill, items } from '../defaults/fill';
import { validateEndpointSlice, validateEndpointSliceUpdate } from '../../validation/discovery';
import type { ResourceType } from '../types';
import { defineKind } from './define';
import { dropDisabledFieldsOf, isSet, listAt, objectAt } from './gated-fields';
import { endpointSlicePrinter } from '../../table/admin-printers';
import type { KubeObject } from '../../../api/objects';
import { deepEqual } from '../../status/field-errors';
import { isDNS1123Subdomain } from '../../validation/names';

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

const HOSTNAME_LABEL = 'kubernetes.io/hostname';

/**
 * The v1 API takes no endpoint's deprecatedTopology (the reference's dropTopologyOnV1): it is
 * dropped from every endpoint of a write that changes the endpoints. An update whose endpoint
 * lost its nodeName keeps, as its nodeName, a hostname label the stored slice's topology held.
 */
function dropDeprecatedTopology(slice: KubeObject, old?: KubeObject): void {
  if (old !== undefined && deepEqual(old.endpoints ?? [], slice.endpoints ?? [])) return;
  const previousNodeNames = new Set<string>();
  for (const endpoint of listAt(old ?? {}, 'endpoints')) {
    const name = objectAt(endpoint, 'deprecatedTopology')?.[HOSTNAME_LABEL];
    if (typeof name === 'string' && name !== '') previousNodeNames.add(name);
  }
  for (const endpoint of listAt(slice, 'endpoints')) {
    const name = objectAt(endpoint, 'deprecatedTopology')?.[HOSTNAME_LABEL];
    if (
      endpoint.nodeName === undefined &&
      typeof name === 'string' &&
      previousNodeNames.has(name) &&
      isDNS1123Subdomain(name).length === 0
    )
      endpoint.nodeName = name;
    delete endpoint.deprecatedTopology;
  }
}

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
      prepareForCreate: (slice) => dropDeprecatedTopology(slice),
      prepareForUpdate: (slice, old) => dropDeprecatedTopology(slice, old),
      dropDisabledFields: dropDisabledEndpointSliceFields,
      validate: validateEndpointSlice,
      validateUpdate: validateEndpointSliceUpdate,
      warnings: endpointSliceWarnings,
    },
  }),
];
