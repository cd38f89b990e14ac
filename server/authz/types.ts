/** Authorization: may this user do this request? Each mode is one `Authorizer`; `union` chains them. */
import type { UserInfo } from '../authn/types';
import type { RequestInfo } from '../http/request-info';

export interface Attributes {
  readonly user: UserInfo;
  readonly request: RequestInfo;
}

/** `no-opinion` lets the next authorizer decide; when all have none, the request is denied. */
export type Decision = 'allow' | 'deny' | 'no-opinion';

export interface AuthorizationResult {
  readonly decision: Decision;
  /** Appended to the Forbidden message when the request is denied. */
  readonly reason: string;
}

export interface Authorizer {
  authorize(attributes: Attributes): AuthorizationResult | Promise<AuthorizationResult>;
}

export const NO_OPINION: AuthorizationResult = { decision: 'no-opinion', reason: '' };
export const ALLOW: AuthorizationResult = { decision: 'allow', reason: '' };
