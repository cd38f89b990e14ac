/** The group `system:masters` may do anything, ahead of every other mode, as in the reference. */
import { ALLOW, NO_OPINION, type Authorizer } from './types';

export const SYSTEM_MASTERS_GROUP = 'system:masters';

export function systemMastersAuthorizer(): Authorizer {
  return {
    authorize: ({ user }) => (user.groups.includes(SYSTEM_MASTERS_GROUP) ? ALLOW : NO_OPINION),
  };
}
