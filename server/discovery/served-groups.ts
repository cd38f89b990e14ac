/**
 * The registry seen as discovery sees it: groups in priority order, each with its versions
 * (preferred first), each with the resource types it serves (by resource name). Discovery
 * documents and OpenAPI documents are all rendered from this one view.
 */
import type { ResourceType, ServedVersion } from '../registry/types';
import { compareGroups, compareVersionsInGroup } from './group-priority';
import { compareStrings } from '../string-order';

export interface ServedResource {
  readonly type: ResourceType;
  /** The type's entry for this version (its schema definition, deprecation). */
  readonly served: ServedVersion;
}

export interface ServedGroupVersion {
  readonly group: string;
  readonly version: string;
  /** Sorted by resource name, as the reference lists them. */
  readonly resources: readonly ServedResource[];
}

export interface ServedGroup {
  /** '' for the core group. */
  readonly name: string;
  /** Preferred first. */
  readonly versions: readonly ServedGroupVersion[];
}

/** Every served group of `types` (a registry's `all()`), the core group first, then by the reference's group priority. */
export function servedGroups(types: readonly ResourceType[]): ServedGroup[] {
  const byGroup = new Map<string, Map<string, ServedResource[]>>();
  for (const type of types) {
    const versions = byGroup.get(type.group) ?? new Map<string, ServedResource[]>();
    byGroup.set(type.group, versions);
    for (const served of type.versions) {
      const resources = versions.get(served.version) ?? [];
      versions.set(served.version, resources);
      resources.push({ type, served });
    }
  }

  const groups: ServedGroup[] = [...byGroup].map(([name, versions]) => ({
    name,
    versions: [...versions.keys()]
      .sort((a, b) => compareVersionsInGroup(name, a, b))
      .map((version) => ({
        group: name,
        version,
        resources: [...(versions.get(version) ?? [])].sort((a, b) => compareStrings(a.type.resource, b.type.resource)),
      })),
  }));
  return groups.sort((a, b) => {
    if (a.name === '' || b.name === '') return a.name === '' ? (b.name === '' ? 0 : -1) : 1;
    return compareGroups(
      { name: a.name, versions: a.versions.map((v) => v.version) },
      { name: b.name, versions: b.versions.map((v) => v.version) },
    );
  });
}

/** The served group-version, if any. */
export function findServedGroupVersion(
  groups: readonly ServedGroup[],
  group: string,
  version: string,
): ServedGroupVersion | undefined {
  return groups.find((candidate) => candidate.name === group)?.versions.find((v) => v.version === version);
}
