/** Authentication: who sent a request. Each method is one `Authenticator`; `union` combines them. */
import type { IncomingMessage } from 'node:http';
import type { UserInfo } from '../../api/user-info';

/**
 * `{ user }`: this method vouches for the request. `{ error }`: the request carries this
 * method's credential and it is not valid (401, never anonymous). `undefined`: this method's
 * credential is absent, so another method may decide.
 */
export type AuthenticationResult =
  { readonly user: UserInfo; readonly audiences?: readonly string[] } | { readonly error: string } | undefined;

export interface Authenticator {
  authenticate(request: IncomingMessage): AuthenticationResult | Promise<AuthenticationResult>;
}

/**
 * A bearer-token method (static tokens, service-account JWTs, OIDC, the webhook, bootstrap
 * tokens). Same three answers as `Authenticator`: a user, an error for a token this method
 * recognises but rejects, or `undefined` for a token that is not this method's.
 * `audiences` are the audiences the token must be meant for (the API server's own by default);
 * a method whose tokens name their audience answers the ones it matched in `audiences`.
 */
export interface TokenAuthenticator {
  authenticateToken(token: string, audiences: readonly string[]): AuthenticationResult | Promise<AuthenticationResult>;
}
