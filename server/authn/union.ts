/**
 * Combines authenticators as the reference does: the first that vouches for the request wins;
 * if none does, any invalid credential fails the request; otherwise the answer is "no
 * credential". Synchronous authenticators stay synchronous, so a client-certificate request
 * never waits on a promise.
 */
import { firstDecisive, type Decider } from '../first-decisive';
import type { AuthenticationResult, Authenticator } from './types';

const FIRST_USER: Decider<AuthenticationResult> = {
  decides: (result) => result !== undefined && 'user' in result,
  noteOf: (result) => (result === undefined || 'user' in result ? undefined : result.error),
  undecided: (errors) => (errors.length > 0 ? { error: errors.join(', ') } : undefined),
};

export function union(authenticators: readonly Authenticator[]): Authenticator {
  return {
    authenticate: (request) =>
      firstDecisive(authenticators, (authenticator) => authenticator.authenticate(request), FIRST_USER),
  };
}
