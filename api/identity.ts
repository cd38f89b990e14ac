/**
 * The names of things the API serves, as the reference's apimachinery `schema` package has them:
 * a group-version, a kind or resource in one, and a resource or kind with its group alone, with
 * their string forms. One definition for the whole tree: the server's layers and the storage
 * both speak them, so they live here, below both (api/ imports nothing).
 */

export interface GroupVersion {
  readonly group: string; // '' for the core group
  readonly version: string;
}

export interface GroupVersionKind extends GroupVersion {
  readonly kind: string;
}

export interface GroupVersionResource extends GroupVersion {
  readonly resource: string;
}

/** A resource with its group: `pods`, `deployments.apps`. */
export interface GroupResource {
  readonly group: string;
  readonly resource: string;
}

/** A kind with its group, for Invalid: `Pod`, `Deployment.apps`. */
export interface GroupKind {
  readonly group: string;
  readonly kind: string;
}

/**
 * The group-version an `apiVersion` names, as Go's schema.ParseGroupVersion reads it: without a
 * slash a core version, with one a group and a version (`/v1` is the core group's), with more
 * none (undefined).
 */
export function parseGroupVersion(apiVersion: string): GroupVersion | undefined {
  if (apiVersion === '' || apiVersion === '/') return { group: '', version: '' };
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: apiVersion };
  if (parts.length === 2) return { group: parts[0], version: parts[1] };
  return undefined;
}

/** `apiVersion` of a group-version: `v1`, `apps/v1`. */
export function groupVersionString({ group, version }: GroupVersion): string {
  return group === '' ? version : `${group}/${version}`;
}

/** `pods`, `deployments.apps`: how error messages and RBAC name a resource. */
export function qualifiedResource({ group, resource }: GroupResource): string {
  return group ? `${resource}.${group}` : resource;
}

/** `Pod`, `Deployment.apps`. */
export function qualifiedKind({ group, kind }: GroupKind): string {
  return group ? `${kind}.${group}` : kind;
}
