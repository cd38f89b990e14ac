/** rbac.authorization.k8s.io/v1 resources: names are path segments, not DNS names. */
import type { KubeObject } from '../../../storage/objects/types';
import { validatePolicyRules, validateRoleBinding, validateRoleBindingUpdate } from '../../validation/rbac';
import { items } from '../defaults/fill';
import type { ResourceType } from '../types';
import { defineKind } from './define';

const GROUP = 'rbac.authorization.k8s.io';

/** Subjects' apiGroup: "" for service accounts, the RBAC group for users and groups. */
function defaultSubjects(binding: KubeObject): void {
  for (const subject of items(binding, 'subjects')) {
    if (subject.apiGroup !== undefined) continue;
    if (subject.kind === 'ServiceAccount') subject.apiGroup = '';
    else if (subject.kind === 'User' || subject.kind === 'Group') subject.apiGroup = GROUP;
  }
}

export const rbacKinds: readonly ResourceType[] = [
  defineKind({ group: GROUP, resource: 'roles', kind: 'Role', namespaced: true, nameRule: 'path-segment', allowCreateOnUpdate: true, behaviour: { validate: validatePolicyRules } }),
  defineKind({ group: GROUP, resource: 'clusterroles', kind: 'ClusterRole', namespaced: false, nameRule: 'path-segment', allowCreateOnUpdate: true, behaviour: { validate: validatePolicyRules } }),
  defineKind({
    group: GROUP,
    resource: 'rolebindings',
    allowCreateOnUpdate: true,
    kind: 'RoleBinding',
    namespaced: true,
    nameRule: 'path-segment',
    behaviour: { defaults: defaultSubjects, validate: validateRoleBinding, validateUpdate: validateRoleBindingUpdate },
  }),
  defineKind({
    group: GROUP,
    resource: 'clusterrolebindings',
    allowCreateOnUpdate: true,
    kind: 'ClusterRoleBinding',
    namespaced: false,
    nameRule: 'path-segment',
    behaviour: { defaults: defaultSubjects, validate: validateRoleBinding, validateUpdate: validateRoleBindingUpdate },
  }),
];
