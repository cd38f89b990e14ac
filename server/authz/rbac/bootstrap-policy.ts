/**
 * The default roles and bindings of a 1.34 server: what its RBAC bootstrap policy creates and
 * reconciles at every start (`bootstrap-policy.json`, taken from the reference's own record of
 * that policy under its default feature gates: the cluster roles and bindings, the per-controller
 * `system:controller:*` ones, and the roles and bindings in kube-system and kube-public). Every
 * object carries the bootstrapping label and the autoupdate annotation; the JSON leaves those
 * two out since they are the same everywhere.
 *
 * What the reference grants only while a gate is on is in `bootstrap-policy-gated.json`,
 * recorded from it with those gates flipped: rules of a role, each with the rules it follows
 * where it does not come last, and whole cluster roles and bindings. The baseline has those of
 * the gates on by default; each is taken out or put in as its gate says.
 */
import type { KubeObject } from '../../../api/objects';
import { deepEqual } from '../../status/field-errors';
import policy from './bootstrap-policy.json';
import gated from './bootstrap-policy-gated.json';
import { RBAC_GROUP } from './policy';

type FeatureEnabled = (gate: string) => boolean;

interface Gated {
  readonly gate: string;
  /**
   * Gates the reference also asks for (the scheduler's DRA rules need DRA; the storage-version
   * garbage collector's role, APIServerIdentity beside StorageVersionAPI).
   */
  readonly with?: readonly string[];
}

function gatesOn({ gate, with: others = [] }: Gated, featureEnabled: FeatureEnabled): boolean {
  return [gate, ...others].every(featureEnabled);
}

interface GatedRule extends Gated {
  readonly role: string;
  readonly rule: object;
  /** The rules it follows in the role, the nearest first, as far as the role has them; absent: it comes last. */
  readonly after?: readonly object[];
}

/** The role's rules with each gated one in or out as its gates say (may mutate `role`). */
function withGatedRules(role: KubeObject, featureEnabled: FeatureEnabled): void {
  for (const entry of (gated.rules as readonly GatedRule[]).filter(({ role: name }) => name === role.metadata.name)) {
    const rules = role.rules as object[];
    const indexOf = (wanted: object) => rules.findIndex((granted) => deepEqual(granted, wanted));
    const at = indexOf(entry.rule);
    if (!gatesOn(entry, featureEnabled)) {
      if (at >= 0) rules.splice(at, 1);
      continue;
    }
    if (at >= 0) continue;
    const anchor = (entry.after ?? []).map(indexOf).find((index) => index >= 0);
    if (anchor === undefined) rules.push(structuredClone(entry.rule));
    else rules.splice(anchor + 1, 0, structuredClone(entry.rule));
  }
}

/** The baseline's objects with the gated ones in or out as their gates say (matched by name). */
function withGatedObjects(
  objects: readonly object[],
  entries: readonly (Gated & { readonly object: object })[],
  featureEnabled: FeatureEnabled,
): object[] {
  const nameOf = (object: object) => (object as KubeObject).metadata.name;
  const off = new Set(entries.filter((entry) => !gatesOn(entry, featureEnabled)).map(({ object }) => nameOf(object)));
  const present = new Set(objects.map(nameOf));
  return [
    ...objects.filter((object) => !off.has(nameOf(object))),
    ...entries
      .filter((entry) => gatesOn(entry, featureEnabled) && !present.has(nameOf(entry.object)))
      .map(({ object }) => object),
  ];
}

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
export function bootstrapPolicy(featureEnabled: FeatureEnabled): BootstrapPolicy {
  const complete = (objects: readonly object[]) =>
    objects.map((object) => withDefaults(structuredClone(object) as KubeObject));
  const clusterRoles = complete(
    withGatedObjects(
      policy.clusterRoles,
      gated.clusterRoles.map(({ role, ...gates }) => ({
        ...gates,
        object: role,
      })),
      featureEnabled,
    ),
  );
  for (const role of clusterRoles) withGatedRules(role, featureEnabled);
  return {
    clusterRoles,
    clusterRoleBindings: complete(
      withGatedObjects(
        policy.clusterRoleBindings,
        gated.clusterRoleBindings.map(({ binding, ...gates }) => ({
          ...gates,
          object: binding,
        })),
        featureEnabled,
      ),
    ),
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
