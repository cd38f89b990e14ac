/**
 * The resource quota controller, as the reference's: keeps each ResourceQuota's `status.hard`
 * equal to `spec.hard` and `status.used` equal to what the namespace's objects consume now.
 * A quota is recounted when it is created or changed, when an object of a resource it tracks
 * is deleted or changed in a way that gives quota back (the reference's replenishment: a pod
 * finishes or changes Terminating scope, a Service stops being a NodePort or LoadBalancer, a
 * claim changes VolumeAttributesClass or expanded size), and on every resync, which also gives
 * back charges the ResourceQuota admission plugin made for writes that then failed.
 */
import type { KubeObject } from '../../api/objects';
import { EVERYTHING } from '../../storage/objects/types';
import { deepEqual } from '../status/field-errors';
import {
  addAmounts,
  claimQuotaChanged,
  DEVICE_CLASS_SUFFIX,
  formatAmount,
  isTerminalPod,
  usageOf,
  ZERO,
  type Amount,
} from '../quota/usage';
import { isTerminatingPod, quotaCounts } from '../quota/scopes';
import type { ResourceType } from '../registry/types';
import { objectMapKey, startInformer, type Informer } from '../client/informer';
import type { ObjectOperations } from '../client/operations';
import { startWorkQueue } from '../client/work-queue';

/** The reference's full recount period. */
export const QUOTA_RESYNC_MS = 5 * 60_000;

/** The core resources with a quota name of their own (`pods`, `services`, ...). */
const STANDARD = [
  'pods',
  'services',
  'persistentvolumeclaims',
  'configmaps',
  'secrets',
  'replicationcontrollers',
  'resourcequotas',
];

/** The group and resource a quota name counts: `count/deployments.apps`, `requests.cpu` (pods), ... */
function countedResource(name: string): { group: string; resource: string } {
  if (name.startsWith('count/')) {
    const [resource, ...group] = name.slice('count/'.length).split('.');
    return { group: group.join('.'), resource };
  }
  if (name.startsWith('services')) return { group: '', resource: 'services' };
  if (
    name === 'persistentvolumeclaims' ||
    name === 'requests.storage' ||
    name.includes('.storageclass.storage.k8s.io/')
  )
    return { group: '', resource: 'persistentvolumeclaims' };
  if (name.endsWith(DEVICE_CLASS_SUFFIX)) return { group: 'resource.k8s.io', resource: 'resourceclaims' };
  if (STANDARD.includes(name)) return { group: '', resource: name };
  return { group: '', resource: 'pods' };
}

function hardOf(quota: KubeObject): Record<string, unknown> {
  return (quota.spec as { hard?: Record<string, unknown> } | undefined)?.hard ?? {};
}

function typeOf(operations: ObjectOperations, group: string, resource: string): ResourceType | undefined {
  return operations.registry
    .all()
    .find((type) => type.group === group && type.resource === resource && type.namespaced);
}

/** The type of Service quota tracks by itself: `services.nodeports`, `services.loadbalancers`. */
function quotaServiceType(service: KubeObject): string {
  const type = (service.spec as { type?: unknown } | undefined)?.type;
  return type === 'NodePort' || type === 'LoadBalancer' ? type : '';
}

/**
 * Whether an update may have lowered what an object holds or moved it out of a quota's scope,
 * so its quotas are recounted now rather than at the next resync (the reference's update
 * filter). Growth needs no recount: the admission plugin charged it.
 */
function givesQuotaBack(group: string, resource: string, old: KubeObject, object: KubeObject): boolean {
  if (group !== '') return false;
  switch (resource) {
    case 'pods':
      return isTerminatingPod(old) !== isTerminatingPod(object) || (!isTerminalPod(old) && isTerminalPod(object));
    case 'services':
      return quotaServiceType(old) !== quotaServiceType(object);
    case 'persistentvolumeclaims':
      return claimQuotaChanged(old, object);
    default:
      return false;
  }
}

/** `status.used` for `hard` in the quota's namespace, from the objects stored now that the quota counts. */
async function measure(
  operations: ObjectOperations,
  quota: KubeObject,
  hard: Record<string, unknown>,
): Promise<Record<string, string>> {
  const totals = new Map<string, Amount>(Object.keys(hard).map((name) => [name, ZERO]));
  const byType = new Map<string, { group: string; resource: string; names: string[] }>();
  for (const name of totals.keys()) {
    const counted = countedResource(name);
    const key = `${counted.group}/${counted.resource}`;
    byType.set(key, { ...counted, names: [...(byType.get(key)?.names ?? []), name] });
  }
  for (const { group, resource, names } of byType.values()) {
    const type = typeOf(operations, group, resource);
    if (type === undefined) continue;
    const { items } = await operations
      .storageFor(type)
      .list({ namespace: quota.metadata.namespace }, { predicate: EVERYTHING });
    for (const item of items) {
      if (!quotaCounts(quota, group, resource, item)) continue;
      const usage = usageOf(group, resource, item);
      for (const name of names) {
        const amount = usage.get(name);
        if (amount !== undefined) totals.set(name, addAmounts(totals.get(name)!, amount));
      }
    }
  }
  return Object.fromEntries(
    [...totals].sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, amount]) => [name, formatAmount(amount)]),
  );
}

export function startQuotaController(
  operations: ObjectOperations,
  stop: AbortSignal,
  resyncMs = QUOTA_RESYNC_MS,
): void {
  const quotaType = typeOf(operations, '', 'resourcequotas');
  if (quotaType === undefined) throw new Error('resourcequotas are not served');
  const quotaStorage = operations.storageFor(quotaType);

  const queue = startWorkQueue<string>({
    stop,
    handle: async (key) => {
      const quota = quotas.objects.get(key);
      if (quota === undefined) return;
      const namespace = String(quota.metadata.namespace);
      const hard = hardOf(quota);
      const used = await measure(operations, quota, hard);
      // Sorted, as the reference's maps are written.
      const status = { hard: Object.fromEntries(Object.entries(hard).sort(([a], [b]) => (a < b ? -1 : 1))), used };
      if (deepEqual(quota.status, status)) return;
      try {
        await quotaStorage.update(
          { namespace, name: String(quota.metadata.name) },
          (current) => {
            if (current === undefined) return current!;
            // Spec changed since the count: the informer's next event brings it back here.
            if (!deepEqual((current.spec as { hard?: unknown } | undefined)?.hard ?? {}, hard)) return current;
            current.status = status;
            return current;
          },
          { preconditions: { uid: quota.metadata.uid } },
        );
      } catch (error) {
        if ((error as { reason?: string }).reason !== 'NotFound') throw error;
      }
    },
  });
  /** The quotas of `namespace` that track a name counted in `group/resource`. */
  const replenish = (group: string, resource: string, namespace: unknown): void => {
    for (const [key, quota] of quotas.objects) {
      if (quota.metadata.namespace !== namespace) continue;
      if (
        Object.keys(hardOf(quota)).some((name) => {
          const counted = countedResource(name);
          return counted.group === group && counted.resource === resource;
        })
      )
        queue.add(key);
    }
  };

  // One informer per resource some quota tracks (and the standard ones always, as their
  // deletions are the common case), following the quotas and the registry: a custom resource's
  // type may come after the quota that counts it. Quotas themselves are the quota informer's.
  const replenishers = new Map<string, { type: ResourceType; informer: Informer }>();
  const follow = (): void => {
    const wanted = new Map<string, { group: string; resource: string }>();
    const want = (counted: { group: string; resource: string }) => {
      if (counted.group !== '' || counted.resource !== 'resourcequotas')
        wanted.set(`${counted.group}/${counted.resource}`, counted);
    };
    for (const resource of STANDARD) want({ group: '', resource });
    for (const quota of quotas.objects.values())
      for (const name of Object.keys(hardOf(quota))) want(countedResource(name));
    for (const [key, entry] of replenishers) {
      const counted = wanted.get(key);
      if (counted !== undefined && typeOf(operations, counted.group, counted.resource) === entry.type) continue;
      entry.informer.stop();
      replenishers.delete(key);
    }
    for (const [key, { group, resource }] of wanted) {
      const type = typeOf(operations, group, resource);
      if (replenishers.has(key) || type === undefined || !type.verbs.includes('watch')) continue;
      const informer = startInformer(operations.storageFor(type), {
        onDelete: (object: KubeObject) => replenish(group, resource, object.metadata.namespace),
        onUpsert: (object, old) => {
          if (old !== undefined && givesQuotaBack(group, resource, old, object))
            replenish(group, resource, object.metadata.namespace);
        },
      });
      replenishers.set(key, { type, informer });
    }
  };
  // Once per burst of changes (the first list of a thousand quotas is one).
  let followQueued = false;
  const followSoon = (): void => {
    if (followQueued) return;
    followQueued = true;
    setImmediate(() => {
      followQueued = false;
      if (!stop.aborted) follow();
    });
  };

  const quotas = startInformer(quotaStorage, {
    // Not on changes of status.used: the admission plugin's charges would be recounted away
    // before the objects they admit are stored (the reference watches only spec.hard). A
    // status.hard that is not spec.hard, though, was written by someone else: put right at
    // once where the reference waits for its resync.
    onUpsert: (quota, old) => {
      const specChanged = old === undefined || !deepEqual(old.spec, quota.spec);
      if (!specChanged && deepEqual((quota.status as { hard?: unknown } | undefined)?.hard, hardOf(quota))) return;
      queue.add(objectMapKey(quota));
      if (specChanged) followSoon();
    },
    onDelete: (quota) => {
      replenish('', 'resourcequotas', quota.metadata.namespace);
      followSoon();
    },
  });
  follow();
  const unsubscribe = operations.registry.onChange(followSoon);
  const resync = setInterval(() => {
    for (const key of quotas.objects.keys()) queue.add(key);
  }, resyncMs);
  resync.unref();
  stop.addEventListener(
    'abort',
    () => {
      clearInterval(resync);
      unsubscribe();
      quotas.stop();
      for (const { informer } of replenishers.values()) informer.stop();
    },
    { once: true },
  );
}
