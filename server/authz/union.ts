/**
 * Consults authorizers in order: the first allow or deny decides; if all have no opinion, the
 * answer is no opinion with their reasons, which the chain turns into a denial.
 */
import type { UserInfo } from '../../api/user-info';
import { firstDecisive, type Decider } from '../first-decisive';
import { NO_OPINION, type AuthorizationResult, type Authorizer, type SubjectRules } from './types';

const FIRST_DECISION: Decider<AuthorizationResult> = {
  decides: (result) => result.decision !== 'no-opinion',
  noteOf: (result) => result.reason || undefined,
  undecided: (reasons) => noOpinion(reasons),
};

export function union(authorizers: readonly Authorizer[]): Authorizer {
  return {
    rulesFor: (user, namespace) => unionRules(authorizers, user, namespace),
    authorize: (attributes) =>
      firstDecisive(authorizers, (authorizer) => authorizer.authorize(attributes), FIRST_DECISION),
  };
}

function noOpinion(reasons: readonly string[]): AuthorizationResult {
  return reasons.length === 0 ? NO_OPINION : { decision: 'no-opinion', reason: reasons.join('\n') };
}

/** Every mode's rules together; a mode that cannot list its rules makes the answer incomplete. */
async function unionRules(
  authorizers: readonly Authorizer[],
  user: UserInfo,
  namespace: string,
): Promise<SubjectRules> {
  const resourceRules: SubjectRules['resourceRules'][number][] = [];
  const nonResourceRules: SubjectRules['nonResourceRules'][number][] = [];
  const evaluationErrors: string[] = [];
  let incomplete = false;
  for (const authorizer of authorizers) {
    if (authorizer.rulesFor === undefined) {
      incomplete = true;
      continue;
    }
    const rules = await authorizer.rulesFor(user, namespace);
    resourceRules.push(...rules.resourceRules);
    nonResourceRules.push(...rules.nonResourceRules);
    evaluationErrors.push(...rules.evaluationErrors);
    incomplete ||= rules.incomplete;
  }
  return { resourceRules, nonResourceRules, incomplete, evaluationErrors };
}
