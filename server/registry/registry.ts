/**
 * The registry of served resource types: lookups by group-version-resource and by kind, and
 * changes while serving. It starts with the built-in kinds that `--runtime-config` enables and
 * takes types added later (custom resources) as they come.
 *
 * Everything derived from it follows its changes: routes look types up per request and build
 * handlers per type object, discovery and OpenAPI rebuild when `all()` returns a new array, and
 * the control plane adds and removes watch caches from `onChange`. A change is one synchronous
 * step: when `add` returns, the type is served.
 */
import { compareStrings } from '../string-order';
import {
  storageGroupVersion,
  type RegistryChange,
  type RegistryListener,
  type ResourceRegistry,
  type ResourceType,
} from './types';

import { qualifiedResource, type GroupResource, type GroupVersion, type GroupVersionKind } from '../../api/identity';
export interface RegistryOptions {
  /** Whether `<group>/<version>/<resource>` of a starting type is served; default: every one is. */
  readonly enabled?: (groupVersion: GroupVersion, resource: string) => boolean;
  /** The types to start with (server/builtin-types.ts has the built-in ones). */
  readonly types: readonly ResourceType[];
}

/** A registry that can change while serving. */
export interface MutableResourceRegistry extends ResourceRegistry {
  /**
   * Serves `type`, replacing the type of the same group and resource if there is one. Throws
   * when one of its versions would serve a kind another resource already serves there.
   */
  add(type: ResourceType): void;
  /**
   * Serves a built-in type made once the server has what it needs (the reviews, which need the
   * authenticator and authorizer): in the versions `--runtime-config` turns on, as the starting
   * types, and not at all when it turns none on.
   */
  addBuiltIn(type: ResourceType): void;
  /** Stops serving the resource; returns the type it was. */
  remove(resource: GroupResource): ResourceType | undefined;
}

/**
 * Types by group, version and a name (resource or kind), in nested maps: a request looks its
 * type up several times (routing, admission, webhooks' own storage), and a key built by joining
 * the three would be a new string to hash at every lookup.
 */
class ServedIndex {
  private readonly groups = new Map<string, Map<string, Map<string, ResourceType>>>();

  get(group: string, version: string, name: string): ResourceType | undefined {
    return this.groups.get(group)?.get(version)?.get(name);
  }

  set(group: string, version: string, name: string, type: ResourceType): void {
    let versions = this.groups.get(group);
    if (versions === undefined) this.groups.set(group, (versions = new Map()));
    let names = versions.get(version);
    if (names === undefined) versions.set(version, (names = new Map()));
    names.set(name, type);
  }

  delete(group: string, version: string, name: string): void {
    const versions = this.groups.get(group);
    const names = versions?.get(version);
    if (versions === undefined || names === undefined) return;
    names.delete(name);
    if (names.size > 0) return;
    versions.delete(version);
    if (versions.size === 0) this.groups.delete(group);
  }
}

function resourceKey({ group, resource }: GroupResource): string {
  return `${group}/${resource}`;
}

/**
 * Two stored types may share a storage prefix only when they store the same objects (core and
 * events.k8s.io Events), and neither prefix may hold the other's keys: the cache of one prefix
 * would list the other's objects as its own.
 */
function checkStorageApart(type: ResourceType, other: ResourceType): void {
  const a = type.storagePrefix;
  const b = other.storagePrefix;
  if (a === b) {
    const [mine, theirs] = [storageGroupVersion(type), storageGroupVersion(other)];
    const same =
      mine.group === theirs.group &&
      mine.version === theirs.version &&
      type.kind === other.kind &&
      type.namespaced === other.namespaced;
    if (same) return;
  } else if (!a.startsWith(`${b}/`) && !b.startsWith(`${a}/`)) {
    return;
  }
  throw new Error(
    `${qualifiedResource(type)} cannot be stored under ${a}: ${qualifiedResource(other)} is stored under ${b}`,
  );
}

function compareTypes(a: ResourceType, b: ResourceType): number {
  return a.group === b.group ? compareStrings(a.resource, b.resource) : compareStrings(a.group, b.group);
}

export class ResourceTypeRegistry implements MutableResourceRegistry {
  /** By `<group>/<resource>`. */
  private readonly types = new Map<string, ResourceType>();
  private readonly byResource = new ServedIndex();
  private readonly byKind = new ServedIndex();
  /** Rebuilt on every change, so its identity tells readers the set changed. */
  private served: readonly ResourceType[] = [];
  private readonly listeners = new Set<RegistryListener>();
  private readonly enabled: NonNullable<RegistryOptions['enabled']>;

  constructor(options: RegistryOptions) {
    this.enabled = options.enabled ?? (() => true);
    for (const type of options.types) {
      const served = this.enabledVersions(type);
      if (served !== undefined) this.index(served);
    }
    this.sortServed();
  }

  /** The type in the versions that are turned on; undefined when none is. */
  private enabledVersions(type: ResourceType): ResourceType | undefined {
    const versions = type.versions.filter(({ version }) => this.enabled({ group: type.group, version }, type.resource));
    if (versions.length === 0) return undefined;
    return versions.length === type.versions.length ? type : { ...type, versions };
  }

  addBuiltIn(type: ResourceType): void {
    const served = this.enabledVersions(type);
    if (served !== undefined) this.add(served);
  }

  find(groupVersion: GroupVersion, resource: string): ResourceType | undefined {
    return this.byResource.get(groupVersion.group, groupVersion.version, resource);
  }

  findKind(gvk: GroupVersionKind): ResourceType | undefined {
    return this.byKind.get(gvk.group, gvk.version, gvk.kind);
  }

  all(): readonly ResourceType[] {
    return this.served;
  }

  add(type: ResourceType): void {
    const previous = this.types.get(resourceKey(type));
    for (const { version } of type.versions) {
      const holder = this.byKind.get(type.group, version, type.kind);
      if (holder !== undefined && holder !== previous) {
        throw new Error(`${type.group}/${version} ${type.kind} is already served by ${qualifiedResource(holder)}`);
      }
    }
    if (!type.virtual) {
      for (const other of this.types.values()) {
        if (other !== previous && !other.virtual) checkStorageApart(type, other);
      }
    }
    if (previous) this.unindex(previous);
    this.index(type);
    this.sortServed();
    this.notify({ added: [type], removed: previous ? [previous] : [] });
  }

  remove(resource: GroupResource): ResourceType | undefined {
    const previous = this.types.get(resourceKey(resource));
    if (previous === undefined) return undefined;
    this.unindex(previous);
    this.sortServed();
    this.notify({ added: [], removed: [previous] });
    return previous;
  }

  onChange(listener: RegistryListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private index(type: ResourceType): void {
    this.types.set(resourceKey(type), type);
    for (const { version } of type.versions) {
      this.byResource.set(type.group, version, type.resource, type);
      this.byKind.set(type.group, version, type.kind, type);
    }
  }

  private unindex(type: ResourceType): void {
    this.types.delete(resourceKey(type));
    for (const { version } of type.versions) {
      this.byResource.delete(type.group, version, type.resource);
      this.byKind.delete(type.group, version, type.kind);
    }
  }

  private sortServed(): void {
    this.served = [...this.types.values()].sort(compareTypes);
  }

  private notify(change: RegistryChange): void {
    for (const listener of this.listeners) listener(change);
  }
}
