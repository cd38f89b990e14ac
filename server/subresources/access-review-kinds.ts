/**
 * The four access reviews as resources of authorization.k8s.io/v1: create only, nothing stored
 * (virtual), each create answered by the server's authorizer with the review's `status`. They
 * take their handler when the server starts, since it needs the authorizer; decoding,
 * negotiation and errors are the generic handlers' own.
 */
import type { KubeObject } from '../../api/objects';
import type { ResourceRequest } from '../handlers/scope';
import { virtualCreateHandler } from '../handlers/virtual-create';
import '../request/request-context';
import { defineKind } from '../registry/kinds/define';
import type { ResourceType } from '../registry/types';
import {
  localSubjectAccessReview,
  selfSubjectAccessReview,
  selfSubjectRulesReview,
  subjectAccessReview,
  AUTHORIZATION_GROUP,
} from '../authz/access-reviews';
import type { Authorizer } from '../authz/types';

type Answer = (review: KubeObject, request: ResourceRequest) => Promise<KubeObject>;

function reviewKind(resource: string, kind: string, namespaced: boolean, answer: Answer): ResourceType {
  const type = defineKind({ group: AUTHORIZATION_GROUP, resource, kind, namespaced, verbs: ['create'] });
  return { ...type, virtual: true, handlers: { verbs: { create: virtualCreateHandler(answer) } } };
}

export function accessReviewKinds(authorizer: Authorizer): ResourceType[] {
  return [
    reviewKind('subjectaccessreviews', 'SubjectAccessReview', false, (review) =>
      subjectAccessReview(review, authorizer),
    ),
    reviewKind('selfsubjectaccessreviews', 'SelfSubjectAccessReview', false, (review, { req }) =>
      selfSubjectAccessReview(review, req.user, authorizer),
    ),
    reviewKind('selfsubjectrulesreviews', 'SelfSubjectRulesReview', false, (review, { req }) =>
      selfSubjectRulesReview(review, req.user, authorizer),
    ),
    reviewKind('localsubjectaccessreviews', 'LocalSubjectAccessReview', true, (review, { info }) =>
      localSubjectAccessReview(review, info.namespace, authorizer),
    ),
  ];
}
