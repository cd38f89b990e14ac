/**
 * Audiences of token methods whose tokens do not name one (static tokens, bootstrap tokens,
 * the proxy's headers): such a token is good for the API server itself only, so a check for
 * other audiences (a TokenReview's `spec.audiences`) must not accept it. As the reference's
 * audience-agnostic wrapper, the answer's audiences are the requested ones the server has.
 */
import type { AuthenticationResult, TokenAuthenticator } from './types';

export function intersectAudiences(a: readonly string[], b: readonly string[]): string[] {
  return a.filter((audience) => b.includes(audience));
}

export function audienceAgnostic(apiAudiences: readonly string[], delegate: TokenAuthenticator): TokenAuthenticator {
  return {
    authenticateToken(token, audiences) {
      const matched = audiences.length === 0 ? [...apiAudiences] : intersectAudiences(apiAudiences, audiences);
      if (audiences.length > 0 && matched.length === 0) return undefined;
      const finish = (result: AuthenticationResult): AuthenticationResult =>
        result && 'user' in result ? { user: result.user, audiences: matched } : result;
      const result = delegate.authenticateToken(token, audiences);
      return result instanceof Promise ? result.then(finish) : finish(result);
    },
  };
}
