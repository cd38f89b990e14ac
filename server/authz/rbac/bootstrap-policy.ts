/**
 * The default roles and bindings of a 1.34 server: what its RBAC bootstrap policy creates and
 * reconciles at every start (`bootstrap-policy.json`, taken from the reference's own record of
 * that policy under its default feature gates: the cluster roles and bindings, the per-controller
 * `system:controller:*` ones, and the roles and bindings in kube-system and kube-public). Every
 * object carries the bootstrapping label and the autoupdate annotation; the JSON leaves those
 * two out since they are the same everywhere. The rules of default-on gates that are turned off
 * are taken out (GATED_RULES).
 */
import type { KubeObject } from '../../../api/objects';
import { deepEqual } from '../../status/field-errors';
import policy from './bootstrap-policy.json';
import { RBAC_GROUP } from './policy';

/**
 * Rules the reference's bootstrap policy grants only while a gate is on. Each gate is on by
 * default in 1.34, so the JSON has the rule, written as it is there.
 */
const GATED_RULES: readonly { readonly gate: string; readonly role: string; readonly rule: object }[] = [
  // The kubelet's finer subresources (KEP-2862), for those who may use its whole API.
  {
    gate: 'KubeletFineGrainedAuthz',
    role: 'system:kubelet-api-admin',
    rule: { apiGroups: [''], resources: ['nodes/configz', 'nodes/healthz', 'nodes/pods'], verbs: ['*'] },
  },
  // A kubelet reads its pods' service accounts to hand their tokens to image credential providers.
  {
    gate: 'KubeletServiceAccountTokenForCredentialProviders',
    role: 'system:node',
    rule: { apiGroups: [''], resources: ['serviceaccounts'], verbs: ['get'] },
  },
];

export const BOOTSTRAPPING_LABEL = 'kubernetes.io/bootstrapping';
export const AUTOUPDATE_ANNOTATION = 'rbac.authorization.kubernetes.io/autoupdate';

export interface BootstrapPolicy {
  readonly clusterRoles: readonly KubeObject[];
  readonly clusterRoleBindings: readonly KubeObject[];
  readonly roles: readonly KubeObject[];
  readonly roleBindings: readonly KubeObject[];
}

/**
 * Fresh objects on every call: callers hand them to the write path, which may change them.
 * `featureEnabled` says which gates are on.
 */
export function bootstrapPolicy(featureEnabled: (gate: string) => boolean): BootstrapPolicy {
  const complete = (objects: readonly object[]) =>
    objects.map((object) => withDefaults(structuredClone(object) as KubeObject));
  const clusterRoles = complete(policy.clusterRoles);
  for (const { gate, role, rule } of GATED_RULES) {
    if (featureEnabled(gate)) continue;
    const granting = clusterRoles.find((object) => object.metadata.name === role);
    if (granting === undefined) throw new Error(`the bootstrap policy has no cluster role ${role}`);
    granting.rules = (granting.rules as object[]).filter((granted) => !deepEqual(granted, rule));
  }
  return {
    clusterRoles,
    clusterRoleBindings: complete(policy.clusterRoleBindings),
    roles: complete(policy.roles),
    roleBindings: complete(policy.roleBindings),
  };
}

function withDefaults(object: KubeObject): KubeObject {
  object.apiVersion = `${RBAC_GROUP}/v1`;
  object.metadata.labels = { [BOOTSTRAPPING_LABEL]: 'rbac-defaults', ...object.metadata.labels };
  object.metadata.annotations = { [AUTOUPDATE_ANNOTATION]: 'true' };
  return object;
}
