/** The group `system:masters` may do anything, ahead of every other mode, as in the reference. */
import { ALL_RULES, ALLOW, NO_OPINION, NO_RULES, type Authorizer } from './types';

export const SYSTEM_MASTERS_GROUP = 'system:masters';

export function systemMastersAuthorizer(): Authorizer {
  return {
    authorize: ({ user }) => (user.groups.includes(SYSTEM_MASTERS_GROUP) ? ALLOW : NO_OPINION),
    rulesFor: (user) => (user.groups.includes(SYSTEM_MASTERS_GROUP) ? ALL_RULES : NO_RULES),
  };
}
