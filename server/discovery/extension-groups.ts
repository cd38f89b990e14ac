/**
 * Groups of the aggregator's APIServices that this server does not serve itself (those of
 * extension API servers, and local APIServices of groups nothing serves, which only `/apis`
 * lists), merged into the discovery documents of the groups this server serves. Every named
 * group is ordered by its priority, highest first (a served group's from the reference's table,
 * another's from its APIServices' groupPriorityMinimum); ties go by the name of the group's
 * first APIService in `/apis` and by group name in the aggregated document, as the reference
 * orders them.
 */
import { groupVersionString } from '../../api/identity';
import type { APIGroupDiscovery, APIResourceDiscovery } from './aggregated-documents';
import { groupPriority } from './group-priority';
import type { APIGroup } from './legacy-documents';

export interface ExtensionVersion {
  readonly version: string;
  /**
   * A local APIService of a group this server does not serve: listed in `/apis` (which lists
   * every APIService's group) but not in the aggregated document (which lists what is served).
   */
  readonly local?: boolean;
  /** The discovered resources; absent while the extension server has not answered (the entry is then `Stale`). */
  readonly resources?: readonly APIResourceDiscovery[];
}

export interface ExtensionGroup {
  readonly name: string;
  /** The highest groupPriorityMinimum of its APIServices. */
  readonly priority: number;
  /** Preferred first. */
  readonly versions: readonly ExtensionVersion[];
}

/** What the aggregator tells discovery; `revision` changes whenever `groups` does. */
export interface ExtensionGroups {
  revision(): number;
  groups(): readonly ExtensionGroup[];
}

interface Ordered<T> {
  readonly name: string;
  readonly priority: number;
  /** The `<version>.<group>` name of its first version, the reference's tie-break in `/apis`. */
  readonly apiServiceKey: string;
  readonly entry: T;
}

function apiServiceKey(name: string, versions: readonly string[]): string {
  return [...versions].map((version) => `${version}.${name}`).sort()[0] ?? name;
}

function byPriority<T>(tieBreak: 'apiservice' | 'group'): (a: Ordered<T>, b: Ordered<T>) => number {
  return (a, b) => {
    if (a.priority !== b.priority) return b.priority - a.priority;
    const [left, right] = tieBreak === 'group' ? [a.name, b.name] : [a.apiServiceKey, b.apiServiceKey];
    return left < right ? -1 : left > right ? 1 : 0;
  };
}

/** The extension groups whose names no local group has (a local group is served by this server, whatever an APIService says). */
function notServedHere(local: readonly { name: string }[], extensions: readonly ExtensionGroup[]): ExtensionGroup[] {
  const names = new Set(local.map((group) => group.name));
  return extensions.filter((group) => !names.has(group.name) && group.versions.length > 0);
}

export function extensionAPIGroup(group: ExtensionGroup): APIGroup {
  const versions = group.versions.map(({ version }) => ({
    groupVersion: groupVersionString({ group: group.name, version }),
    version,
  }));
  return { name: group.name, versions, preferredVersion: versions[0] };
}

/** `/apis`'s groups: the local ones and the extensions', in the reference's order. */
export function mergeGroupList(local: readonly APIGroup[], extensions: readonly ExtensionGroup[]): APIGroup[] {
  const ordered: Ordered<APIGroup>[] = [
    ...local.map((group) => {
      const versions = group.versions.map((v) => v.version);
      return {
        name: group.name,
        priority: groupPriority(group.name, versions),
        apiServiceKey: apiServiceKey(group.name, versions),
        entry: group,
      };
    }),
    ...notServedHere(local, extensions).map((group) => ({
      name: group.name,
      priority: group.priority,
      apiServiceKey: apiServiceKey(
        group.name,
        group.versions.map((v) => v.version),
      ),
      entry: extensionAPIGroup(group),
    })),
  ];
  return ordered.sort(byPriority('apiservice')).map(({ entry }) => entry);
}

/** The aggregated document's named groups: the local ones and the extensions', in the reference's order. */
export function mergeAggregatedGroups(
  local: readonly APIGroupDiscovery[],
  extensions: readonly ExtensionGroup[],
): APIGroupDiscovery[] {
  const named = local.map((group) => ({ name: group.metadata.name ?? '', group }));
  const ordered: Ordered<APIGroupDiscovery>[] = [
    ...named.map(({ name, group }) => {
      const versions = group.versions.map((v) => v.version);
      return {
        name,
        priority: groupPriority(name, versions),
        apiServiceKey: apiServiceKey(name, versions),
        entry: group,
      };
    }),
    ...notServedHere(
      named,
      extensions.map((group) => ({ ...group, versions: group.versions.filter((version) => !version.local) })),
    ).map((group) => ({
      name: group.name,
      priority: group.priority,
      apiServiceKey: '',
      entry: {
        metadata: { name: group.name },
        versions: group.versions.map((version) =>
          version.resources === undefined
            ? { version: version.version, freshness: 'Stale' as const }
            : { version: version.version, resources: version.resources, freshness: 'Current' as const },
        ),
      },
    })),
  ];
  return ordered.sort(byPriority('group')).map(({ entry }) => entry);
}
