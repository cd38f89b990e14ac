/**
 * Who a request is from, once authenticated: the identity every layer above passes along
 * (authorization, admission, audit, CEL's `request.userInfo`), kept apart from the methods that
 * establish it (server/authn/).
 */
export interface UserInfo {
  readonly name: string;
  readonly uid?: string;
  readonly groups: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

export const ANONYMOUS_USER: UserInfo = { name: 'system:anonymous', groups: ['system:unauthenticated'] };
export const AUTHENTICATED_GROUP = 'system:authenticated';
export const UNAUTHENTICATED_GROUP = 'system:unauthenticated';
