/**
 * With StorageVersionAPI and APIServerIdentity on, each API server publishes, for every built-in
 * resource it stores, the version it writes that resource in (internal.apiserver.k8s.io
 * StorageVersions, read by storage-version migration): its entry in the object
 * `<group>.<resource>` (`core.` for the core group) names this server by its identity lease,
 * and the object's `commonEncodingVersion` and `AllEncodingVersionsEqual` condition say whether
 * every server agrees. As the reference's (k8s.io/apiserver pkg/storageversion), it waits for its
 * identity lease, then publishes every resource, again every 10 minutes in case another agent
 * changed them; until a resource's first publication succeeds, writes to it are held (see
 * `heldWrite`). Custom resources are not published, as kube-apiserver 1.34.4 publishes none.
 *
 * Resources sharing storage (core and events.k8s.io Events) are one StorageVersion, named after
 * the first in group order. The decodable versions are capstan's own versions of the resource
 * (served or not, and the one it stores in) and of those it shares storage with, in the group's
 * priority order; the reference's scheme also decodes versions capstan has no kind for
 * (apps/v1beta1 Deployments).
 */
import { unlessNotFound } from '../../storage/errors';
import type { GroupVersion } from '../../api/identity';
import { metaTime, type KubeObject } from '../../api/objects';
import { REGISTERED_GROUP_VERSIONS } from '../config/registered-group-versions';
import type { ObjectOperations } from '../client/operations';
import { encodedGroupVersion, storageGroupVersion, type ResourceType } from '../registry/types';
import { serviceUnavailable } from '../status/catalogue';
import type { StatusError } from '../status/status-error';
import { repeat } from './repeat';

const RECONCILE_PERIOD_MS = 10 * 60_000;
const LEASE_POLL_MS = 100;
const LEASE_NAMESPACE = 'kube-system';

/** One StorageVersion's entry for this server. */
export interface ServerStorageVersion {
  readonly apiServerID: string;
  readonly encodingVersion: string;
  readonly decodableVersions: readonly string[];
  readonly servedVersions: readonly string[];
}

/** What this server publishes for one resource, and the resources whose writes wait for it. */
export interface PublishedResource {
  readonly name: string;
  readonly entry: Omit<ServerStorageVersion, 'apiServerID'>;
  /** `resource.group` (or `resource`) of this resource and of those sharing its storage. */
  readonly heldGroupResources: readonly string[];
}

/** `v1` for the core group, `<group>/<version>` otherwise, as apiVersion spells them. */
const formatted = ({ group, version }: GroupVersion) => (group === '' ? version : `${group}/${version}`);
/** schema.GroupResource's String(), as the hold's message spells it. */
const groupResource = (group: string, resource: string) => (group === '' ? resource : `${resource}.${group}`);

/**
 * The resources to publish: the served types among `builtin` that are stored, in group then
 * resource order, one per storage (`builtin` holds every version capstan has of each).
 */
export function publishedResources(
  served: readonly ResourceType[],
  builtin: readonly ResourceType[],
): PublishedResource[] {
  const storageOf = (type: ResourceType) => `${storageGroupVersion(type).group}/${type.storagePrefix}`;
  const builtinNames = new Set(builtin.map((type) => `${type.group}/${type.resource}`));
  const stored = served
    .filter((type) => !type.virtual && builtinNames.has(`${type.group}/${type.resource}`))
    .sort((a, b) => (a.group === b.group ? (a.resource < b.resource ? -1 : 1) : a.group < b.group ? -1 : 1));
  const priority = (groupVersion: string) =>
    REGISTERED_GROUP_VERSIONS.findIndex((registered) => formatted(registered) === groupVersion);
  const published: PublishedResource[] = [];
  const seen = new Set<string>();
  for (const type of stored) {
    if (seen.has(storageOf(type))) continue;
    seen.add(storageOf(type));
    const sharing = stored.filter((other) => storageOf(other) === storageOf(type));
    // Every version capstan has a kind for, and the one it stores in, which it reads back.
    const ownVersions = (of: ResourceType) =>
      [
        ...builtin
          .filter((known) => known.group === of.group && known.resource === of.resource)
          .flatMap((known) => known.versions.map(({ version }) => formatted({ group: of.group, version }))),
        formatted(encodedGroupVersion(of)),
      ].sort((a, b) => priority(a) - priority(b));
    const decodable = [...new Set(sharing.flatMap(ownVersions))];
    published.push({
      name: `${type.group === '' ? 'core' : type.group}.${type.resource}`,
      entry: {
        encodingVersion: formatted(encodedGroupVersion(type)),
        decodableVersions: decodable,
        servedVersions: type.versions.map(({ version }) => formatted({ group: type.group, version })),
      },
      heldGroupResources: sharing.map((other) => groupResource(other.group, other.resource)),
    });
  }
  return published;
}

interface StorageVersionStatus {
  storageVersions?: ServerStorageVersion[];
  commonEncodingVersion?: string;
  conditions?: Record<string, unknown>[];
}

/** Puts `entry` in place of this server's, then agrees the common version and its condition. */
export function withServerEntry(status: StorageVersionStatus, entry: ServerStorageVersion, now: string): void {
  const entries = status.storageVersions ?? [];
  const at = entries.findIndex((existing) => existing.apiServerID === entry.apiServerID);
  if (at >= 0) entries[at] = entry;
  else entries.push(entry);
  status.storageVersions = entries;
  const previous = status.commonEncodingVersion;
  const agreed = entries.every((existing) => existing.encodingVersion === entries[0].encodingVersion);
  if (agreed) status.commonEncodingVersion = entries[0].encodingVersion;
  else delete status.commonEncodingVersion;
  const set = status.commonEncodingVersion !== undefined;
  const condition = {
    type: 'AllEncodingVersionsEqual',
    status: set ? 'True' : 'False',
    lastTransitionTime: now,
    reason: set ? 'CommonEncodingVersionSet' : 'CommonEncodingVersionUnset',
    message: set ? 'Common encoding version set' : 'Common encoding version unset',
  };
  const conditions = status.conditions ?? [];
  const existing = conditions.find((candidate) => candidate.type === condition.type);
  if (existing === undefined) conditions.push(condition);
  else {
    const changed =
      existing.status !== condition.status ||
      (previous !== undefined && set && previous !== status.commonEncodingVersion);
    Object.assign(existing, { ...condition, lastTransitionTime: changed ? now : existing.lastTransitionTime });
  }
  status.conditions = conditions;
}

export interface StorageVersionPublisher {
  /** The 503 a write to `group`/`resource` gets while its first publication is pending; undefined: go on. */
  heldWrite(group: string, resource: string): StatusError | undefined;
  /** Resolves when every resource has been published once. */
  readonly completed: Promise<void>;
}

export function startStorageVersionPublisher(
  operations: ObjectOperations,
  options: {
    readonly storageVersions: ResourceType;
    readonly leases: ResourceType;
    /** The identity lease's name, which is this server's ID. */
    readonly serverId: string;
    readonly resources: readonly PublishedResource[];
    readonly stop: AbortSignal;
  },
): StorageVersionPublisher {
  const pending = new Map<string, { error?: string }>();
  for (const resource of options.resources) for (const held of resource.heldGroupResources) pending.set(held, {});
  let markCompleted: () => void = () => undefined;
  const completed = new Promise<void>((resolve) => (markCompleted = resolve));
  const storage = operations.storageFor(options.storageVersions);

  const publish = async (resource: PublishedResource): Promise<void> => {
    const entry: ServerStorageVersion = { apiServerID: options.serverId, ...resource.entry };
    const key = { name: resource.name };
    if ((await unlessNotFound(storage.get(key))) === undefined) {
      const created: KubeObject = {
        apiVersion: 'internal.apiserver.k8s.io/v1alpha1',
        kind: 'StorageVersion',
        metadata: { name: resource.name },
        spec: {},
      };
      await operations.createObject(options.storageVersions, created);
    }
    await operations.updateObject(
      options.storageVersions,
      key,
      (object) => {
        const status = (object.status ?? {}) as StorageVersionStatus;
        withServerEntry(status, entry, metaTime(new Date()));
        object.status = status;
      },
      'status',
    );
  };
  const publishAll = async (): Promise<void> => {
    let failed = false;
    for (const resource of options.resources) {
      try {
        await publish(resource);
        for (const held of resource.heldGroupResources) pending.delete(held);
      } catch (error) {
        failed = true;
        for (const held of resource.heldGroupResources) {
          const status = pending.get(held);
          if (status !== undefined) status.error = (error as Error).message;
        }
      }
    }
    if (!failed) markCompleted();
  };
  // The identity lease first: a storage-version collector deletes entries of servers without one.
  const waitForLease = async (): Promise<void> => {
    const leases = operations.storageFor(options.leases);
    while (!options.stop.aborted) {
      if ((await unlessNotFound(leases.get({ namespace: LEASE_NAMESPACE, name: options.serverId }))) !== undefined)
        return;
      await new Promise((resolve) => setTimeout(resolve, LEASE_POLL_MS));
    }
  };
  void waitForLease().then(
    () =>
      repeat({
        run: publishAll,
        periodMs: RECONCILE_PERIOD_MS,
        jitter: 0,
        stop: options.stop,
        what: 'publishing storage versions',
      }),
    (error: unknown) => console.error('waiting for the apiserver identity lease failed:', error),
  );

  return {
    completed,
    heldWrite(group, resource) {
      const status = pending.get(groupResource(group, resource));
      if (status === undefined) return undefined;
      return serviceUnavailable(
        `wait for storage version registration to complete for resource: ${groupResource(group, resource)}, last seen error: ${status.error ?? '<nil>'}`,
      );
    },
  };
}
