/**
 * What the extension API servers serve, for discovery: each available remote APIService's
 * group-version as its server's aggregated discovery document (`/apis`) describes it, or, from a
 * server that answers no aggregated document, its `/apis/<group>/<version>` (an APIResourceList)
 * turned into the aggregated form; both fetched as the aggregator's identity. A version not (yet) discovered, or whose
 * APIService is unavailable, is listed without resources and marked `Stale`, as the reference
 * lists it. Groups and versions are ordered by the APIServices' priorities.
 */
import type { RequestOptions } from 'node:https';
import type {
  APIGroupDiscoveryList,
  APIResourceDiscovery,
  APISubresourceDiscovery,
} from '../discovery/aggregated-documents';
import type { ExtensionGroup, ExtensionGroups } from '../discovery/extension-groups';
import { compareKubeAwareVersions } from '../discovery/group-priority';
import type { APIResource } from '../discovery/legacy-documents';
import { groupVersionOf, isAvailable, serviceOf, specOf } from '../../api/apiregistration';
import { connectToExtension, fetchFromExtension, type APIServiceAccess } from './extension-transport';

/** Available extension servers are asked again this often, since their resources may change without their APIService changing. */
export const REDISCOVERY_MS = 60_000;

/** An APIResourceList's entries in the aggregated form: `x/y` entries become subresource `y` of `x`. */
export function aggregatedResources(resources: readonly APIResource[]): APIResourceDiscovery[] {
  const parents = new Map<string, APIResourceDiscovery & { subresources: APISubresourceDiscovery[] }>();
  for (const resource of resources) {
    if (resource.name.includes('/')) continue;
    parents.set(resource.name, {
      resource: resource.name,
      responseKind: { group: resource.group ?? '', version: resource.version ?? '', kind: resource.kind },
      scope: resource.namespaced ? 'Namespaced' : 'Cluster',
      singularResource: resource.singularName,
      verbs: resource.verbs,
      ...(resource.shortNames?.length ? { shortNames: resource.shortNames } : {}),
      ...(resource.categories?.length ? { categories: resource.categories } : {}),
      subresources: [],
    });
  }
  for (const resource of resources) {
    const [parent, subresource] = resource.name.split('/', 2);
    if (subresource === undefined) continue;
    parents.get(parent)?.subresources.push({
      subresource,
      responseKind: { group: resource.group ?? '', version: resource.version ?? '', kind: resource.kind },
      verbs: resource.verbs,
    });
  }
  return [...parents.values()].map(({ subresources, ...entry }) =>
    subresources.length > 0 ? { ...entry, subresources } : entry,
  );
}

const AGGREGATED_ACCEPT =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';

/** The group-version's resources: from the aggregated document when the server answers one, else from its resource list. */
async function discoverVersion(
  tls: RequestOptions,
  group: string,
  version: string,
): Promise<readonly APIResourceDiscovery[]> {
  const aggregated = await fetchFromExtension(tls, '/apis', AGGREGATED_ACCEPT);
  if (aggregated.status === 200 && aggregated.contentType.includes('as=APIGroupDiscoveryList')) {
    const list = aggregated.json() as APIGroupDiscoveryList;
    const entry = list.items
      ?.find((item) => item.metadata?.name === group)
      ?.versions?.find((candidate) => candidate.version === version);
    if (entry === undefined) throw new Error(`${group}/${version} is not in the server's discovery document`);
    return entry.resources ?? [];
  }
  const listed = await fetchFromExtension(tls, `/apis/${group}/${version}`, 'application/json');
  if (listed.status !== 200) throw new Error(`status ${listed.status}`);
  return aggregatedResources((listed.json() as { resources?: readonly APIResource[] }).resources ?? []);
}

export class ExtensionDiscovery implements ExtensionGroups {
  /** APIService name → its discovered resources and the object they were fetched for. */
  private readonly discovered = new Map<
    string,
    { readonly from: string; readonly resources: readonly APIResourceDiscovery[] }
  >();
  private changes = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly options: APIServiceAccess) {
    this.timer = setInterval(() => {
      for (const name of this.options.current.keys()) void this.refresh(name, { force: true });
    }, REDISCOVERY_MS);
    this.timer.unref();
  }

  revision(): number {
    return this.changes;
  }

  /** An APIService changed (or went): its versions' entries follow, fetched again when it is available. */
  async refresh(name: string, options: { force?: boolean } = {}): Promise<void> {
    // Any APIService may change the groups: a local one of a group nothing here serves is listed too.
    this.changes++;
    const apiService = this.options.current.get(name);
    const service = apiService && serviceOf(apiService);
    if (apiService === undefined || service === undefined || !isAvailable(apiService)) {
      this.discovered.delete(name);
      return;
    }
    const from = JSON.stringify([apiService.metadata.uid, apiService.spec]);
    if (!options.force && this.discovered.get(name)?.from === from) return;
    try {
      const connection = await connectToExtension(apiService, service, this.options);
      if (!connection.ok) throw new Error(connection.message);
      const { group, version } = groupVersionOf(apiService);
      this.discovered.set(name, { from, resources: await discoverVersion(connection.tls, group, version) });
    } catch {
      // Unreachable or not a discovery document: the version stays listed as stale.
      this.discovered.delete(name);
    }
    this.changes++;
  }

  /**
   * Every APIService's group, as `/apis` lists them; the groups this server serves itself are
   * left out where they are merged (server/discovery/extension-groups.ts), so that the local
   * APIServices here are those of groups nothing serves, which only `/apis` lists.
   */
  groups(): readonly ExtensionGroup[] {
    type Version = { version: string; priority: number; local: boolean; resources?: readonly APIResourceDiscovery[] };
    const byGroup = new Map<string, { priority: number; versions: Version[] }>();
    for (const [name, apiService] of this.options.current) {
      const spec = specOf(apiService);
      const { group, version } = groupVersionOf(apiService);
      // The core group (`v1.`) is listed at `/api`, never among the named groups.
      if (group === '') continue;
      const entry = byGroup.get(group) ?? { priority: 0, versions: [] };
      byGroup.set(group, entry);
      entry.priority = Math.max(entry.priority, spec.groupPriorityMinimum ?? 0);
      entry.versions.push({
        version,
        priority: spec.versionPriority ?? 0,
        local: serviceOf(apiService) === undefined,
        resources: this.discovered.get(name)?.resources,
      });
    }
    return [...byGroup].map(([name, { priority, versions }]) => ({
      name,
      priority,
      versions: versions
        .sort((a, b) =>
          a.priority !== b.priority ? b.priority - a.priority : compareKubeAwareVersions(a.version, b.version),
        )
        .map(({ version, local, resources }) => ({
          version,
          ...(local ? { local } : {}),
          ...(resources === undefined ? {} : { resources }),
        })),
    }));
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
