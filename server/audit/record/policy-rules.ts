/**
 * Which level a request is audited at: the first rule of the policy that matches the
 * authenticated user (not an impersonated one: audit looks before impersonation, as the
 * reference's does) and the request decides; no matching rule means None. A rule's conditions
 * all have to hold; an empty condition holds for everything.
 */
import type { UserInfo } from '../../../api/user-info';
import type { RequestInfo } from '../../request/request-info';
import type { AuditLevel, AuditPolicy, AuditStage, GroupResources, PolicyRule } from './policy';

export interface RequestAuditConfig {
  readonly level: AuditLevel;
  readonly omitStages: readonly AuditStage[];
  readonly omitManagedFields: boolean;
}

export function evaluatePolicy(policy: AuditPolicy, user: UserInfo, info: RequestInfo): RequestAuditConfig {
  for (const rule of policy.rules) {
    if (ruleMatches(rule, user, info)) {
      return {
        level: rule.level,
        omitStages: rule.omitStages,
        omitManagedFields: rule.omitManagedFields ?? policy.omitManagedFields,
      };
    }
  }
  return { level: 'None', omitStages: policy.omitStages, omitManagedFields: policy.omitManagedFields };
}

function ruleMatches(rule: PolicyRule, user: UserInfo, info: RequestInfo): boolean {
  if (rule.users.length > 0 && !rule.users.includes(user.name)) return false;
  if (rule.userGroups.length > 0 && !user.groups.some((group) => rule.userGroups.includes(group))) return false;
  if (rule.verbs.length > 0 && !rule.verbs.includes(info.verb)) return false;
  if (rule.namespaces.length > 0 || rule.resources.length > 0) return resourceMatches(rule, info);
  if (rule.nonResourceURLs.length > 0)
    return !info.isResourceRequest && rule.nonResourceURLs.some((spec) => pathMatches(info.path, spec));
  return true;
}

function pathMatches(path: string, spec: string): boolean {
  if (spec === '*' || spec === path) return true;
  return spec.endsWith('*') && path.startsWith(spec.replace(/\*+$/, ''));
}

function resourceMatches(rule: PolicyRule, info: RequestInfo): boolean {
  if (!info.isResourceRequest) return false;
  // Cluster-scoped requests have the namespace '', which a rule names as "".
  if (rule.namespaces.length > 0 && !rule.namespaces.includes(info.namespace)) return false;
  if (rule.resources.length === 0) return true;
  return rule.resources.some((entry) => entry.group === info.apiGroup && groupResourcesMatch(entry, info));
}

/** `pods/log` names a subresource, `*` anything, `*\/status` a subresource of any resource, `pods/*` any of one. */
function groupResourcesMatch(entry: GroupResources, info: RequestInfo): boolean {
  if (entry.resources.length === 0) return true;
  if (entry.resourceNames.length > 0 && !entry.resourceNames.includes(info.name)) return false;
  const { resource, subresource } = info;
  const combined = subresource === '' ? resource : `${resource}/${subresource}`;
  return entry.resources.some(
    (spec) =>
      spec === '*' ||
      spec === combined ||
      (subresource !== '' && spec.startsWith('*/') && spec.slice(2) === subresource) ||
      (spec.endsWith('/*') && spec.slice(0, -2) === resource),
  );
}
