/** rbac.authorization.k8s.io/v1 resources: names are path segments, not DNS names. */
import type { KubeObject } from '../../../api/objects';
import {
  validateClusterRole,
  validateClusterRoleOnUpdate,
  validatePolicyRules,
  validateRoleBinding,
  validateRoleBindingUpdate,
} from '../../validation/rbac';
import { items } from '../defaults/fill';
import type { ResourceType } from '../types';
import type { UpdatePass } from '../strategy';
import { defineKind } from './define';
import { clusterRoleBindingPrinter, roleBindingPrinter, rolePrinter } from '../../table/printers';

const GROUP = 'rbac.authorization.k8s.io';

/**
 * A binding's empty API groups, as the reference defaults them: the role reference's (sent or not) is the RBAC
 * group, and so is a user's or group's subject's; a service account's stays empty (absent on the
 * wire, as Go omits an empty string).
 */
function defaultBinding(binding: KubeObject): void {
  const roleRef = binding.roleRef as Record<string, unknown> | undefined | null;
  // The role reference is a struct in Go, there even when not sent: its group is defaulted too.
  if (roleRef === undefined || roleRef === null) binding.roleRef = { apiGroup: GROUP };
  else if (typeof roleRef === 'object' && !roleRef.apiGroup) roleRef.apiGroup = GROUP;
  for (const subject of items(binding, 'subjects')) {
    if (subject.apiGroup) continue;
    if (subject.kind === 'User' || subject.kind === 'Group') subject.apiGroup = GROUP;
    else delete subject.apiGroup;
  }
}

/**
 * The reference's strategies validate a role or binding as on a create, then their ValidateXUpdate
 * does so again before the metadata's update (and a binding's roleRef, its update rule).
 */
const ROLE_UPDATE_PASSES: readonly UpdatePass[] = ['create', 'createRules', 'create', 'createRules', 'update'];

export const rbacKinds: readonly ResourceType[] = [
  defineKind({
    group: GROUP,
    resource: 'roles',
    printer: rolePrinter,
    kind: 'Role',
    namespaced: true,
    nameRule: 'path-segment',
    allowCreateOnUpdate: true,
    behaviour: { updatePasses: ROLE_UPDATE_PASSES, validate: validatePolicyRules },
  }),
  defineKind({
    group: GROUP,
    resource: 'clusterroles',
    printer: rolePrinter,
    kind: 'ClusterRole',
    namespaced: false,
    nameRule: 'path-segment',
    allowCreateOnUpdate: true,
    behaviour: {
      updatePasses: ROLE_UPDATE_PASSES,
      validate: validateClusterRole,
      validateOnUpdate: validateClusterRoleOnUpdate,
    },
  }),
  defineKind({
    group: GROUP,
    resource: 'rolebindings',
    printer: roleBindingPrinter,
    allowCreateOnUpdate: true,
    kind: 'RoleBinding',
    namespaced: true,
    nameRule: 'path-segment',
    behaviour: {
      updatePasses: [...ROLE_UPDATE_PASSES, 'updateRules'],
      defaults: defaultBinding,
      validate: validateRoleBinding,
      validateUpdate: validateRoleBindingUpdate,
    },
  }),
  defineKind({
    group: GROUP,
    resource: 'clusterrolebindings',
    printer: clusterRoleBindingPrinter,
    allowCreateOnUpdate: true,
    kind: 'ClusterRoleBinding',
    namespaced: false,
    nameRule: 'path-segment',
    behaviour: {
      updatePasses: [...ROLE_UPDATE_PASSES, 'updateRules'],
      defaults: defaultBinding,
      validate: validateRoleBinding,
      validateUpdate: validateRoleBindingUpdate,
    },
  }),
];
