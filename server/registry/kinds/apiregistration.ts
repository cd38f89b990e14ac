/** apiregistration.k8s.io/v1: APIServices, which the aggregator (server/aggregator/) serves locally or proxies. */
import type { KubeObject } from '../../../api/objects';
import { validateAPIService, validateAPIServiceStatus } from '../../validation/apiregistration';
import { RESET_OBJECT_META_FOR_STATUS } from '../strategy';
import type { ResourceType } from '../types';
import { defineKind } from './define';
import { apiServicePrinter } from '../../table/apiservice-printer';
import { METADATA_AND_SPEC } from '../reset-fields';

/** A service reference without a port means the HTTPS port. */
function defaultAPIService(object: KubeObject): void {
  const service = (object.spec as { service?: { port?: number } | null } | undefined)?.service;
  if (service !== undefined && service !== null && service.port === undefined) service.port = 443;
}

export const apiregistrationKinds: readonly ResourceType[] = [
  defineKind({
    group: 'apiregistration.k8s.io',
    resource: 'apiservices',
    requiresResourceVersionOnUpdate: true,
    printer: apiServicePrinter,
    kind: 'APIService',
    namespaced: false,
    // Where the reference's aggregator keeps them (its resources carry their group).
    storagePrefix: 'apiregistration.k8s.io/apiservices',
    definitionPrefix: 'io.k8s.kube-aggregator.pkg.apis.apiregistration',
    nameRule: 'path-segment',
    categories: ['api-extensions'],
    subresources: { status: true },
    statusResetFields: METADATA_AND_SPEC,
    behaviour: {
      defaults: defaultAPIService,
      initialStatus: () => ({}),
      // The reference's status strategy keeps labels, annotations, finalizers and owners too.
      statusKeepsMetadata: RESET_OBJECT_META_FOR_STATUS,
      validate: validateAPIService,
      updatePasses: ['update', 'create'],
      validateUpdate: (object) => [...validateAPIService(object), ...validateAPIServiceStatus(object)],
    },
  }),
];
