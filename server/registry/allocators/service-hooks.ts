/**
 * The Service store's hooks, as the reference's Service registry has them: a Service gets its
 * IP families, cluster IPs and node ports once validated, just before it is stored
 * (BeginCreate, BeginUpdate), gives back what it took when the write fails, gives back what an
 * update dropped once stored, and gives back everything when it is deleted (AfterDelete, which
 * also removes the Service's Endpoints). A dry run takes nothing and shows what the
 * reference's dry run shows.
 */
import { ObjectError } from '../../../storage/errors';
import type { ObjectStorage } from '../../../storage/objects/types';
import type { KubeObject } from '../../../api/objects';
import { invalid } from '../../status/catalogue';
import type { FieldError } from '../types';
import type { FinishWrite, StoreHooks } from '../store/hooks';
import type { ClusterIPAllocator } from './cluster-ip';
import type { ServiceNodePorts } from './node-ports';

function clusterIPsOf(service: KubeObject | undefined): string[] {
  const spec = (service?.spec ?? {}) as { clusterIP?: string; clusterIPs?: string[] };
  return spec.clusterIPs ?? (spec.clusterIP ? [spec.clusterIP] : []);
}

function refuse(service: KubeObject, errors: readonly FieldError[]): Error {
  return invalid({ group: '', kind: 'Service' }, service.metadata.name ?? '', errors);
}

/** Both finishes, the second even when the first fails. */
function both(first: FinishWrite, second: FinishWrite): FinishWrite {
  return async (stored) => {
    try {
      await first(stored);
    } finally {
      await second(stored);
    }
  };
}

export interface ServiceHooksOptions {
  readonly clusterIPs: ClusterIPAllocator;
  readonly nodePorts: ServiceNodePorts;
  readonly services: ObjectStorage;
  /** The Endpoints of a deleted Service go with it, as the reference removes them lest a new Service of its name find them. */
  readonly endpoints?: ObjectStorage;
}

export function serviceAllocationHooks(options: ServiceHooksOptions): StoreHooks {
  const { clusterIPs: allocator, nodePorts, services, endpoints } = options;
  return {
    async beginCreate(service, { dryRun }) {
      if (dryRun) {
        const { errors } = await allocator.allocate(service, { dryRun });
        if (errors.length > 0) throw refuse(service, errors);
        return nodePorts.allocate(service, { dryRun });
      }
      const { errors, allocated } = await allocator.allocate(service);
      if (errors.length > 0) throw refuse(service, errors);
      const releaseIPs: FinishWrite = async (stored) => {
        if (stored) return;
        // A create that lost to an existing Service of the same name may have been handed that
        // Service's own address (the allocator counts the same owner's address as held): keep it.
        const key = { namespace: service.metadata.namespace ?? '', name: service.metadata.name ?? '' };
        const held = new Set(clusterIPsOf(await services.get(key).catch(() => undefined)));
        await allocator.releaseIPs(allocated.filter((ip) => !held.has(ip)));
      };
      let portsFinish: FinishWrite;
      try {
        portsFinish = await nodePorts.allocate(service);
      } catch (error) {
        await releaseIPs(false);
        throw error;
      }
      return both(portsFinish, releaseIPs);
    },
    async beginUpdate(service, old, { dryRun }) {
      if (dryRun) {
        const { errors } = await allocator.update(service, old, { dryRun });
        if (errors.length > 0) throw refuse(service, errors);
        return nodePorts.update(service, old, { dryRun });
      }
      const { errors, allocated, released } = await allocator.update(service, old);
      if (errors.length > 0) throw refuse(service, errors);
      const settleIPs: FinishWrite = (stored) => allocator.releaseIPs(stored ? released : allocated);
      let portsFinish: FinishWrite;
      try {
        portsFinish = await nodePorts.update(service, old);
      } catch (error) {
        await settleIPs(false);
        throw error;
      }
      return both(portsFinish, settleIPs);
    },
    async afterDelete(service) {
      const key = { namespace: service.metadata.namespace ?? '', name: service.metadata.name ?? '' };
      const removeEndpoints = endpoints?.delete(key).catch((error: unknown) => {
        if (!(error instanceof ObjectError && error.reason === 'NotFound')) throw error;
      });
      await Promise.all([allocator.release(service), nodePorts.release(service), removeEndpoints]);
    },
  };
}
