/**
 * The unaggregated discovery documents (`/api`, `/api/v1`, `/apis`, `/apis/<group>`,
 * `/apis/<group>/<version>`), as pure functions of the served groups. Field order and omitted
 * fields follow the reference's JSON, so that clients comparing documents see no difference.
 */
import { encodedGroupVersion, type Verb } from '../registry/types';
import type { ServedGroup, ServedGroupVersion, ServedResource } from './served-groups';
import { storageVersionHash } from './storage-version-hash';
import { discoveryVerbs, servedSubresources } from './subresources';

import { groupVersionString } from '../../api/identity';
export interface ServerAddressByClientCIDR {
  readonly clientCIDR: string;
  readonly serverAddress: string;
}

export interface APIVersions {
  readonly kind: 'APIVersions';
  readonly versions: readonly string[];
  readonly serverAddressByClientCIDRs: readonly ServerAddressByClientCIDR[];
}

export interface GroupVersionForDiscovery {
  readonly groupVersion: string;
  readonly version: string;
}

export interface APIGroup {
  readonly kind?: 'APIGroup';
  readonly apiVersion?: 'v1';
  readonly name: string;
  readonly versions: readonly GroupVersionForDiscovery[];
  readonly preferredVersion: GroupVersionForDiscovery;
}

export interface APIGroupList {
  readonly kind: 'APIGroupList';
  readonly apiVersion: 'v1';
  readonly groups: readonly APIGroup[];
}

export interface APIResource {
  readonly name: string;
  readonly singularName: string;
  readonly namespaced: boolean;
  readonly group?: string;
  readonly version?: string;
  readonly kind: string;
  readonly verbs: readonly Verb[];
  readonly shortNames?: readonly string[];
  readonly categories?: readonly string[];
  readonly storageVersionHash?: string;
}

export interface APIResourceList {
  readonly kind: 'APIResourceList';
  /** The reference leaves it out for the core group's list. */
  readonly apiVersion?: 'v1';
  readonly groupVersion: string;
  readonly resources: readonly APIResource[];
}

/** `GET /api`: the core group's versions and where clients reach the server. */
export function apiVersionsDocument(options: { core: ServedGroup | undefined; serverAddress: string }): APIVersions {
  return {
    kind: 'APIVersions',
    versions: options.core?.versions.map((v) => v.version) ?? [],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: options.serverAddress }],
  };
}

/** `GET /apis`: every named group (the core group is listed at `/api` instead). */
export function apiGroupListDocument(groups: readonly ServedGroup[]): APIGroupList {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: groups.filter((group) => group.name !== '').map(groupEntry),
  };
}

/** `GET /apis/<group>`. */
export function apiGroupDocument(group: ServedGroup): APIGroup {
  return { kind: 'APIGroup', apiVersion: 'v1', ...groupEntry(group) };
}

/**
 * `GET /api/v1` and `GET /apis/<group>/<version>`: resources and subresources, by name.
 * `storageVersionHashes` is the StorageVersionHash gate: off, built-in kinds are listed without
 * the hash (custom resources keep theirs, `storageVersionHashUngated`).
 */
export function apiResourceListDocument(
  groupVersion: ServedGroupVersion,
  { storageVersionHashes }: { readonly storageVersionHashes: boolean },
): APIResourceList {
  const resources = groupVersion.resources.flatMap((resource) =>
    resourceEntries(resource, groupVersion, storageVersionHashes),
  );
  return {
    kind: 'APIResourceList',
    ...(groupVersion.group === '' ? {} : { apiVersion: 'v1' as const }),
    groupVersion: groupVersionString(groupVersion),
    resources,
  };
}

function groupEntry(group: ServedGroup): APIGroup {
  const versions = group.versions.map((v) => ({ groupVersion: groupVersionString(v), version: v.version }));
  return { name: group.name, versions, preferredVersion: versions[0] };
}

function resourceEntries(
  { type }: ServedResource,
  groupVersion: ServedGroupVersion,
  storageVersionHashes: boolean,
): APIResource[] {
  const hashed = !type.virtual && (storageVersionHashes || type.storageVersionHashUngated === true);
  const main: APIResource = {
    name: type.resource,
    singularName: type.singular,
    namespaced: type.namespaced,
    kind: type.kind,
    verbs: discoveryVerbs(type),
    ...(type.shortNames.length > 0 ? { shortNames: type.shortNames } : {}),
    ...(type.categories.length > 0 ? { categories: type.categories } : {}),
    // Types that share storage (core and events.k8s.io Events) share the hash, as in the reference.
    ...(hashed ? { storageVersionHash: storageVersionHash({ ...encodedGroupVersion(type), kind: type.kind }) } : {}),
  };
  const subresources = servedSubresources(type, groupVersion).map((subresource): APIResource => {
    const otherGroupVersion =
      subresource.responseKind.group !== groupVersion.group ||
      subresource.responseKind.version !== groupVersion.version;
    return {
      name: `${type.resource}/${subresource.name}`,
      singularName: '',
      namespaced: type.namespaced,
      ...(otherGroupVersion
        ? { group: subresource.responseKind.group, version: subresource.responseKind.version }
        : {}),
      kind: subresource.responseKind.kind,
      verbs: subresource.verbs,
    };
  });
  return [main, ...subresources];
}
