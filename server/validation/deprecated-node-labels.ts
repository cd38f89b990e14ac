/**
 * Node labels the reference calls deprecated (its pkg/api/node deprecatedNodeLabels), and the
 * warnings it gives for selectors that still name them: pods, StorageClasses and
 * CSIStorageCapacities schedule by them, and a renamed label silently matches nothing.
 */
import type { KubeObject } from '../../api/objects';
import { FieldPath } from '../status/field-errors';
import { isValidLabelValue } from './names';

const DEPRECATED_NODE_LABELS: Readonly<Record<string, string>> = {
  'beta.kubernetes.io/arch': 'deprecated since v1.14; use "kubernetes.io/arch" instead',
  'beta.kubernetes.io/os': 'deprecated since v1.14; use "kubernetes.io/os" instead',
  'failure-domain.beta.kubernetes.io/region': 'deprecated since v1.17; use "topology.kubernetes.io/region" instead',
  'failure-domain.beta.kubernetes.io/zone': 'deprecated since v1.17; use "topology.kubernetes.io/zone" instead',
  'beta.kubernetes.io/instance-type': 'deprecated since v1.17; use "node.kubernetes.io/instance-type" instead',
  'app.kubernetes.io/created-by': 'deprecated since v1.9',
  'scheduler.alpha.kubernetes.io/preferAvoidPods': 'deprecated since v1.22; use Taints and Tolerations instead',
  'node-role.kubernetes.io/master': 'use "node-role.kubernetes.io/control-plane" instead',
};

/** Why the node label `key` is deprecated, or undefined when it is not. */
export function nodeLabelDeprecation(key: string): string | undefined {
  return Object.hasOwn(DEPRECATED_NODE_LABELS, key) ? DEPRECATED_NODE_LABELS[key] : undefined;
}

interface Requirement {
  key?: string;
  values?: string[];
}

/** A match expression's deprecated key, as `<path>.key: <key> is <why>`. */
function expressionKeyWarning(expression: Requirement, path: FieldPath): string[] {
  const why = nodeLabelDeprecation(expression.key ?? '');
  return why === undefined ? [] : [`${path.child('key').toString()}: ${expression.key} is ${why}`];
}

/**
 * A node selector term of a pod's node affinity (GetWarningsForNodeSelectorTerm); a preferred
 * term's values are also checked as label values, which the reference validates only there.
 */
export function nodeSelectorTermWarnings(
  term: { matchExpressions?: Requirement[] } | undefined,
  checkValues: boolean,
  path: FieldPath,
): string[] {
  return (term?.matchExpressions ?? []).flatMap((expression, i) => {
    const at = path.child('matchExpressions').index(i);
    return [
      ...expressionKeyWarning(expression, at),
      ...(checkValues
        ? (expression.values ?? []).flatMap((value, j) =>
            isValidLabelValue(value).map(
              (message) => `${at.child('values').index(j).toString()}: ${value} is invalid, ${message}`,
            ),
          )
        : []),
    ];
  });
}

/** A label selector over node labels (a CSIStorageCapacity's nodeTopology: GetWarningsForNodeSelector). */
export function nodeLabelSelectorWarnings(
  selector: { matchExpressions?: Requirement[]; matchLabels?: Record<string, string> } | undefined,
  path: FieldPath,
): string[] {
  if (selector === undefined || selector === null) return [];
  return [
    ...(selector.matchExpressions ?? []).flatMap((expression, i) =>
      expressionKeyWarning(expression, path.child('matchExpressions').index(i)),
    ),
    ...Object.keys(selector.matchLabels ?? {}).flatMap((label) => {
      const why = nodeLabelDeprecation(label);
      return why === undefined ? [] : [`${path.child('matchLabels', label).toString()}: ${why}`];
    }),
  ];
}

/** A RuntimeClass's create or update: its scheduling node selector, named as a whole as the reference does. */
export function runtimeClassWarnings(runtimeClass: KubeObject): string[] {
  const nodeSelector = (runtimeClass.scheduling as { nodeSelector?: Record<string, string> } | undefined)?.nodeSelector;
  return Object.keys(nodeSelector ?? {}).flatMap((key) => {
    const why = nodeLabelDeprecation(key);
    return why === undefined ? [] : [`scheduling.nodeSelector: ${why}`];
  });
}
