/**
 * The default roles and bindings of a 1.34 server: what its RBAC bootstrap policy creates and
 * reconciles at every start (`bootstrap-policy.json`, taken from the reference's own record of
 * that policy under its default feature gates: the cluster roles and bindings, the per-controller
 * `system:controller:*` ones, and the roles and bindings in kube-system and kube-public). Every
 * object carries the bootstrapping label and the autoupdate annotation; the JSON leaves those
 * two out since they are the same everywhere.
 */
import type { KubeObject } from '../../../api/objects';
import policy from './bootstrap-policy.json';
import { RBAC_GROUP } from './policy';

export const BOOTSTRAPPING_LABEL = 'kubernetes.io/bootstrapping';
export const AUTOUPDATE_ANNOTATION = 'rbac.authorization.kubernetes.io/autoupdate';

export interface BootstrapPolicy {
  readonly clusterRoles: readonly KubeObject[];
  readonly clusterRoleBindings: readonly KubeObject[];
  readonly roles: readonly KubeObject[];
  readonly roleBindings: readonly KubeObject[];
}

/** Fresh objects on every call: callers hand them to the write path, which may change them. */
export function bootstrapPolicy(): BootstrapPolicy {
  const complete = (objects: readonly object[]) =>
    objects.map((object) => withDefaults(structuredClone(object) as KubeObject));
  return {
    clusterRoles: complete(policy.clusterRoles),
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
