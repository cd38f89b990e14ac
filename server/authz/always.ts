/** The `AlwaysAllow` and `AlwaysDeny` modes, for tests and trusted single-user setups. */
import { ALLOW, type Authorizer } from './types';

export const alwaysAllow: Authorizer = { authorize: () => ALLOW };

export const alwaysDeny: Authorizer = { authorize: () => ({ decision: 'deny', reason: 'Everything is forbidden.' }) };
