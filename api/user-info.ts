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

/**
 * The user extra naming the credential a request was authenticated with (`JTI=<id>` for a
 * service-account token, `X509SHA256=<hex>` for a client certificate), so that audit can tell
 * one token or certificate of a user from another.
 */
export const CREDENTIAL_ID_EXTRA = 'authentication.kubernetes.io/credential-id';

export const ANONYMOUS_USER: UserInfo = { name: 'system:anonymous', groups: ['system:unauthenticated'] };
export const AUTHENTICATED_GROUP = 'system:authenticated';
export const UNAUTHENTICATED_GROUP = 'system:unauthenticated';
