/**
 * Quota scopes: a quota with `spec.scopes` or `spec.scopeSelector` counts only the pods that
 * match every scope (Terminating, NotTerminating, BestEffort, NotBestEffort, PriorityClass), as
 * the reference's pod evaluator decides. Other kinds never match a scoped quota; scopes capstan
 * does not evaluate yet (CrossNamespacePodAffinity, VolumeAttributesClass) match nothing, so
 * such a quota is not enforced rather than enforced wrongly.
 */
import type { KubeObject } from '../../storage/objects/types';

type Fields = Record<string, unknown>;

interface ScopeRequirement {
  readonly scopeName: string;
  readonly operator: string;
  readonly values: readonly string[];
}

function record(value: unknown): Fields {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Fields) : {};
}

function requirementsOf(quota: KubeObject): ScopeRequirement[] {
  const spec = record(quota.spec);
  const named = (Array.isArray(spec.scopes) ? spec.scopes : []).map((scopeName) => ({ scopeName: String(scopeName), operator: 'Exists', values: [] }));
  const expressions = record(spec.scopeSelector).matchExpressions;
  const selected = (Array.isArray(expressions) ? expressions : []).map(record).map((expression) => ({
    scopeName: String(expression.scopeName),
    operator: String(expression.operator),
    values: Array.isArray(expression.values) ? expression.values.map(String) : [],
  }));
  return [...named, ...selected];
}

/** BestEffort QoS: no container states a cpu or memory request or limit. */
function isBestEffort(pod: KubeObject): boolean {
  const spec = record(pod.spec);
  const containers = [...(Array.isArray(spec.containers) ? spec.containers : []), ...(Array.isArray(spec.initContainers) ? spec.initContainers : [])].map(record);
  return containers.every((container) => {
    const resources = record(container.resources);
    return ['requests', 'limits'].every((field) => !('cpu' in record(resources[field])) && !('memory' in record(resources[field])));
  });
}

function matchesRequirement(pod: KubeObject, requirement: ScopeRequirement): boolean {
  const spec = record(pod.spec);
  const terminating = typeof spec.activeDeadlineSeconds === 'number' && spec.activeDeadlineSeconds >= 0;
  const holds = (value: boolean) => (requirement.operator === 'DoesNotExist' ? !value : value);
  switch (requirement.scopeName) {
    case 'Terminating': return holds(terminating);
    case 'NotTerminating': return holds(!terminating);
    case 'BestEffort': return holds(isBestEffort(pod));
    case 'NotBestEffort': return holds(!isBestEffort(pod));
    case 'PriorityClass': {
      const className = typeof spec.priorityClassName === 'string' ? spec.priorityClassName : '';
      if (requirement.operator === 'In') return requirement.values.includes(className);
      if (requirement.operator === 'NotIn') return !requirement.values.includes(className);
      if (requirement.operator === 'Exists') return className !== '';
      return className === '';
    }
    default: return false;
  }
}

/** Whether `quota` counts `object` of `group/resource`: always when unscoped, else only matching pods. */
export function quotaCounts(quota: KubeObject, group: string, resource: string, object: KubeObject): boolean {
  const requirements = requirementsOf(quota);
  if (requirements.length === 0) return true;
  if (group !== '' || resource !== 'pods') return false;
  return requirements.every((requirement) => matchesRequirement(object, requirement));
}
