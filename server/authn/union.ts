/**
 * Combines authenticators as the reference does: the first that vouches for the request wins;
 * if none does, any invalid credential fails the request; otherwise the answer is "no
 * credential". Synchronous authenticators stay synchronous, so a client-certificate request
 * never waits on a promise.
 */
import type { AuthenticationResult, Authenticator } from './types';

export function union(authenticators: readonly Authenticator[]): Authenticator {
  return {
    authenticate(request) {
      const errors: string[] = [];
      for (let i = 0; i < authenticators.length; i++) {
        const result = authenticators[i].authenticate(request);
        if (result instanceof Promise) return finishAsync(result, authenticators.slice(i + 1), request, errors);
        if (result && 'user' in result) return result;
        if (result) errors.push(result.error);
      }
      return errors.length > 0 ? { error: errors.join(', ') } : undefined;
    },
  };
}

async function finishAsync(
  pending: Promise<AuthenticationResult>,
  remaining: readonly Authenticator[],
  request: Parameters<Authenticator['authenticate']>[0],
  errors: string[],
): Promise<AuthenticationResult> {
  const result = await pending;
  if (result && 'user' in result) return result;
  if (result) errors.push(result.error);
  const rest = await union(remaining).authenticate(request);
  if (rest && 'user' in rest) return rest;
  if (rest) errors.push(rest.error);
  return errors.length > 0 ? { error: errors.join(', ') } : undefined;
}
