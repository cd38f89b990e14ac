/**
 * The APIService object as the aggregator reads it: which group-version it stands for, whether
 * this server serves it (local) or an extension server behind a Service does (remote), and its
 * Available condition.
 */
import type { KubeObject } from './objects';
import type { GroupVersion } from './identity';

export const APIREGISTRATION_GROUP = 'apiregistration.k8s.io';
/** Marks the APIServices the server made itself: `onstart` for built-in groups, `true` for custom resources'. */
export const AUTOMANAGED_LABEL = 'kube-aggregator.kubernetes.io/automanaged';

export interface ServiceReference {
  readonly namespace: string;
  readonly name: string;
  readonly port: number;
}

export interface APIServiceSpec {
  readonly group?: string;
  readonly version?: string;
  readonly groupPriorityMinimum?: number;
  readonly versionPriority?: number;
  readonly service?: { readonly namespace?: string; readonly name?: string; readonly port?: number } | null;
  readonly caBundle?: string;
  readonly insecureSkipTLSVerify?: boolean;
}

export interface AvailableCondition {
  readonly type: 'Available';
  readonly status: 'True' | 'False' | 'Unknown';
  readonly lastTransitionTime?: string;
  readonly reason?: string;
  readonly message?: string;
}

/** A local APIService's condition: set as it is created, and kept by the availability checks. */
export const LOCAL_AVAILABLE = {
  type: 'Available',
  status: 'True',
  reason: 'Local',
  message: 'Local APIServices are always available',
} as const satisfies AvailableCondition;

/** `<version>.<group>`: the only name an APIService for that group-version may have (`v1.` for the core group). */
export function apiServiceName({ group, version }: GroupVersion): string {
  return `${version}.${group}`;
}

export function specOf(apiService: KubeObject): APIServiceSpec {
  return (apiService.spec ?? {}) as APIServiceSpec;
}

export function groupVersionOf(apiService: KubeObject): GroupVersion {
  const spec = specOf(apiService);
  return { group: spec.group ?? '', version: spec.version ?? '' };
}

/** The Service an extension server is reached through; undefined for a local APIService. */
export function serviceOf(apiService: KubeObject): ServiceReference | undefined {
  const service = specOf(apiService).service;
  if (service === undefined || service === null) return undefined;
  return { namespace: service.namespace ?? '', name: service.name ?? '', port: service.port ?? 443 };
}

export function availableConditionOf(apiService: KubeObject): AvailableCondition | undefined {
  const conditions = (apiService.status as { conditions?: unknown } | undefined)?.conditions;
  if (!Array.isArray(conditions)) return undefined;
  return (conditions as AvailableCondition[]).find((condition) => condition?.type === 'Available');
}

export function isAvailable(apiService: KubeObject): boolean {
  return availableConditionOf(apiService)?.status === 'True';
}
