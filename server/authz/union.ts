/**
 * Consults authorizers in order: the first allow or deny decides; if all have no opinion, the
 * answer is no opinion with their reasons, which the chain turns into a denial.
 */
import type { UserInfo } from '../../api/user-info';
import { NO_OPINION, type AuthorizationResult, type Authorizer, type SubjectRules } from './types';

export function union(authorizers: readonly Authorizer[]): Authorizer {
  return {
    rulesFor: (user, namespace) => unionRules(authorizers, user, namespace),
    authorize(attributes) {
      const reasons: string[] = [];
      for (let i = 0; i < authorizers.length; i++) {
        const result = authorizers[i].authorize(attributes);
        if (result instanceof Promise) return finishAsync(result, authorizers.slice(i + 1), attributes, reasons);
        if (result.decision !== 'no-opinion') return result;
        if (result.reason) reasons.push(result.reason);
      }
      return noOpinion(reasons);
    },
  };
}

async function finishAsync(
  pending: Promise<AuthorizationResult>,
  remaining: readonly Authorizer[],
  attributes: Parameters<Authorizer['authorize']>[0],
  reasons: string[],
): Promise<AuthorizationResult> {
  const result = await pending;
  if (result.decision !== 'no-opinion') return result;
  if (result.reason) reasons.push(result.reason);
  const rest = await union(remaining).authorize(attributes);
  if (rest.decision !== 'no-opinion') return rest;
  if (rest.reason) reasons.push(rest.reason);
  return noOpinion(reasons);
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
