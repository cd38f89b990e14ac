/**
 * Gives cluster IPs back: when a Service is deleted, and for any address whose Service no
 * longer exists (a create that failed after allocation, a replica that died mid-way). Runs on
 * the leader only, like the reference's repair controller.
 */
import { EVERYTHING } from '../../storage/objects/types';
import type { ClusterIPAllocator } from '../registry/allocators/cluster-ip';
import { startInformer } from './informer';
import type { ObjectOperations } from './operations';

const REPAIR_INTERVAL_MS = 60_000;

interface ParentRef {
  namespace?: string;
  name?: string;
}

export function startServiceIPRepair(operations: ObjectOperations, allocator: ClusterIPAllocator, stop: AbortSignal): void {
  const services = operations.registry.find({ group: '', version: 'v1' }, 'services');
  const ipAddresses = operations.registry.find({ group: 'networking.k8s.io', version: 'v1' }, 'ipaddresses');
  if (!services || !ipAddresses) return;
  const informer = startInformer(operations.storageFor(services), {
    onDelete: (service) => void allocator.release(service).catch(() => undefined),
  });

  // An address is allocated a moment before its Service is stored, so one seen without a
  // Service is only released when it is still without one at the next pass.
  let suspects = new Set<string>();
  const repair = async (): Promise<void> => {
    await informer.synced;
    const { items } = await operations.storageFor(ipAddresses).list({}, { predicate: EVERYTHING });
    const orphans = new Set<string>();
    for (const address of items) {
      const parent = ((address.spec ?? {}) as { parentRef?: ParentRef }).parentRef ?? {};
      if (informer.objects.has(`${parent.namespace}/${parent.name}`)) continue;
      const name = String(address.metadata.name);
      if (suspects.has(name)) await operations.deleteObject(ipAddresses, { name }, {});
      else orphans.add(name);
    }
    suspects = orphans;
  };
  const timer = setInterval(() => void repair().catch(() => undefined), REPAIR_INTERVAL_MS);
  timer.unref();
  void repair().catch(() => undefined);
  stop.addEventListener('abort', () => {
    clearInterval(timer);
    informer.stop();
  }, { once: true });
}
