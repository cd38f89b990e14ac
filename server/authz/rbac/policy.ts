/** The shapes of rbac.authorization.k8s.io/v1 objects as the authorizer reads them. */
import type { KubeObject } from '../../../api/objects';

export const RBAC_GROUP = 'rbac.authorization.k8s.io';

export interface PolicyRule {
  readonly verbs: readonly string[];
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly resourceNames?: readonly string[];
  readonly nonResourceURLs?: readonly string[];
}

export interface Subject {
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string;
  readonly apiGroup?: string;
}

export interface RoleRef {
  readonly apiGroup: string;
  readonly kind: string;
  readonly name: string;
}

export function rulesOf(role: KubeObject): readonly PolicyRule[] {
  return (role.rules as PolicyRule[] | null | undefined) ?? [];
}

export function subjectsOf(binding: KubeObject): readonly Subject[] {
  return (binding.subjects as Subject[] | null | undefined) ?? [];
}

export function roleRefOf(binding: KubeObject): RoleRef {
  return (binding.roleRef as RoleRef | undefined) ?? { apiGroup: RBAC_GROUP, kind: '', name: '' };
}
