/**
 * The record of one write that policies and webhooks match against and evaluate (policy/types
 * AdmissionAttributes), from the admission chain's attributes.
 */
import type { AdmissionAttributes } from '../types';
import type { AdmissionAttributes as PolicyAttributes } from '../../../api/admissionregistration';

/** The chain's attributes as the matching rules and expressions read them. */
export function matchingAttributes(attributes: AdmissionAttributes): PolicyAttributes {
  return {
    operation: attributes.operation,
    resource: attributes.resource,
    kind: attributes.kind,
    subresource: attributes.subResource,
    namespace: attributes.namespace,
    name: attributes.name,
    object: attributes.object ?? null,
    oldObject: attributes.oldObject ?? null,
    userInfo: attributes.userInfo,
    dryRun: attributes.dryRun,
    options: attributes.options,
  };
}
