/**
 * The Service store's hook: a new Service gets its cluster IP once validated, just before it is
 * stored (the reference allocates in its Service storage's BeginCreate), and gives it back when
 * the create fails. A dry run allocates nothing, since nothing would hold the address.
 */
import type { KubeObject, ObjectStorage } from '../../../storage/objects/types';
import { invalid } from '../../status/catalogue';
import type { StoreHooks } from '../store/hooks';
import type { ClusterIPAllocator } from './cluster-ip';

function clusterIPsOf(service: KubeObject | undefined): string[] {
  const spec = (service?.spec ?? {}) as { clusterIP?: string; clusterIPs?: string[] };
  return spec.clusterIPs ?? (spec.clusterIP ? [spec.clusterIP] : []);
}

export function serviceClusterIPHooks(allocator: ClusterIPAllocator, services: ObjectStorage): StoreHooks {
  return {
    async beginCreate(service) {
      const errors = await allocator.allocate(service);
      if (errors.length > 0) throw invalid({ group: '', kind: 'Service' }, service.metadata.name ?? '', errors);
      return async (stored) => {
        if (stored) return;
        // A create that lost to an existing Service of the same name may have been handed that
        // Service's own address (the allocator counts the same owner's address as held): keep it.
        const key = { namespace: service.metadata.namespace ?? '', name: service.metadata.name ?? '' };
        const existing = await services.get(key).catch(() => undefined);
        const held = new Set(clusterIPsOf(existing));
        if (clusterIPsOf(service).some((ip) => held.has(ip))) return;
        await allocator.release(service);
      };
    },
  };
}
