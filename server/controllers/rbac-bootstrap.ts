/**
 * The default RBAC policy at every start, as the reference's `rbac/bootstrap-roles` post-start
 * hook keeps it: missing roles and bindings are created; existing ones gain the rules, labels,
 * annotations, aggregation selectors and subjects they lack, unless an administrator set their
 * autoupdate annotation to "false"; a default binding whose roleRef changed is recreated, since
 * roleRef cannot be updated. What administrators added is never removed. Every replica runs it
 * (creating what exists is not an error, updates retry on conflicts), so the policy is there
 * before a replica reports ready.
 */
import { EVERYTHING, type ObjectKey } from '../../storage/objects/types';
import { AUTOUPDATE_ANNOTATION, bootstrapPolicy } from '../authz/rbac/bootstrap-policy';
import { uncoveredRules } from '../authz/rbac/covers';
import { RBAC_GROUP, roleRefOf, rulesOf, subjectsOf, type PolicyRule, type Subject } from '../authz/rbac/policy';
import type { ResourceType } from '../registry/types';
import { deepEqual } from '../status/field-errors';
import { forEachConcurrently } from './concurrently';
import type { ObjectOperations } from '../client/operations';

import type { KubeObject } from '../../api/objects';
interface AggregationRule {
  clusterRoleSelectors?: unknown[];
}

export async function reconcileBootstrapPolicy(
  operations: ObjectOperations,
  featureEnabled: (gate: string) => boolean,
): Promise<void> {
  const policy = bootstrapPolicy(featureEnabled);
  const type = (resource: string): ResourceType => {
    const found = operations.registry.find({ group: RBAC_GROUP, version: 'v1' }, resource);
    if (!found) throw new Error(`${RBAC_GROUP}/v1 ${resource} are not served`);
    return found;
  };
  // Each object is reconciled on its own (the aggregation controller fills aggregated roles
  // later), so they go in parallel: a start waits one store round trip a write. What is stored
  // is listed once a kind rather than read once an object: on a fresh store that is a quarter
  // of a start's store requests.
  const reconcileAll = async (
    resource: string,
    expected: readonly KubeObject[],
    reconcile: (
      operations: ObjectOperations,
      type: ResourceType,
      expected: KubeObject,
      existing?: KubeObject,
    ) => Promise<void>,
  ) => {
    const stored = await storedObjects(operations, type(resource));
    await forEachConcurrently(expected, RECONCILE_CONCURRENCY, (object) =>
      reconcile(operations, type(resource), object, stored.get(keyString(keyOf(object)))),
    );
  };
  await Promise.all([
    reconcileAll('clusterroles', policy.clusterRoles, reconcileRole),
    reconcileAll('roles', policy.roles, reconcileRole),
    reconcileAll('clusterrolebindings', policy.clusterRoleBindings, reconcileBinding),
    reconcileAll('rolebindings', policy.roleBindings, reconcileBinding),
  ]);
}

/** Writes in flight per kind of policy object. */
const RECONCILE_CONCURRENCY = 8;

function keyOf(object: KubeObject): ObjectKey {
  return { namespace: object.metadata.namespace, name: String(object.metadata.name) };
}

function keyString(key: ObjectKey): string {
  return `${key.namespace ?? ''}/${key.name}`;
}

/** Every stored object of a kind, by namespace and name. */
async function storedObjects(operations: ObjectOperations, type: ResourceType): Promise<Map<string, KubeObject>> {
  const { items } = await operations.storageFor(type).list({}, { predicate: EVERYTHING });
  return new Map(items.map((object) => [keyString(keyOf(object)), object]));
}

function autoupdateDisabled(object: KubeObject): boolean {
  return object.metadata.annotations?.[AUTOUPDATE_ANNOTATION] === 'false';
}

/** Adds the expected labels and annotations an object lacks; its own values win. Reports whether it changed. */
function addMissingMetadata(object: KubeObject, expected: KubeObject): boolean {
  let changed = false;
  for (const field of ['labels', 'annotations'] as const) {
    for (const [key, value] of Object.entries(expected.metadata[field] ?? {})) {
      const existing = (object.metadata[field] ??= {});
      if (existing[key] === undefined) {
        existing[key] = value;
        changed = true;
      }
    }
  }
  return changed;
}

async function reconcileRole(
  operations: ObjectOperations,
  type: ResourceType,
  expected: KubeObject,
  existing: KubeObject | undefined,
): Promise<void> {
  if (existing === undefined) {
    await operations.createObject(type, expected);
    return;
  }
  if (autoupdateDisabled(existing)) return;
  const reconcile = (role: KubeObject): boolean => {
    let changed = addMissingMetadata(role, expected);
    const missing = rulesOf(expected).filter((rule) => uncoveredRules(rulesOf(role), [rule]).length > 0);
    if (missing.length > 0 && expected.aggregationRule === undefined) {
      role.rules = [...rulesOf(role), ...missing] as PolicyRule[];
      changed = true;
    }
    const wantedSelectors = (expected.aggregationRule as AggregationRule | undefined)?.clusterRoleSelectors ?? [];
    if (wantedSelectors.length > 0) {
      const aggregation = ((role.aggregationRule as AggregationRule | undefined) ?? {}) as AggregationRule;
      const selectors = aggregation.clusterRoleSelectors ?? [];
      const absent = wantedSelectors.filter((wanted) => !selectors.some((selector) => deepEqual(selector, wanted)));
      if (absent.length > 0) {
        role.aggregationRule = { ...aggregation, clusterRoleSelectors: [...selectors, ...absent] };
        changed = true;
      }
    }
    return changed;
  };
  if (!reconcile(structuredClone(existing))) return;
  await operations.updateObject(type, keyOf(expected), (role) => void reconcile(role));
}

async function reconcileBinding(
  operations: ObjectOperations,
  type: ResourceType,
  expected: KubeObject,
  existing: KubeObject | undefined,
): Promise<void> {
  const key = keyOf(expected);
  if (existing === undefined) {
    await operations.createObject(type, expected);
    return;
  }
  if (autoupdateDisabled(existing)) return;
  if (!deepEqual(roleRefOf(existing), roleRefOf(expected))) {
    // roleRef cannot change: the default binding comes back whole, keeping the subjects it had.
    const subjects = [...subjectsOf(existing), ...missingSubjects(subjectsOf(existing), subjectsOf(expected))];
    await operations.deleteObject(type, key, { uid: existing.metadata.uid });
    await operations.createObject(type, { ...expected, subjects });
    return;
  }
  const reconcile = (binding: KubeObject): boolean => {
    let changed = addMissingMetadata(binding, expected);
    const missing = missingSubjects(subjectsOf(binding), subjectsOf(expected));
    if (missing.length > 0) {
      binding.subjects = [...subjectsOf(binding), ...missing];
      changed = true;
    }
    return changed;
  };
  if (!reconcile(structuredClone(existing))) return;
  await operations.updateObject(type, key, (binding) => void reconcile(binding));
}

function missingSubjects(existing: readonly Subject[], expected: readonly Subject[]): Subject[] {
  const same = (a: Subject, b: Subject) =>
    a.kind === b.kind && a.name === b.name && (a.namespace ?? '') === (b.namespace ?? '');
  return expected.filter((wanted) => !existing.some((subject) => same(subject, wanted)));
}
