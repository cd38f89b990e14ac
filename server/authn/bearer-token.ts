/**
 * `Authorization: Bearer <token>`: the token goes to each token method in turn; the first that
 * vouches for it decides. A token no method accepts is an invalid credential (401), never an
 * anonymous request, as in the reference. The header is removed once a token is accepted, so
 * nothing later in the server is tempted to reuse the caller's credential.
 */
import type { IncomingMessage } from 'node:http';
import type { AuthenticationResult, Authenticator, TokenAuthenticator } from './types';
import { goAggregate } from '../../api/go-json-syntax';

export const INVALID_BEARER_TOKEN = 'invalid bearer token';

/** The token of an `Authorization: Bearer` header, as the reference reads it; undefined when there is none. */
export function bearerTokenOf(request: IncomingMessage): string | undefined {
  const header = (request.headers.authorization ?? '').trim();
  if (header === '') return undefined;
  const parts = header.split(' ');
  if (parts.length < 2 || parts[0].toLowerCase() !== 'bearer') return undefined;
  // `Bearer  token` (two spaces) has an empty token: no credential, as in the reference.
  return parts[1] === '' ? undefined : parts[1];
}

export interface BearerTokenOptions {
  readonly tokenAuthenticators: readonly TokenAuthenticator[];
  /** The API server's audiences: a token must be meant for one of them. */
  readonly audiences: readonly string[];
}

export function bearerTokenAuthenticator(options: BearerTokenOptions): Authenticator {
  const tokens = tokenUnion(options.tokenAuthenticators);
  return {
    authenticate(request) {
      const token = bearerTokenOf(request);
      if (token === undefined) return undefined;
      const finish = (result: AuthenticationResult): AuthenticationResult => {
        if (result && 'user' in result) {
          delete request.headers.authorization;
          return result;
        }
        return result ?? { error: INVALID_BEARER_TOKEN };
      };
      const result = tokens.authenticateToken(token, options.audiences);
      return result instanceof Promise ? result.then(finish) : finish(result);
    },
  };
}

/** Token methods in order: the first user wins; otherwise every error, joined; otherwise undefined. */
export function tokenUnion(authenticators: readonly TokenAuthenticator[]): TokenAuthenticator {
  return {
    async authenticateToken(token, audiences) {
      const errors: string[] = [];
      for (const authenticator of authenticators) {
        const result = await authenticator.authenticateToken(token, audiences);
        if (result && 'user' in result) return result;
        if (result) errors.push(result.error);
      }
      if (errors.length === 0) return undefined;
      return { error: goAggregate(errors) };
    },
  };
}
