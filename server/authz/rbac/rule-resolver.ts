/**
 * Which rules apply to a user in a namespace: those of the cluster roles bound to them by
 * ClusterRoleBindings, then, inside a namespace, those of the roles and cluster roles bound to
 * them there by RoleBindings. The authorizer stops at the first rule that allows; the reviews
 * and escalation checks collect them all. A binding whose role is missing contributes an error,
 * which the reference reports in its denial reason.
 */
import type { UserInfo } from '../../../api/user-info';
import { goQuote } from '../../../api/go-quote';
import type { KubeObject } from '../../../api/objects';
import { RBAC_GROUP, roleRefOf, rulesOf, subjectsOf, type PolicyRule, type RoleRef, type Subject } from './policy';
import type { PolicySource } from './policy-source';
import { serviceAccountUsername } from '../../authn/service-account/names';

/** Returns false to stop visiting. `rule` is absent when `error` says why a binding gave none. */
export type RuleVisitor = (source: string, rule: PolicyRule | undefined, error: string | undefined) => boolean;

export interface ResolvedRules {
  readonly rules: readonly PolicyRule[];
  readonly errors: readonly string[];
}

export class RuleResolver {
  constructor(private readonly source: PolicySource) {}

  visitRulesFor(user: UserInfo, namespace: string, visit: RuleVisitor, lookup: RoleLookup = LISTER_LOOKUP): void {
    for (const binding of this.source.clusterRoleBindingsFor(user)) {
      const subject = appliesTo(user, subjectsOf(binding), '');
      if (subject === undefined) continue;
      const ref = roleRefOf(binding);
      const resolved = this.roleRefRules(ref, '', lookup);
      const source = `ClusterRoleBinding ${goQuote(binding.metadata.name ?? '')} of ${ref.kind} ${goQuote(ref.name)} to ${describe(subject, '')}`;
      if (!visitAll(source, resolved, visit)) return;
    }
    if (namespace === '') return;
    for (const binding of this.source.roleBindingsFor(namespace, user)) {
      const subject = appliesTo(user, subjectsOf(binding), namespace);
      if (subject === undefined) continue;
      const ref = roleRefOf(binding);
      const resolved = this.roleRefRules(ref, namespace, lookup);
      const source = `RoleBinding ${goQuote(`${binding.metadata.name}/${namespace}`)} of ${ref.kind} ${goQuote(ref.name)} to ${describe(subject, namespace)}`;
      if (!visitAll(source, resolved, visit)) return;
    }
  }

  rulesFor(user: UserInfo, namespace: string, lookup: RoleLookup = LISTER_LOOKUP): ResolvedRules {
    const rules: PolicyRule[] = [];
    const errors: string[] = [];
    this.visitRulesFor(
      user,
      namespace,
      (_, rule, error) => {
        if (rule) rules.push(rule);
        if (error) errors.push(error);
        return true;
      },
      lookup,
    );
    return { rules, errors };
  }

  /** The rules a role reference grants; a Role is looked up in the binding's namespace. */
  roleRefRules(
    ref: RoleRef,
    namespace: string,
    lookup: RoleLookup = LISTER_LOOKUP,
  ): { readonly rules: readonly PolicyRule[]; readonly error?: string } {
    let role: KubeObject | undefined;
    if (ref.kind === 'ClusterRole') {
      role = this.source.clusterRole(ref.name);
      if (role === undefined) return { rules: [], error: notFoundMessage(lookup.clusterRole, ref.name) };
    } else if (ref.kind === 'Role' && namespace !== '') {
      role = this.source.role(namespace, ref.name);
      if (role === undefined) return { rules: [], error: notFoundMessage(lookup.role, ref.name) };
    } else {
      return { rules: [], error: `unsupported role reference kind: ${goQuote(ref.kind)}` };
    }
    return { rules: rulesOf(role) };
  }
}

/**
 * The resource a missing role's error names. The authorizer reads roles from listers, which name
 * the kind in the singular; the escalation checks read them from storage, which names the
 * resource of the request being checked (`rolebindings.rbac.authorization.k8s.io "view" not
 * found` for a binding to a missing cluster role, as kube-apiserver 1.34.4 answers).
 */
export interface RoleLookup {
  readonly role: string;
  readonly clusterRole: string;
}

const LISTER_LOOKUP: RoleLookup = { role: 'role', clusterRole: 'clusterrole' };

/** A lookup from storage on behalf of a request for `resource`. */
export function storageLookup(resource: string): RoleLookup {
  return { role: resource, clusterRole: resource };
}

function notFoundMessage(resource: string, name: string): string {
  return `${resource}.${RBAC_GROUP} ${goQuote(name)} not found`;
}

function visitAll(
  source: string,
  resolved: { rules: readonly PolicyRule[]; error?: string },
  visit: RuleVisitor,
): boolean {
  if (resolved.error !== undefined && !visit(source, undefined, resolved.error)) return false;
  for (const rule of resolved.rules) if (!visit(source, rule, undefined)) return false;
  return true;
}

/** The first subject naming this user; a ServiceAccount subject without a namespace is in the binding's. */
export function appliesTo(user: UserInfo, subjects: readonly Subject[], bindingNamespace: string): Subject | undefined {
  return subjects.find((subject) => subjectMatches(user, subject, bindingNamespace));
}

function subjectMatches(user: UserInfo, subject: Subject, bindingNamespace: string): boolean {
  switch (subject.kind) {
    case 'User':
      return user.name === subject.name;
    case 'Group':
      return user.groups.includes(subject.name);
    case 'ServiceAccount': {
      const namespace = subject.namespace || bindingNamespace;
      return namespace !== '' && user.name === serviceAccountUsername(namespace, subject.name);
    }
    default:
      return false;
  }
}

/** A service account is named `name/namespace`, in the binding's namespace when it gives none (none for a cluster binding). */
function describe(subject: Subject, bindingNamespace: string): string {
  const name =
    subject.kind === 'ServiceAccount' ? `${subject.name}/${subject.namespace || bindingNamespace}` : subject.name;
  return `${subject.kind} ${goQuote(name)}`;
}
