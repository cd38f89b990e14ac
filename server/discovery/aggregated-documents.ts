/**
 * Aggregated discovery (`apidiscovery.k8s.io` v2 and v2beta1): every group, version and resource
 * in one document, so a client learns the whole API in two requests (`/api`, `/apis`). Both
 * versions share one shape; only `apiVersion` differs.
 */
import type { Verb } from '../registry/types';
import type { ServedGroup, ServedGroupVersion, ServedResource } from './served-groups';
import { discoveryVerbs, servedSubresources } from './subresources';

import type { GroupVersionKind } from '../../api/identity';
export type AggregatedDiscoveryVersion = 'v2' | 'v2beta1';

export interface APISubresourceDiscovery {
  readonly subresource: string;
  readonly responseKind: GroupVersionKind;
  readonly verbs: readonly Verb[];
}

export interface APIResourceDiscovery {
  readonly resource: string;
  readonly responseKind: GroupVersionKind;
  readonly scope: 'Namespaced' | 'Cluster';
  readonly singularResource: string;
  readonly verbs: readonly Verb[];
  readonly shortNames?: readonly string[];
  readonly categories?: readonly string[];
  readonly subresources?: readonly APISubresourceDiscovery[];
}

export interface APIVersionDiscovery {
  readonly version: string;
  /** Absent for a `Stale` version. */
  readonly resources?: readonly APIResourceDiscovery[];
  /** `Current` for what this process serves; `Stale` for an extension server's version it could not discover. */
  readonly freshness: 'Current' | 'Stale';
}

export interface APIGroupDiscovery {
  /** The core group's entry has no name. */
  readonly metadata: { readonly name?: string };
  readonly versions: readonly APIVersionDiscovery[];
}

export interface APIGroupDiscoveryList {
  readonly kind: 'APIGroupDiscoveryList';
  readonly apiVersion: `apidiscovery.k8s.io/${AggregatedDiscoveryVersion}`;
  readonly metadata: Record<string, never>;
  readonly items: readonly APIGroupDiscovery[];
}

/**
 * The aggregated document for `/api` (`groups` holding the core group only) or `/apis` (the
 * named groups), in the order given.
 */
export function aggregatedDiscoveryDocument(options: {
  groups: readonly ServedGroup[];
  version: AggregatedDiscoveryVersion;
}): APIGroupDiscoveryList {
  return {
    kind: 'APIGroupDiscoveryList',
    apiVersion: `apidiscovery.k8s.io/${options.version}`,
    metadata: {},
    items: options.groups.map(groupEntry),
  };
}

function groupEntry(group: ServedGroup): APIGroupDiscovery {
  return {
    metadata: group.name === '' ? {} : { name: group.name },
    versions: group.versions.map((groupVersion) => ({
      version: groupVersion.version,
      resources: groupVersion.resources.map((resource) => resourceEntry(resource, groupVersion)),
      freshness: 'Current',
    })),
  };
}

function resourceEntry({ type }: ServedResource, groupVersion: ServedGroupVersion): APIResourceDiscovery {
  // The reference's installer copies the unaggregated list's group and version, which are empty
  // for a kind of the resource's own group version; its apiextensions server names them.
  const responseKind = (kind: GroupVersionKind): GroupVersionKind =>
    type.custom || kind.group !== groupVersion.group || kind.version !== groupVersion.version
      ? kind
      : { group: '', version: '', kind: kind.kind };
  const subresources = servedSubresources(type, groupVersion).map((subresource) => ({
    subresource: subresource.name,
    responseKind: responseKind(subresource.responseKind),
    verbs: subresource.verbs,
  }));
  return {
    resource: type.resource,
    responseKind: responseKind({ group: groupVersion.group, version: groupVersion.version, kind: type.kind }),
    scope: type.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: type.singular,
    verbs: discoveryVerbs(type),
    ...(type.shortNames.length > 0 ? { shortNames: type.shortNames } : {}),
    ...(type.categories.length > 0 ? { categories: type.categories } : {}),
    ...(subresources.length > 0 ? { subresources } : {}),
  };
}
