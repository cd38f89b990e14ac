/**
 * Escalation prevention, as the reference's RBAC storage enforces it: a user may write a role
 * only with rules they already hold at its scope, or with `escalate` on it; may write a binding
 * only to a role whose rules they hold at the binding's scope, or with `bind` on that role; and
 * only a user holding everything may set a cluster role's aggregationRule (it can gather any
 * rule). `system:masters` is never checked. Each check answers the error to refuse with, or
 * undefined.
 */
import { goQuote, goQuoteSlice } from '../../../api/go-quote';
import type { UserInfo } from '../../../api/user-info';
import type { KubeObject } from '../../../api/objects';
import { forbidden, notFound } from '../../status/catalogue';
import type { StatusError } from '../../status/status-error';
import { SYSTEM_MASTERS_GROUP } from '../system-masters';
import type { Authorizer } from '../types';
import { uncoveredRules } from './covers';
import { RBAC_GROUP, roleRefOf, rulesOf, type PolicyRule } from './policy';
import type { RuleResolver } from './rule-resolver';

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

/** Why `user` may not grant `rules` in `namespace` ("" for cluster-wide), or undefined when they hold them all. */
export function escalationError(
  context: EscalationContext,
  namespace: string,
  rules: readonly PolicyRule[],
): string | undefined {
  const owned = context.resolver.rulesFor(context.user, namespace);
  const missing = uncoveredRules(owned.rules, rules);
  if (missing.length === 0) return undefined;
  let message = `user ${goQuote(context.user.name)} (groups=${goQuoteSlice(context.user.groups)}) is attempting to grant RBAC permissions not currently held:\n${missing.map(compactRule).join('\n')}`;
  if (owned.errors.length > 0) message += `; resolution errors: [${owned.errors.join(' ')}]`;
  return message;
}

/** A rule as the reference prints it: only the fields that are set. */
export function compactRule(rule: PolicyRule): string {
  const parts: string[] = [];
  if (rule.apiGroups?.length) parts.push(`APIGroups:${goQuoteSlice(rule.apiGroups)}`);
  if (rule.resources?.length) parts.push(`Resources:${goQuoteSlice(rule.resources)}`);
  if (rule.resourceNames?.length) parts.push(`ResourceNames:${goQuoteSlice(rule.resourceNames)}`);
  if (rule.nonResourceURLs?.length) parts.push(`NonResourceURLs:${goQuoteSlice(rule.nonResourceURLs)}`);
  parts.push(`Verbs:${goQuoteSlice(rule.verbs)}`);
  return `{${parts.join(', ')}}`;
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
  const error = escalationError(context, namespace, rulesOf(role));
  if (error !== undefined) return forbidden(groupResource, name, error);
  if (
    clusterScoped &&
    role.aggregationRule !== undefined &&
    role.aggregationRule !== null &&
    escalationError(context, '', FULL_AUTHORITY) !== undefined
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
  const ref = roleRefOf(binding);
  const roleResource = ref.kind === 'ClusterRole' ? 'clusterroles' : 'roles';
  if (await allowedTo(context, 'bind', roleResource, namespace, ref.name)) return undefined;
  const resolved = context.resolver.roleRefRules(ref, namespace);
  if (resolved.error !== undefined) return notFound({ group: RBAC_GROUP, resource: roleResource }, ref.name);
  const error = escalationError(context, namespace, resolved.rules);
  return error === undefined
    ? undefined
    : forbidden({ group: RBAC_GROUP, resource: clusterScoped ? 'clusterrolebindings' : 'rolebindings' }, name, error);
}
