/**
 * Quota scopes: a quota with `spec.scopes` or `spec.scopeSelector` counts only the objects that
 * match every scope, as the reference's evaluators decide: pods by Terminating, NotTerminating,
 * BestEffort, NotBestEffort, PriorityClass and CrossNamespacePodAffinity; PersistentVolumeClaims
 * by VolumeAttributesClass. Other kinds never match a scoped quota.
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

/**
 * A scope selector's value requirement against the one value the object has for it (none: ''),
 * as the reference matches its label selector `{<scope>: value}`.
 */
function valueMatches(requirement: ScopeRequirement, values: readonly string[]): boolean {
  const present = values.filter((value) => value !== '');
  switch (requirement.operator) {
    case 'In': return present.some((value) => requirement.values.includes(value));
    case 'NotIn': return present.length === 0 || present.some((value) => !requirement.values.includes(value));
    case 'Exists': return present.length > 0;
    default: return present.length === 0;
  }
}

/** An affinity term that looks beyond the pod's namespace: `namespaces` or a `namespaceSelector`. */
function crossNamespaceTerm(term: Fields): boolean {
  return (Array.isArray(term.namespaces) && term.namespaces.length > 0) || (term.namespaceSelector !== undefined && term.namespaceSelector !== null);
}

/** Pod (anti-)affinity, required or preferred, with a term across namespaces. */
function usesCrossNamespacePodAffinity(pod: KubeObject): boolean {
  const affinity = record(record(pod.spec).affinity);
  return [record(affinity.podAffinity), record(affinity.podAntiAffinity)].some((kind) => {
    const required = Array.isArray(kind.requiredDuringSchedulingIgnoredDuringExecution) ? kind.requiredDuringSchedulingIgnoredDuringExecution.map(record) : [];
    const preferred = Array.isArray(kind.preferredDuringSchedulingIgnoredDuringExecution) ? kind.preferredDuringSchedulingIgnoredDuringExecution.map((weighted) => record(record(weighted).podAffinityTerm)) : [];
    return [...required, ...preferred].some(crossNamespaceTerm);
  });
}

function podMatches(pod: KubeObject, requirement: ScopeRequirement): boolean {
  const spec = record(pod.spec);
  const terminating = typeof spec.activeDeadlineSeconds === 'number' && spec.activeDeadlineSeconds >= 0;
  switch (requirement.scopeName) {
    case 'Terminating': return terminating;
    case 'NotTerminating': return !terminating;
    case 'BestEffort': return isBestEffort(pod);
    case 'NotBestEffort': return !isBestEffort(pod);
    case 'PriorityClass': return valueMatches(requirement, [typeof spec.priorityClassName === 'string' ? spec.priorityClassName : '']);
    case 'CrossNamespacePodAffinity': return usesCrossNamespacePodAffinity(pod);
    default: return false;
  }
}

/** The VolumeAttributesClasses a claim names: asked for, current, and the one a modification goes to. */
function volumeAttributesClassesOf(claim: KubeObject): string[] {
  const spec = record(claim.spec);
  const status = record(claim.status);
  return [spec.volumeAttributesClassName, status.currentVolumeAttributesClassName, record(status.modifyVolumeStatus).targetVolumeAttributesClassName].filter(
    (name): name is string => typeof name === 'string' && name !== '',
  );
}

function claimMatches(claim: KubeObject, requirement: ScopeRequirement): boolean {
  return requirement.scopeName === 'VolumeAttributesClass' && valueMatches(requirement, volumeAttributesClassesOf(claim));
}

/** Whether `quota` counts `object` of `group/resource`: always when unscoped, else only the pods and claims its scopes select. */
export function quotaCounts(quota: KubeObject, group: string, resource: string, object: KubeObject): boolean {
  const requirements = requirementsOf(quota);
  if (requirements.length === 0) return true;
  if (group !== '') return false;
  if (resource === 'pods') return requirements.every((requirement) => podMatches(object, requirement));
  if (resource === 'persistentvolumeclaims') return requirements.every((requirement) => claimMatches(object, requirement));
  return false;
}
