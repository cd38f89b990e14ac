/** apiregistration.k8s.io/v1: APIServices, which the aggregator (server/aggregator/) serves locally or proxies. */
import { metaTime, type KubeObject } from '../../../api/objects';
import { LOCAL_AVAILABLE, serviceOf } from '../../../api/apiregistration';
import { validateAPIService, validateAPIServiceStatus } from '../../validation/apiregistration';
import { RESET_OBJECT_META_FOR_STATUS } from '../strategy';
import type { ResourceType, WriteContext } from '../types';
import { defineKind } from './define';
import { shapeObject } from '../../schema/go-json-shape';
import { apiServicePrinter } from '../../table/apiservice-printer';
import { METADATA_AND_SPEC } from '../reset-fields';

/** A local APIService is available from its creation on (the reference's PrepareForCreate). */
function markLocalAvailable(object: KubeObject, context: WriteContext): void {
  if (serviceOf(object) !== undefined) return;
  const lastTransitionTime = metaTime(context.now?.() ?? new Date());
  const { type, status, reason, message } = LOCAL_AVAILABLE;
  object.status = { conditions: [{ type, status, lastTransitionTime, reason, message }] };
}

/** What Go's decoding makes of the body; then a service reference without a port means the HTTPS port. */
function defaultAPIService(object: KubeObject, version: string): void {
  shapeObject(`io.k8s.kube-aggregator.pkg.apis.apiregistration.${version}.APIService`, object);
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
      prepareForCreate: markLocalAvailable,
      // The reference's status strategy keeps labels, annotations, finalizers and owners too.
      statusKeepsMetadata: RESET_OBJECT_META_FOR_STATUS,
      validate: validateAPIService,
      updatePasses: ['update', 'create'],
      validateUpdate: (object) => [...validateAPIService(object), ...validateAPIServiceStatus(object)],
    },
  }),
];
