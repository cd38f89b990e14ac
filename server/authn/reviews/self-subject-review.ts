/**
 * `POST /apis/authentication.k8s.io/v1/selfsubjectreviews`: the caller's own identity, as the
 * server sees it after authentication and impersonation. Stored nowhere; the body has nothing
 * to say beyond its kind.
 */
import type { UserInfo } from '../../../api/user-info';
import { reviewBody } from './review-body';
import { userInfoObject, type UserInfoObject } from './user-info';
import { metaTime } from '../../../api/objects';

export const SELF_SUBJECT_REVIEW_VERSION = 'authentication.k8s.io/v1';

export interface SelfSubjectReview {
  kind: 'SelfSubjectReview';
  apiVersion: string;
  metadata: { creationTimestamp: string };
  status: { userInfo: UserInfoObject };
}

export function selfSubjectReview(input: {
  readonly body: unknown;
  readonly user: UserInfo;
  readonly now: Date;
}): SelfSubjectReview {
  reviewBody(input.body, { kind: 'SelfSubjectReview', apiVersion: SELF_SUBJECT_REVIEW_VERSION });
  return {
    kind: 'SelfSubjectReview',
    apiVersion: SELF_SUBJECT_REVIEW_VERSION,
    metadata: { creationTimestamp: metaTime(input.now) },
    status: { userInfo: userInfoObject(input.user) },
  };
}
