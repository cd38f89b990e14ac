/**
 * The record of one write that policies and webhooks match against and evaluate (policy/types
 * AdmissionAttributes), from the admission chain's attributes.
 */
import type { AdmissionAttributes } from '../types';
import type { AdmissionAttributes as PolicyAttributes } from '../../../api/admissionregistration';
import type { UserInfo } from '../../../api/user-info';

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

/** The user as an AdmissionRequest carries it (webhooks' reviews, policies' `request`): groups always, uid and extra when set. */
export function admissionUserInfo(userInfo: UserInfo): Record<string, unknown> {
  return {
    username: userInfo.name,
    ...(userInfo.uid ? { uid: userInfo.uid } : {}),
    groups: [...userInfo.groups],
    ...(userInfo.extra ? { extra: userInfo.extra } : {}),
  };
}
