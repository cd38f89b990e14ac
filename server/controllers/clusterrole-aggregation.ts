/**
 * Keeps aggregated cluster roles filled: a ClusterRole with an `aggregationRule` gets as its
 * rules those of every other cluster role whose labels match one of its selectors, taken in
 * name order, each rule once. Any cluster role change makes it look again, so a role labeled
 * `aggregate-to-view` shows up in `view` (and, through `view`'s own label, in `edit` and
 * `admin`) as soon as it is written. Runs on the leader, like the reference's controller.
 */
import type { KubeObject } from '../../api/objects';
import { RBAC_GROUP, rulesOf, type PolicyRule } from '../authz/rbac/policy';
import { labelRequirementMatches, type LabelOperator, type LabelRequirement } from '../selectors/label-selector';
import { deepEqual } from '../status/field-errors';
import { startInformer } from '../client/informer';
import type { ObjectOperations } from '../client/operations';
import { compareStrings } from '../string-order';

interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
}

const EXPRESSION_OPERATORS: Readonly<Record<string, LabelOperator>> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
};

function selectorRequirements(selector: LabelSelector): LabelRequirement[] | undefined {
  const requirements: LabelRequirement[] = Object.entries(selector.matchLabels ?? {}).map(([key, value]) => ({
    key,
    operator: '=',
    values: [value],
  }));
  for (const { key, operator, values = [] } of selector.matchExpressions ?? []) {
    const mapped = EXPRESSION_OPERATORS[operator];
    if (mapped === undefined) return undefined; // a selector that cannot match anything
    requirements.push({ key, operator: mapped, values });
  }
  return requirements;
}

/** The rules an aggregated role should hold given all cluster roles; undefined for a role that aggregates nothing. */
export function aggregatedRules(role: KubeObject, all: Iterable<KubeObject>): PolicyRule[] | undefined {
  if (role.aggregationRule === undefined || role.aggregationRule === null) return undefined;
  const selectors = ((role.aggregationRule as { clusterRoleSelectors?: LabelSelector[] }).clusterRoleSelectors ?? [])
    .map(selectorRequirements)
    .filter((requirements): requirements is LabelRequirement[] => requirements !== undefined);
  const others = [...all]
    .filter((other) => other.metadata.name !== role.metadata.name)
    .sort((a, b) => compareStrings(String(a.metadata.name), String(b.metadata.name)));
  const rules: PolicyRule[] = [];
  for (const requirements of selectors) {
    for (const other of others) {
      const labels = other.metadata.labels ?? {};
      if (!requirements.every((requirement) => labelRequirementMatches(requirement, labels))) continue;
      for (const rule of rulesOf(other)) if (!rules.some((known) => deepEqual(known, rule))) rules.push(rule);
    }
  }
  return rules;
}

export function startClusterRoleAggregation(operations: ObjectOperations, stop: AbortSignal): void {
  const type = operations.registry.find({ group: RBAC_GROUP, version: 'v1' }, 'clusterroles');
  if (!type) return;
  let scheduled = false;
  const informer = startInformer(operations.storageFor(type), {
    onUpsert: () => schedule(),
    onDelete: () => schedule(),
  });

  const syncAll = async (): Promise<void> => {
    for (const role of informer.objects.values()) {
      const wanted = aggregatedRules(role, informer.objects.values());
      if (wanted === undefined || deepEqual(rulesOf(role), wanted)) continue;
      await operations.updateObject(type, { name: String(role.metadata.name) }, (current) => {
        current.rules = aggregatedRules(current, informer.objects.values()) ?? rulesOf(current);
      });
    }
  };
  // Many changes in a row (the bootstrap policy, a relist) make one pass.
  function schedule(): void {
    if (scheduled || stop.aborted) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      void informer.synced.then(syncAll).catch(() => setTimeout(schedule, 1_000).unref());
    });
  }
  stop.addEventListener('abort', () => informer.stop(), { once: true });
}
