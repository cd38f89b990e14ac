/**
 * The resource quota controller, as the reference's: keeps each ResourceQuota's `status.hard`
 * equal to `spec.hard` and `status.used` equal to what the namespace's objects consume now.
 * A quota is recounted when it is created or changed, when an object it may count is deleted
 * (or a pod finishes), and on every resync, which also gives back charges the ResourceQuota
 * admission plugin made for writes that then failed.
 */
import type { KubeObject } from '../../storage/objects/types';
import { EVERYTHING } from '../../storage/objects/types';
import { deepEqual } from '../validation/field-errors';
import { addAmounts, formatAmount, isTerminalPod, usageOf, ZERO, type Amount } from '../quota/usage';
import { quotaCounts } from '../quota/scopes';
import type { ResourceType } from '../registry/types';
import { objectMapKey, startInformer, type Informer } from './informer';
import type { ObjectOperations } from './operations';
import { startWorkQueue } from './work-queue';

/** The reference's full recount period. */
export const QUOTA_RESYNC_MS = 5 * 60_000;

/** The core resources whose deletion gives quota back at once (the reference's replenishment set). */
const REPLENISHED = ['pods', 'services', 'persistentvolumeclaims', 'configmaps', 'secrets', 'replicationcontrollers', 'resourcequotas'];

/** The group and resource a quota name counts: `count/deployments.apps`, `requests.cpu` (pods), ... */
function countedResource(name: string): { group: string; resource: string } {
  if (name.startsWith('count/')) {
    const [resource, ...group] = name.slice('count/'.length).split('.');
    return { group: group.join('.'), resource };
  }
  if (name.startsWith('services')) return { group: '', resource: 'services' };
  if (name === 'persistentvolumeclaims' || name === 'requests.storage' || name.includes('.storageclass.storage.k8s.io/')) return { group: '', resource: 'persistentvolumeclaims' };
  if (REPLENISHED.includes(name)) return { group: '', resource: name };
  return { group: '', resource: 'pods' };
}

function typeOf(operations: ObjectOperations, group: string, resource: string): ResourceType | undefined {
  return operations.registry.all().find((type) => type.group === group && type.resource === resource && type.namespaced);
}

/** `status.used` for `hard` in the quota's namespace, from the objects stored now that the quota counts. */
async function measure(operations: ObjectOperations, quota: KubeObject, hard: Record<string, unknown>): Promise<Record<string, string>> {
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
    const { items } = await operations.storageFor(type).list({ namespace: quota.metadata.namespace }, { predicate: EVERYTHING });
    for (const item of items) {
      if (!quotaCounts(quota, group, resource, item)) continue;
      const usage = usageOf(group, resource, item);
      for (const name of names) {
        const amount = usage.get(name);
        if (amount !== undefined) totals.set(name, addAmounts(totals.get(name)!, amount));
      }
    }
  }
  return Object.fromEntries([...totals].sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, amount]) => [name, formatAmount(amount)]));
}

export function startQuotaController(operations: ObjectOperations, stop: AbortSignal, resyncMs = QUOTA_RESYNC_MS): void {
  const quotaType = typeOf(operations, '', 'resourcequotas');
  if (quotaType === undefined) throw new Error('resourcequotas are not served');
  const quotaStorage = operations.storageFor(quotaType);

  const queue = startWorkQueue<string>({
    stop,
    handle: async (key) => {
      const quota = quotas.objects.get(key);
      if (quota === undefined) return;
      const namespace = String(quota.metadata.namespace);
      const hard = (quota.spec as { hard?: Record<string, unknown> } | undefined)?.hard ?? {};
      const used = await measure(operations, quota, hard);
      // Sorted, as the reference's maps are written.
      const status = { hard: Object.fromEntries(Object.entries(hard).sort(([a], [b]) => (a < b ? -1 : 1))), used };
      if (deepEqual(quota.status, status)) return;
      try {
        await quotaStorage.update({ namespace, name: String(quota.metadata.name) }, (current) => {
          if (current === undefined) return current!;
          // Spec changed since the count: the informer's next event brings it back here.
          if (!deepEqual((current.spec as { hard?: unknown } | undefined)?.hard ?? {}, hard)) return current;
          current.status = status;
          return current;
        }, { preconditions: { uid: quota.metadata.uid } });
      } catch (error) {
        if ((error as { reason?: string }).reason !== 'NotFound') throw error;
      }
    },
  });
  const enqueueNamespace = (namespace: unknown): void => {
    for (const [key, quota] of quotas.objects) if (quota.metadata.namespace === namespace) queue.add(key);
  };
  const quotas = startInformer(quotaStorage, {
    // Not on status changes: the admission plugin's charges would be recounted away before
    // the objects they admit are stored (the reference likewise watches only spec.hard).
    onUpsert: (quota, old) => {
      if (old === undefined || !deepEqual(old.spec, quota.spec)) queue.add(objectMapKey(quota));
    },
  });
  const informers: Informer[] = [quotas];
  for (const resource of REPLENISHED) {
    const type = typeOf(operations, '', resource);
    if (type === undefined || resource === 'resourcequotas') continue;
    informers.push(startInformer(operations.storageFor(type), {
      onDelete: (object: KubeObject) => enqueueNamespace(object.metadata.namespace),
      onUpsert: (object, old) => {
        if (resource === 'pods' && old !== undefined && isTerminalPod(object) && !isTerminalPod(old)) enqueueNamespace(object.metadata.namespace);
      },
    }));
  }
  const resync = setInterval(() => {
    for (const key of quotas.objects.keys()) queue.add(key);
  }, resyncMs);
  resync.unref();
  stop.addEventListener('abort', () => {
    clearInterval(resync);
    for (const informer of informers) informer.stop();
  }, { once: true });
}
