/** The `AlwaysAllow` and `AlwaysDeny` modes, for tests and trusted single-user setups. */
import { ALL_RULES, ALLOW, NO_RULES, type Authorizer } from './types';

export const alwaysAllow: Authorizer = { authorize: () => ALLOW, rulesFor: () => ALL_RULES };

export const alwaysDeny: Authorizer = {
  authorize: () => ({ decision: 'deny', reason: 'Everything is forbidden.' }),
  rulesFor: () => NO_RULES,
};
