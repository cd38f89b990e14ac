/**
 * `POST /apis/authentication.k8s.io/v1/tokenreviews`: does this bearer token authenticate, and
 * as whom? The token goes through the same token methods a request's bearer token does, for
 * the audiences asked (the API server's own when none). The answer echoes the request with
 * `status` filled, as the reference's does.
 */
import { badRequest, internalError } from '../../status/catalogue';
import { INVALID_BEARER_TOKEN } from '../bearer-token';
import { intersectAudiences } from '../audiences';
import { withAuthenticatedGroup } from '../authenticated-group';
import type { TokenAuthenticator } from '../types';
import { reviewBody } from './review-body';
import { userInfoObject, type UserInfoObject } from './user-info';

export const TOKEN_REVIEW_VERSION = 'authentication.k8s.io/v1';

export interface TokenReviewStatus {
  authenticated?: boolean;
  /** `{}` when no user authenticated: Go writes the empty struct. */
  user?: UserInfoObject | Record<string, never>;
  audiences?: string[];
  error?: string;
}

export interface TokenReview {
  kind: 'TokenReview';
  apiVersion: string;
  metadata: Record<string, unknown>;
  spec: { token?: string; audiences?: string[] };
  status: TokenReviewStatus;
}

export interface TokenReviewInput {
  readonly body: unknown;
  /** From the URL: a TokenReview is cluster-scoped. */
  readonly namespace: string;
  readonly tokens: TokenAuthenticator;
  readonly apiAudiences: readonly string[];
}

export async function tokenReview(input: TokenReviewInput): Promise<TokenReview> {
  const body = reviewBody(input.body, { kind: 'TokenReview', apiVersion: TOKEN_REVIEW_VERSION });
  if (input.namespace !== '') throw badRequest(`namespace is not allowed on this type: ${input.namespace}`);
  const spec = (body.spec ?? {}) as TokenReview['spec'];
  if (typeof spec.token !== 'string' || spec.token === '')
    throw badRequest('token is required for TokenReview in authentication');
  if (
    // null is Go's nil slice: no audiences, as when absent.
    spec.audiences != null &&
    !(Array.isArray(spec.audiences) && spec.audiences.every((a) => typeof a === 'string'))
  ) {
    throw badRequest('TokenReview.spec.audiences: expected a list of strings');
  }
  const audiences = spec.audiences && spec.audiences.length > 0 ? spec.audiences : [...input.apiAudiences];
  const metadata =
    typeof body.metadata === 'object' && body.metadata !== null ? (body.metadata as Record<string, unknown>) : {};
  const review: TokenReview = {
    kind: 'TokenReview',
    apiVersion: TOKEN_REVIEW_VERSION,
    metadata,
    spec,
    status: {},
  };

  const result = (await input.tokens.authenticateToken(spec.token, audiences)) ?? { error: INVALID_BEARER_TOKEN };
  if ('error' in result) {
    // Go's JSON of the status: `authenticated: false` is left out, the user (a struct) is not.
    review.status = { user: {}, error: result.error };
    return review;
  }
  const matched = result.audiences ?? [];
  // A method that vouched for a token meant for someone else is broken: the reference fails the review.
  if (audiences.length > 0 && intersectAudiences(audiences, matched).length === 0)
    throw internalError('error validating audiences');
  review.status = {
    authenticated: true,
    user: userInfoObject(withAuthenticatedGroup(result.user)),
    audiences: [...matched],
  };
  return review;
}
