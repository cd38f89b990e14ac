/**
 * The RBAC mode: allows what some rule bound to the user allows, and has no opinion otherwise
 * (RBAC never denies: another mode may still allow). The reasons follow the reference: which
 * binding allowed, or which bound roles were missing.
 */
import type { UserInfo } from '../../../api/user-info';
import { ALLOW, NO_OPINION, type Attributes, type AuthorizationResult, type SubjectRules } from '../types';
import { ruleAllows } from './rule-matching';
import type { RuleResolver } from './rule-resolver';
import { goAggregate } from '../../../api/go-json-syntax';

/** An Authorizer that answers at once, from the in-memory policy. */
export interface RbacAuthorizer {
  authorize(attributes: Attributes): AuthorizationResult;
  rulesFor(user: UserInfo, namespace: string): SubjectRules;
}

export function rbacAuthorizer(resolver: RuleResolver): RbacAuthorizer {
  return {
    authorize(attributes): AuthorizationResult {
      let allowedBy: string | undefined;
      const errors: string[] = [];
      resolver.visitRulesFor(attributes.user, attributes.namespace, (source, rule, error) => {
        if (error !== undefined) errors.push(error);
        if (rule !== undefined && ruleAllows(attributes, rule)) {
          allowedBy = source;
          return false;
        }
        return true;
      });
      if (allowedBy !== undefined) return { ...ALLOW, reason: `RBAC: allowed by ${allowedBy}` };
      if (errors.length === 0) return NO_OPINION;
      return { decision: 'no-opinion', reason: `RBAC: ${goAggregate(errors)}` };
    },
    rulesFor(user, namespace): SubjectRules {
      const { rules, errors } = resolver.rulesFor(user, namespace);
      return {
        resourceRules: rules
          .filter((rule) => (rule.nonResourceURLs ?? []).length === 0)
          .map(({ verbs, apiGroups, resources, resourceNames }) => ({ verbs, apiGroups, resources, resourceNames })),
        nonResourceRules: rules
          .filter((rule) => (rule.nonResourceURLs ?? []).length > 0)
          .map(({ verbs, nonResourceURLs }) => ({ verbs, nonResourceURLs })),
        incomplete: false,
        evaluationErrors: errors,
      };
    },
  };
}
