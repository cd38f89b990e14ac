/**
 * The order in which discovery lists groups and, within a group, versions.
 *
 * The reference registers every built-in group-version as an APIService with a group priority
 * (higher first, ties by name) and a version priority (higher first, ties by Kubernetes-aware
 * version order); `/apis` lists groups in that order and the first version of a group is its
 * preferred version. The table below holds the reference's numbers for the groups it serves;
 * groups it does not know (custom resources) get the priority the reference gives CRD groups.
 */
import type { GroupVersion } from '../../api/identity';

export interface Priority {
  readonly group: number;
  readonly version: number;
}

/** The aggregator lists its own group before every delegated one. */
const AGGREGATOR_GROUP_PRIORITY = 18100;
/** What the reference's CRD auto-registration gives a custom group and its versions. */
export const CUSTOM_GROUP_PRIORITY = 1000;
export const CUSTOM_VERSION_PRIORITY = 100;

const PRIORITIES: Readonly<Record<string, Priority>> = {
  v1: { group: 18000, version: 1 },
  'apiregistration.k8s.io/v1': { group: AGGREGATOR_GROUP_PRIORITY, version: 15 },
  'apps/v1': { group: 17800, version: 15 },
  'events.k8s.io/v1': { group: 17750, version: 15 },
  'events.k8s.io/v1beta1': { group: 17750, version: 5 },
  'authentication.k8s.io/v1': { group: 17700, version: 15 },
  'authentication.k8s.io/v1beta1': { group: 17700, version: 9 },
  'authentication.k8s.io/v1alpha1': { group: 17700, version: 1 },
  'authorization.k8s.io/v1': { group: 17600, version: 15 },
  'autoscaling/v1': { group: 17500, version: 15 },
  'autoscaling/v2': { group: 17500, version: 30 },
  'autoscaling/v2beta1': { group: 17500, version: 9 },
  'autoscaling/v2beta2': { group: 17500, version: 1 },
  'batch/v1': { group: 17400, version: 15 },
  'batch/v1beta1': { group: 17400, version: 9 },
  'certificates.k8s.io/v1': { group: 17300, version: 15 },
  'certificates.k8s.io/v1beta1': { group: 17300, version: 9 },
  'certificates.k8s.io/v1alpha1': { group: 17300, version: 1 },
  'networking.k8s.io/v1': { group: 17200, version: 15 },
  'networking.k8s.io/v1beta1': { group: 17200, version: 9 },
  'policy/v1': { group: 17100, version: 15 },
  'policy/v1beta1': { group: 17100, version: 9 },
  'rbac.authorization.k8s.io/v1': { group: 17000, version: 15 },
  'storage.k8s.io/v1': { group: 16800, version: 15 },
  'storage.k8s.io/v1beta1': { group: 16800, version: 9 },
  'storage.k8s.io/v1alpha1': { group: 16800, version: 1 },
  'apiextensions.k8s.io/v1': { group: 16700, version: 15 },
  'admissionregistration.k8s.io/v1': { group: 16700, version: 15 },
  'admissionregistration.k8s.io/v1beta1': { group: 16700, version: 12 },
  'admissionregistration.k8s.io/v1alpha1': { group: 16700, version: 9 },
  'scheduling.k8s.io/v1': { group: 16600, version: 15 },
  'coordination.k8s.io/v1': { group: 16500, version: 15 },
  'coordination.k8s.io/v1beta1': { group: 16500, version: 13 },
  'coordination.k8s.io/v1alpha2': { group: 16500, version: 12 },
  'node.k8s.io/v1': { group: 16300, version: 15 },
  'node.k8s.io/v1beta1': { group: 16300, version: 9 },
  'node.k8s.io/v1alpha1': { group: 16300, version: 1 },
  'discovery.k8s.io/v1': { group: 16200, version: 15 },
  'discovery.k8s.io/v1beta1': { group: 16200, version: 12 },
  'resource.k8s.io/v1': { group: 16200, version: 21 },
  'resource.k8s.io/v1beta2': { group: 16200, version: 15 },
  'resource.k8s.io/v1beta1': { group: 16200, version: 9 },
  'resource.k8s.io/v1alpha3': { group: 16200, version: 1 },
  'flowcontrol.apiserver.k8s.io/v1': { group: 16100, version: 21 },
  'flowcontrol.apiserver.k8s.io/v1beta3': { group: 16100, version: 18 },
  'flowcontrol.apiserver.k8s.io/v1beta2': { group: 16100, version: 15 },
  'flowcontrol.apiserver.k8s.io/v1beta1': { group: 16100, version: 12 },
  'internal.apiserver.k8s.io/v1alpha1': { group: 16000, version: 9 },
  'storagemigration.k8s.io/v1alpha1': { group: 15800, version: 9 },
};

export function priorityOf({ group, version }: GroupVersion): Priority | undefined {
  return PRIORITIES[group === '' ? version : `${group}/${version}`];
}

/** A group's priority is the highest of its versions' (the reference's GroupPriorityMinimum rule). */
export function groupPriority(group: string, versions: readonly string[]): number {
  const known = versions.map((version) => priorityOf({ group, version })?.group ?? CUSTOM_GROUP_PRIORITY);
  return Math.max(CUSTOM_GROUP_PRIORITY, ...known);
}

/** Sort comparator for versions within a group: preferred first. */
export function compareVersionsInGroup(group: string, a: string, b: string): number {
  const priorityA = priorityOf({ group, version: a })?.version ?? CUSTOM_VERSION_PRIORITY;
  const priorityB = priorityOf({ group, version: b })?.version ?? CUSTOM_VERSION_PRIORITY;
  if (priorityA !== priorityB) return priorityB - priorityA;
  return compareKubeAwareVersions(a, b);
}

/** Sort comparator for groups given each group's versions: highest priority first, then by name. */
export function compareGroups(
  a: { readonly name: string; readonly versions: readonly string[] },
  b: { readonly name: string; readonly versions: readonly string[] },
): number {
  const difference = groupPriority(b.name, b.versions) - groupPriority(a.name, a.versions);
  if (difference !== 0) return difference;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

const KUBE_VERSION = /^v(\d+)(?:(alpha|beta)(\d+))?$/;
const STABILITY_RANK: Readonly<Record<string, number>> = { '': 3, beta: 2, alpha: 1 };

/**
 * Kubernetes-aware version order, preferred first: GA before beta before alpha, higher major
 * first, then higher minor; strings that are not Kubernetes versions come last, by name.
 * (v10, v2, v1, v11beta2, v10beta3, v3beta1, v12alpha1, v11alpha2, foo1, foo10)
 */
export function compareKubeAwareVersions(a: string, b: string): number {
  const matchA = KUBE_VERSION.exec(a);
  const matchB = KUBE_VERSION.exec(b);
  if (!matchA || !matchB) {
    if (matchA) return -1;
    if (matchB) return 1;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  const stabilityA = STABILITY_RANK[matchA[2] ?? ''];
  const stabilityB = STABILITY_RANK[matchB[2] ?? ''];
  if (stabilityA !== stabilityB) return stabilityB - stabilityA;
  const majorDifference = Number(matchB[1]) - Number(matchA[1]);
  if (majorDifference !== 0) return majorDifference;
  return Number(matchB[3] ?? 0) - Number(matchA[3] ?? 0);
}
