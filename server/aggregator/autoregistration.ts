/**
 * Autoregistration: every group-version this server serves itself has a local APIService, as
 * the reference's autoregister controller keeps one for each built-in group-version (labelled
 * `onstart`) and for each served version of a CustomResourceDefinition (labelled `true`). The
 * set follows the registry: a new custom version gets its APIService, a version that is gone
 * loses it, and an automanaged APIService someone changed or deleted is put back. APIServices
 * without the label belong to their writers and are left alone.
 *
 * Every replica runs it (each serves every type); two replicas writing the same object meet as
 * AlreadyExists or NotFound, which the operations treat as done.
 */
import type { KubeObject } from '../../api/objects';
import type { ObjectOperations } from '../client/operations';
import { startWorkQueue } from '../client/work-queue';
import { CUSTOM_GROUP_PRIORITY, CUSTOM_VERSION_PRIORITY, priorityOf } from '../discovery/group-priority';
import type { ResourceRegistry, ResourceType } from '../registry/types';
import { deepEqual } from '../status/field-errors';
import {
  APIREGISTRATION_GROUP,
  AUTOMANAGED_LABEL,
  apiServiceName,
  type APIServiceSpec,
} from '../../api/apiregistration';

export interface LocalAPIService {
  readonly name: string;
  readonly label: 'onstart' | 'true';
  readonly spec: Required<Pick<APIServiceSpec, 'group' | 'version' | 'groupPriorityMinimum' | 'versionPriority'>>;
}

/**
 * The local APIServices `types` call for, by name. The aggregator's own group has none (the
 * reference serves it in front of every APIService); custom resources' versions get the
 * priorities the reference's CRD registration gives them.
 */
export function localAPIServices(types: readonly ResourceType[]): Map<string, LocalAPIService> {
  const wanted = new Map<string, LocalAPIService>();
  for (const type of types) {
    if (type.group === APIREGISTRATION_GROUP) continue;
    for (const { version } of type.versions) {
      const groupVersion = { group: type.group, version };
      const name = apiServiceName(groupVersion);
      const custom = type.prune !== undefined;
      // A version served by a built-in kind makes the APIService built-in, whatever else shares it.
      if (wanted.get(name)?.label === 'onstart') continue;
      const priority = custom ? undefined : priorityOf(groupVersion);
      wanted.set(name, {
        name,
        label: custom ? 'true' : 'onstart',
        spec: {
          group: type.group,
          version,
          groupPriorityMinimum: priority?.group ?? CUSTOM_GROUP_PRIORITY,
          versionPriority: priority?.version ?? CUSTOM_VERSION_PRIORITY,
        },
      });
    }
  }
  return wanted;
}

/** The spec fields autoregistration owns, in the reference's order; a local APIService has no service. */
function ownedSpec(spec: LocalAPIService['spec']): Record<string, unknown> {
  const { group, version, groupPriorityMinimum, versionPriority } = spec;
  return group === ''
    ? { groupPriorityMinimum, version, versionPriority }
    : { group, groupPriorityMinimum, version, versionPriority };
}

function specMatches(object: KubeObject, wanted: LocalAPIService): boolean {
  const spec = (object.spec ?? {}) as Record<string, unknown>;
  return deepEqual({ ...spec, group: spec.group ?? '' }, { ...ownedSpec(wanted.spec), group: wanted.spec.group });
}

/**
 * Brings the stored APIServices (`current`, by name) in line with `wanted`: creates the missing,
 * restores changed automanaged ones, deletes automanaged ones nothing serves any more.
 */
export async function reconcileLocalAPIServices(options: {
  readonly wanted: ReadonlyMap<string, LocalAPIService>;
  readonly current: ReadonlyMap<string, KubeObject>;
  readonly operations: ObjectOperations;
  readonly type: ResourceType;
}): Promise<void> {
  const { wanted, current, operations, type } = options;
  // Each APIService on its own, side by side: a start waits one store round trip, not one an object.
  const reconcileOne = async (service: LocalAPIService) => {
    const existing = current.get(service.name);
    if (existing === undefined) {
      await operations.createObject(type, {
        apiVersion: `${APIREGISTRATION_GROUP}/v1`,
        kind: 'APIService',
        metadata: { name: service.name, labels: { [AUTOMANAGED_LABEL]: service.label } },
        spec: ownedSpec(service.spec),
      });
    } else if (existing.metadata.labels?.[AUTOMANAGED_LABEL] !== undefined && !specMatches(existing, service)) {
      await operations.updateObject(type, { name: service.name }, (object) => {
        object.spec = ownedSpec(service.spec);
      });
    }
  };
  const unwanted = [...current].filter(
    ([name, existing]) => existing.metadata.labels?.[AUTOMANAGED_LABEL] !== undefined && !wanted.has(name),
  );
  await Promise.all([
    ...[...wanted.values()].map(reconcileOne),
    ...unwanted.map(([name, existing]) => operations.deleteObject(type, { name }, { uid: existing.metadata.uid })),
  ]);
}

export interface Autoregistration {
  /** Resolves after the first reconciliation: the reference's `autoregister-completion`. */
  readonly completed: Promise<void>;
  /** Asks for a reconciliation (an APIService changed); runs are serialized and coalesced, failures retried with backoff. */
  request(): void;
  stop(): void;
}

/** Keeps the local APIServices in step with `registry`; `current` is the APIService informer's map. */
export function startAutoregistration(options: {
  readonly registry: ResourceRegistry;
  readonly current: ReadonlyMap<string, KubeObject>;
  readonly operations: ObjectOperations;
  readonly type: ResourceType;
}): Autoregistration {
  const stopping = new AbortController();
  let complete: () => void = () => {};
  const completed = new Promise<void>((resolve) => (complete = resolve));
  // One key: every change asks for the same whole reconciliation.
  const queue = startWorkQueue<'all'>({
    stop: stopping.signal,
    handle: async () => {
      await reconcileLocalAPIServices({
        wanted: localAPIServices(options.registry.all()),
        current: options.current,
        operations: options.operations,
        type: options.type,
      });
      complete();
    },
  });
  const request = () => queue.add('all');
  const unsubscribe = options.registry.onChange(request);
  request();
  return {
    completed,
    request,
    stop() {
      stopping.abort();
      unsubscribe();
    },
  };
}
