/** `authentication.k8s.io` UserInfo as reviews return it: empty fields left out, as the reference's omitempty does. */
import type { UserInfo } from '../../../api/user-info';

export interface UserInfoObject {
  username: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export function userInfoObject(user: UserInfo): UserInfoObject {
  const object: UserInfoObject = { username: user.name };
  if (user.uid) object.uid = user.uid;
  if (user.groups.length > 0) object.groups = [...user.groups];
  const extra = Object.entries(user.extra ?? {});
  if (extra.length > 0) object.extra = Object.fromEntries(extra.map(([key, values]) => [key, [...values]]));
  return object;
}
