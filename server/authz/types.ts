/**
 * Authorization: may this user do this? Each mode is one `Authorizer`; `union` chains them.
 * What they are asked is a plain `Attributes` record, not an HTTP request, so the handler chain,
 * the access reviews and the CEL authorizer library all ask the same authorizer the same way.
 */
import type { UserInfo } from '../../api/user-info';
import type { RequestInfo } from '../request/request-info';
import type { FieldRequirement } from '../selectors/field-selector';
import type { LabelRequirement } from '../selectors/label-selector';

export interface Attributes {
  readonly user: UserInfo;
  /** The API verb (get, list, create, ..., impersonate, bind, escalate) or, off the API, the lowercase HTTP method. */
  readonly verb: string;
  readonly isResourceRequest: boolean;
  /** The request path; what non-resource rules match. */
  readonly path: string;
  readonly namespace: string;
  readonly apiGroup: string;
  readonly apiVersion: string;
  readonly resource: string;
  readonly subresource: string;
  readonly name: string;
  /** The requirements of a list's, watch's or deletecollection's selectors, when it has them. */
  readonly fieldSelector?: readonly FieldRequirement[];
  readonly labelSelector?: readonly LabelRequirement[];
}

/** `no-opinion` lets the next authorizer decide; when all have none, the request is denied. */
export type Decision = 'allow' | 'deny' | 'no-opinion';

export interface AuthorizationResult {
  readonly decision: Decision;
  /** Appended to the Forbidden message when the request is denied. */
  readonly reason: string;
}

export interface ResourceRule {
  readonly verbs: readonly string[];
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly resourceNames?: readonly string[];
}

export interface NonResourceRule {
  readonly verbs: readonly string[];
  readonly nonResourceURLs?: readonly string[];
}

/** What a user may do in a namespace, as far as a mode can tell (SelfSubjectRulesReview, `kubectl auth can-i --list`). */
export interface SubjectRules {
  readonly resourceRules: readonly ResourceRule[];
  readonly nonResourceRules: readonly NonResourceRule[];
  /** True when some mode cannot list what it would allow (a webhook). */
  readonly incomplete: boolean;
  readonly evaluationErrors: readonly string[];
}

export interface Authorizer {
  authorize(attributes: Attributes): AuthorizationResult | Promise<AuthorizationResult>;
  /** The rules this mode grants; absent when it cannot tell, which makes a listing incomplete. */
  rulesFor?(user: UserInfo, namespace: string): SubjectRules | Promise<SubjectRules>;
}

export const NO_RULES: SubjectRules = {
  resourceRules: [],
  nonResourceRules: [],
  incomplete: false,
  evaluationErrors: [],
};

export const ALL_RULES: SubjectRules = {
  resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
  nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
  incomplete: false,
  evaluationErrors: [],
};

export const NO_OPINION: AuthorizationResult = { decision: 'no-opinion', reason: '' };
export const ALLOW: AuthorizationResult = { decision: 'allow', reason: '' };

export type AttributeOverrides = Partial<Omit<Attributes, 'user'>>;

/** The attributes of a request as the request-info stage resolved it, with some fields replaced (an extra verb). */
export function attributesFrom(info: RequestInfo, user: UserInfo, overrides: AttributeOverrides = {}): Attributes {
  return {
    user,
    verb: info.verb,
    isResourceRequest: info.isResourceRequest,
    path: info.path,
    namespace: info.namespace,
    apiGroup: info.apiGroup,
    apiVersion: info.apiVersion,
    resource: info.resource,
    subresource: info.subresource,
    name: info.name,
    ...overrides,
  };
}

/** The attributes of a request off the API (a path check, a review's nonResourceAttributes): only verb and path. */
export function nonResourceAttributes(user: UserInfo, verb: string, path: string): Attributes {
  return {
    user,
    verb,
    isResourceRequest: false,
    path,
    namespace: '',
    apiGroup: '',
    apiVersion: '',
    resource: '',
    subresource: '',
    name: '',
  };
}
