/**
 * Builds the server's authentication from its flags: which methods run and in which order
 * (proxy headers, client certificates, then the bearer-token methods), whether anonymous
 * requests are allowed, and the API server's audiences.
 */
import type { ServerOptions } from '../config/flags';
import { audienceAgnostic } from './audiences';
import { bearerTokenAuthenticator, tokenUnion } from './bearer-token';
import { tokenFileAuthenticator } from './token-file';
import type { Authenticator, TokenAuthenticator } from './types';

export const DEFAULT_SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc.cluster.local';

export interface Authentication {
  /** Tried in order after client certificates. */
  readonly authenticators: readonly Authenticator[];
  readonly anonymous: boolean;
  /** Every bearer-token method: what a TokenReview asks. */
  readonly tokens: TokenAuthenticator;
  readonly apiAudiences: readonly string[];
}

export function apiAudiencesOf(options: ServerOptions): string[] {
  if (options.apiAudiences.length > 0) return [...options.apiAudiences];
  return options.serviceAccountIssuers.length > 0 ? [...options.serviceAccountIssuers] : [DEFAULT_SERVICE_ACCOUNT_ISSUER];
}

export function setUpAuthentication(options: ServerOptions): Authentication {
  const apiAudiences = apiAudiencesOf(options);
  const tokenMethods: TokenAuthenticator[] = [];
  if (options.tokenAuthFile) tokenMethods.push(audienceAgnostic(apiAudiences, tokenFileAuthenticator(options.tokenAuthFile)));
  const tokens = tokenUnion(tokenMethods);
  return {
    authenticators: [bearerTokenAuthenticator({ tokenAuthenticators: [tokens], audiences: apiAudiences })],
    anonymous: options.anonymousAuth,
    tokens,
    apiAudiences,
  };
}
