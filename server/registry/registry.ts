/**
 * The registry of built-in resource types: lookups by group-version-resource and by kind,
 * limited to what is enabled (the `--runtime-config` decides through `enabled`).
 */
import { BUILTIN_KINDS } from './kinds';
import type { GroupVersion, GroupVersionKind, ResourceRegistry, ResourceType } from './types';

export interface BuiltinRegistryOptions {
  /** Whether `<group>/<version>/<resource>` is served; default: every built-in one is. */
  readonly enabled?: (groupVersion: GroupVersion, resource: string) => boolean;
  /** The types to serve; default: every built-in kind. */
  readonly types?: readonly ResourceType[];
}

function servedKey(group: string, version: string, name: string): string {
  return `${group}/${version}/${name}`;
}

export class BuiltinRegistry implements ResourceRegistry {
  private readonly byResource = new Map<string, ResourceType>();
  private readonly byKind = new Map<string, ResourceType>();
  private readonly served: readonly ResourceType[];

  constructor(options: BuiltinRegistryOptions = {}) {
    const enabled = options.enabled ?? (() => true);
    const served: ResourceType[] = [];
    for (const type of options.types ?? BUILTIN_KINDS) {
      const versions = type.versions.filter(({ version }) => enabled({ group: type.group, version }, type.resource));
      if (versions.length === 0) continue;
      const narrowed: ResourceType = versions.length === type.versions.length ? type : { ...type, versions };
      served.push(narrowed);
      for (const { version } of versions) {
        this.byResource.set(servedKey(type.group, version, type.resource), narrowed);
        this.byKind.set(servedKey(type.group, version, type.kind), narrowed);
      }
    }
    this.served = served.sort((a, b) => (a.group === b.group ? a.resource.localeCompare(b.resource) : a.group.localeCompare(b.group)));
  }

  find(groupVersion: GroupVersion, resource: string): ResourceType | undefined {
    return this.byResource.get(servedKey(groupVersion.group, groupVersion.version, resource));
  }

  findKind(gvk: GroupVersionKind): ResourceType | undefined {
    return this.byKind.get(servedKey(gvk.group, gvk.version, gvk.kind));
  }

  all(): readonly ResourceType[] {
    return this.served;
  }
}
