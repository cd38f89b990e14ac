/**
 * Escalation prevention, as the reference's RBAC storage enforces it: a user may write a role
 * only with rules they already hold at its scope, or with `escalate` on it; may write a binding
 * only to a role whose rules they hold at the binding's scope, or with `bind` on that role; and
 * only a user holding everything may set a cluster role's aggregationRule (it can gather any
 * rule). `system:masters` is never checked. Each check answers the error to refuse with, or
 * undefined.
 */
import { goAggregate } from '../../../api/go-json-syntax';
import { goQuote, goQuoteSlice } from '../../../api/go-quote';
import type { UserInfo } from '../../../api/user-info';
import type { KubeObject } from '../../../api/objects';
import { forbidden, notFound } from '../../status/catalogue';
import type { StatusError } from '../../status/status-error';
import { SYSTEM_MASTERS_GROUP } from '../system-masters';
import type { Authorizer } from '../types';
import { uncoveredRules } from './covers';
import { RBAC_GROUP, roleRefOf, rulesOf, type PolicyRule, type RoleRef } from './policy';
import { storageLookup, type RuleResolver } from './rule-resolver';

const FULL_AUTHORITY: readonly PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

export interface EscalationContext {
  readonly user: UserInfo;
  readonly resolver: RuleResolver;
  readonly authorizer: Authorizer;
}

/** A member of system:masters may do anything, so nothing it writes needs a permission check (the reference's EscalationAllowed). */
export function escalationAllowed(user: UserInfo): boolean {
  return user.groups.includes(SYSTEM_MASTERS_GROUP);
}

async function allowedTo(
  context: EscalationContext,
  verb: string,
  resource: string,
  namespace: string,
  name: string,
): Promise<boolean> {
  const result = await context.authorizer.authorize({
    user: context.user,
    verb,
    isResourceRequest: true,
    path: '',
    namespace,
    apiGroup: RBAC_GROUP,
    apiVersion: '*',
    resource,
    subresource: '',
    name,
  });
  return result.decision === 'allow';
}

/**
 * Why `user` may not grant `rules` in `namespace` ("" for cluster-wide), or undefined when they
 * hold them all. `resource` is the request's, which names a role missing from the user's own
 * bindings.
 */
export function escalationError(
  context: EscalationContext,
  namespace: string,
  rules: readonly PolicyRule[],
  resource: string,
): string | undefined {
  const owned = context.resolver.rulesFor(context.user, namespace, storageLookup(resource));
  const missing = uncoveredRules(owned.rules, rules);
  if (missing.length === 0) return undefined;
  const described = [...new Set(compactRules(missing).map(compactRule))].sort();
  let message = `user ${goQuote(context.user.name)} (groups=${goQuoteSlice(context.user.groups)}) is attempting to grant RBAC permissions not currently held:\n${described.join('\n')}`;
  if (owned.errors.length > 0) message += `; resolution errors: [${goAggregate(owned.errors)}]`;
  return message;
}

/**
 * The missing rules merged as the reference merges them for this message: rules of one API
 * group and one resource, with at most one name and nothing else, that differ only in their
 * verbs become one rule with the verbs in the order found.
 */
function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const compacted: PolicyRule[] = [];
  const merged = new Map<string, PolicyRule & { verbs: string[] }>();
  for (const rule of rules) {
    const key = simpleResourceKey(rule);
    if (key === undefined) {
      compacted.push(rule);
      continue;
    }
    const existing = merged.get(key);
    if (existing === undefined) merged.set(key, { ...rule, verbs: [...rule.verbs] });
    else existing.verbs.push(...rule.verbs);
  }
  return [...compacted, ...merged.values()];
}

function simpleResourceKey(rule: PolicyRule): string | undefined {
  const { apiGroups = [], resources = [], resourceNames = [], nonResourceURLs } = rule;
  if (resourceNames.length > 1 || nonResourceURLs !== undefined) return undefined;
  if (apiGroups.length !== 1 || resources.length !== 1) return undefined;
  return JSON.stringify([apiGroups[0], resources[0], resourceNames[0] ?? null]);
}

/** A rule as the reference prints it: only the fields that are set. */
export function compactRule(rule: PolicyRule): string {
  const parts: string[] = [];
  if (rule.apiGroups?.length) parts.push(`APIGroups:${goQuoteSlice(rule.apiGroups)}`);
  if (rule.resources?.length) parts.push(`Resources:${goQuoteSlice(rule.resources)}`);
  if (rule.nonResourceURLs?.length) parts.push(`NonResourceURLs:${goQuoteSlice(rule.nonResourceURLs)}`);
  if (rule.resourceNames?.length) parts.push(`ResourceNames:${goQuoteSlice(rule.resourceNames)}`);
  if (rule.verbs.length) parts.push(`Verbs:${goQuoteSlice(rule.verbs)}`);
  return `{${parts.join(', ')}}`;
}

/** The rules of a role not validated yet: a rule may be null or lack its verbs, which grant nothing. */
function writtenRules(role: KubeObject): PolicyRule[] {
  return rulesOf(role).map((rule: PolicyRule | null) => ({ ...rule, verbs: rule?.verbs ?? [] }));
}

/** A Role or ClusterRole about to be written. */
export async function checkRoleWrite(context: EscalationContext, role: KubeObject): Promise<StatusError | undefined> {
  if (escalationAllowed(context.user)) return undefined;
  const clusterScoped = role.kind === 'ClusterRole';
  const resource = clusterScoped ? 'clusterroles' : 'roles';
  const namespace = clusterScoped ? '' : String(role.metadata.namespace ?? '');
  const name = String(role.metadata.name ?? '');
  const groupResource = { group: RBAC_GROUP, resource };
  if (await allowedTo(context, 'escalate', resource, namespace, name)) return undefined;
  const error = escalationError(context, namespace, writtenRules(role), resource);
  if (error !== undefined) return forbidden(groupResource, name, error);
  if (
    clusterScoped &&
    role.aggregationRule !== undefined &&
    role.aggregationRule !== null &&
    escalationError(context, '', FULL_AUTHORITY, resource) !== undefined
  ) {
    return forbidden(groupResource, name, 'must have cluster-admin privileges to use the aggregationRule');
  }
  return undefined;
}

/** A RoleBinding or ClusterRoleBinding about to be written. */
export async function checkBindingWrite(
  context: EscalationContext,
  binding: KubeObject,
): Promise<StatusError | undefined> {
  if (escalationAllowed(context.user)) return undefined;
  const clusterScoped = binding.kind === 'ClusterRoleBinding';
  const namespace = clusterScoped ? '' : String(binding.metadata.namespace ?? '');
  const name = String(binding.metadata.name ?? '');
  const { kind = '', name: roleName = '' } = (binding.roleRef ?? {}) as Partial<RoleRef>;
  // A reference validation refuses (no name; a kind that is no role of the binding's scope) has
  // no rules to look up. The reference's lookup answers it with a bare 500 ("unsupported role
  // reference kind") or 400; validation's 422 says what is wrong, and nothing is stored.
  if (roleName === '' || !(kind === 'ClusterRole' || (kind === 'Role' && !clusterScoped))) return undefined;
  const ref = roleRefOf(binding);
  const roleResource = ref.kind === 'ClusterRole' ? 'clusterroles' : 'roles';
  if (await allowedTo(context, 'bind', roleResource, namespace, ref.name)) return undefined;
  // A missing role is named after the binding's resource: the reference looks it up in storage
  // with the request's own resource.
  const resource = clusterScoped ? 'clusterrolebindings' : 'rolebindings';
  const resolved = context.resolver.roleRefRules(ref, namespace, storageLookup(resource));
  if (resolved.error !== undefined) return notFound({ group: RBAC_GROUP, resource }, ref.name);
  const error = escalationError(context, namespace, resolved.rules, resource);
  return error === undefined ? undefined : forbidden({ group: RBAC_GROUP, resource }, name, error);
}
