/** Authentication: who sent a request. Each method is one `Authenticator`; `union` combines them. */
import type { IncomingMessage } from 'node:http';

export interface UserInfo {
  readonly name: string;
  readonly uid?: string;
  readonly groups: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/**
 * `{ user }`: this method vouches for the request. `{ error }`: the request carries this
 * method's credential and it is not valid (401, never anonymous). `undefined`: this method's
 * credential is absent, so another method may decide.
 */
export type AuthenticationResult = { readonly user: UserInfo } | { readonly error: string } | undefined;

export interface Authenticator {
  authenticate(request: IncomingMessage): AuthenticationResult | Promise<AuthenticationResult>;
}

export const ANONYMOUS_USER: UserInfo = { name: 'system:anonymous', groups: ['system:unauthenticated'] };
export const AUTHENTICATED_GROUP = 'system:authenticated';
export const UNAUTHENTICATED_GROUP = 'system:unauthenticated';
