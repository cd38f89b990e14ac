/**
 * A new pod's own values for the label keys its scheduling terms name, added to their selectors,
 * as the reference's pod PrepareForCreate does: `matchLabelKeys` become `In` requirements and
 * (pod affinity only) `mismatchLabelKeys` become `NotIn` ones, so a term written once in a
 * template selects only the pods of the same revision. Only pods are changed; templates keep
 * the keys for the pods made from them. A term without a selector selects nothing and stays so.
 */
import type { KubeObject } from '../../../api/objects';
import type { Json } from '../defaults/fill';
import { isObject } from '../../json/value';
import type { WriteContext } from '../types';
import { listAt, objectAt } from './gated-fields';

function addRequirements(selector: Json, keys: unknown, operator: 'In' | 'NotIn', labels: Record<string, string>) {
  if (!Array.isArray(keys)) return;
  for (const key of keys) {
    if (typeof key !== 'string' || !Object.hasOwn(labels, key)) continue;
    const expressions = Array.isArray(selector.matchExpressions) ? selector.matchExpressions : [];
    selector.matchExpressions = [...expressions, { key, operator, values: [labels[key]] }];
  }
}

/** Every pod (anti-)affinity term: the required ones and the preferred ones' terms. */
function affinityTerms(pod: KubeObject): Json[] {
  return ['podAffinity', 'podAntiAffinity'].flatMap((kind) => [
    ...listAt(pod, `spec.affinity.${kind}.preferredDuringSchedulingIgnoredDuringExecution`).flatMap((weighted) => {
      const term = objectAt(weighted, 'podAffinityTerm');
      return term === undefined ? [] : [term];
    }),
    ...listAt(pod, `spec.affinity.${kind}.requiredDuringSchedulingIgnoredDuringExecution`),
  ]);
}

export function mergeMatchLabelKeys(pod: KubeObject, context: WriteContext): void {
  const labels = pod.metadata.labels ?? {};
  if (context.featureEnabled('MatchLabelKeysInPodAffinity')) {
    for (const term of affinityTerms(pod)) {
      if (!isObject(term.labelSelector)) continue;
      addRequirements(term.labelSelector, term.matchLabelKeys, 'In', labels);
      addRequirements(term.labelSelector, term.mismatchLabelKeys, 'NotIn', labels);
    }
  }
  if (
    context.featureEnabled('MatchLabelKeysInPodTopologySpread') &&
    context.featureEnabled('MatchLabelKeysInPodTopologySpreadSelectorMerge')
  ) {
    for (const constraint of listAt(pod, 'spec.topologySpreadConstraints')) {
      if (isObject(constraint.labelSelector))
        addRequirements(constraint.labelSelector, constraint.matchLabelKeys, 'In', labels);
    }
  }
}
