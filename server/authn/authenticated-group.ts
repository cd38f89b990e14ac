/** Every authenticated user is in `system:authenticated`, whichever method vouched for them (and for TokenReview answers too). */
import { AUTHENTICATED_GROUP, UNAUTHENTICATED_GROUP, type UserInfo } from '../../api/user-info';

export function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.groups.includes(AUTHENTICATED_GROUP) || user.groups.includes(UNAUTHENTICATED_GROUP)) return user;
  return { ...user, groups: [...user.groups, AUTHENTICATED_GROUP] };
}
