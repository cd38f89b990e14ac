/**
 * Quota scopes: a quota with `spec.scopes` or `spec.scopeSelector` counts only the objects that
 * match every scope, as the reference's evaluators decide. Pods match Terminating,
 * NotTerminating, BestEffort, NotBestEffort, PriorityClass and CrossNamespacePodAffinity;
 * PersistentVolumeClaims match VolumeAttributesClass. Every other kind never matches a scoped
 * quota (the reference's generic evaluator matches no scope).
 */
import type { KubeObject } from '../../api/objects';

type Fields = Record<string, unknown>;

interface ScopeRequirement {
  readonly scopeName: string;
  readonly operator: string;
  readonly values: readonly string[];
}

function record(value: unknown): Fields {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Fields) : {};
}

function list(value: unknown): Fields[] {
  return Array.isArray(value) ? value.map(record) : [];
}

function requirementsOf(quota: KubeObject): ScopeRequirement[] {
  const spec = record(quota.spec);
  const named = (Array.isArray(spec.scopes) ? spec.scopes : []).map((scopeName) => ({
    scopeName: String(scopeName),
    operator: 'Exists',
    values: [],
  }));
  const selected = list(record(spec.scopeSelector).matchExpressions).map((expression) => ({
    scopeName: String(expression.scopeName),
    operator: String(expression.operator),
    values: Array.isArray(expression.values) ? expression.values.map(String) : [],
  }));
  return [...named, ...selected];
}

/**
 * A requirement on a scope whose value an object may name several times (a PVC's requested and
 * current VolumeAttributesClass): the object matches when one of its names, taken as the label
 * `<scope>=<name>`, satisfies the requirement as a label selector would; with no name, an
 * empty label set must satisfy it.
 */
function namesMatch(requirement: ScopeRequirement, names: readonly string[]): boolean {
  const holds = (name: string | undefined): boolean => {
    switch (requirement.operator) {
      case 'In':
        return name !== undefined && requirement.values.includes(name);
      case 'NotIn':
        return name === undefined || !requirement.values.includes(name);
      case 'Exists':
        return name !== undefined;
      case 'DoesNotExist':
        return name === undefined;
      default:
        return false;
    }
  };
  return names.length === 0 ? holds(undefined) : names.some(holds);
}

/** BestEffort QoS: no container states a cpu or memory request or limit. */
function isBestEffort(pod: KubeObject): boolean {
  const spec = record(pod.spec);
  return [...list(spec.containers), ...list(spec.initContainers)].every((container) => {
    const resources = record(container.resources);
    return ['requests', 'limits'].every(
      (field) => !('cpu' in record(resources[field])) && !('memory' in record(resources[field])),
    );
  });
}

/** A pod with `activeDeadlineSeconds` ends by itself: the Terminating scope. */
export function isTerminatingPod(pod: KubeObject): boolean {
  const deadline = record(pod.spec).activeDeadlineSeconds;
  return typeof deadline === 'number' && deadline >= 0;
}

/** Whether a pod (anti-)affinity term, required or preferred, looks at pods of other namespaces. */
function usesCrossNamespacePodAffinity(pod: KubeObject): boolean {
  const affinity = record(record(pod.spec).affinity);
  return [affinity.podAffinity, affinity.podAntiAffinity].map(record).some((terms) => {
    const required = list(terms.requiredDuringSchedulingIgnoredDuringExecution);
    const preferred = list(terms.preferredDuringSchedulingIgnoredDuringExecution).map((weighted) =>
      record(weighted.podAffinityTerm),
    );
    return [...required, ...preferred].some(
      (term) =>
        (Array.isArray(term.namespaces) && term.namespaces.length > 0) ||
        (term.namespaceSelector !== undefined && term.namespaceSelector !== null),
    );
  });
}

function podMatches(pod: KubeObject, requirement: ScopeRequirement): boolean {
  switch (requirement.scopeName) {
    case 'Terminating':
      return isTerminatingPod(pod);
    case 'NotTerminating':
      return !isTerminatingPod(pod);
    case 'BestEffort':
      return isBestEffort(pod);
    case 'NotBestEffort':
      return !isBestEffort(pod);
    case 'PriorityClass': {
      const className = record(pod.spec).priorityClassName;
      return namesMatch(requirement, typeof className === 'string' && className !== '' ? [className] : []);
    }
    case 'CrossNamespacePodAffinity':
      return usesCrossNamespacePodAffinity(pod);
    default:
      return false;
  }
}

/** The VolumeAttributesClasses a claim names: the one asked for, the current one and the one it is being changed to. */
export function volumeAttributesClassesOf(claim: KubeObject): string[] {
  const status = record(claim.status);
  const names = [
    record(claim.spec).volumeAttributesClassName,
    status.currentVolumeAttributesClassName,
    record(status.modifyVolumeStatus).targetVolumeAttributesClassName,
  ];
  return [...new Set(names.filter((name): name is string => typeof name === 'string' && name !== ''))];
}

function claimMatches(claim: KubeObject, requirement: ScopeRequirement): boolean {
  return requirement.scopeName === 'VolumeAttributesClass' && namesMatch(requirement, volumeAttributesClassesOf(claim));
}

/** Whether `quota` counts `object` of `group/resource`: always when unscoped, else only when every scope matches. */
export function quotaCounts(quota: KubeObject, group: string, resource: string, object: KubeObject): boolean {
  const requirements = requirementsOf(quota);
  if (requirements.length === 0) return true;
  const matches =
    group !== ''
      ? undefined
      : resource === 'pods'
        ? podMatches
        : resource === 'persistentvolumeclaims'
          ? claimMatches
          : undefined;
  return matches !== undefined && requirements.every((requirement) => matches(object, requirement));
}
