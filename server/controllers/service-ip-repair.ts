/**
 * Keeps the IPAddress objects and the Services' cluster IPs in agreement, as the reference's
 * repair controller for the multi-CIDR allocator does: an address a Service holds without its
 * IPAddress object (a store restored from a backup, an object deleted by hand) gets it back; an
 * IPAddress whose Service no longer holds it (a create that failed after allocation, a replica
 * that died mid-way) is removed. A deletion gives its own addresses back (see
 * allocators/service-hooks.ts). Runs on the leader only, at once and every minute.
 */
import { EVERYTHING, type ObjectStorage } from '../../storage/objects/types';
import type { KubeObject } from '../../api/objects';
import type { ClusterIPAllocator } from '../registry/allocators/cluster-ip';
import type { ObjectOperations } from '../client/operations';
import { sloppyIPString } from '../validation/ip';

const REPAIR_INTERVAL_MS = 60_000;
const MANAGED_BY = 'ipaddress.kubernetes.io/managed-by';
const ALLOCATOR = 'ipallocator.k8s.io';

interface ParentRef {
  resource?: string;
  namespace?: string;
  name?: string;
}

/** A Service's cluster IPs by the names of their IPAddress objects (`10.96.0.010` holds `10.96.0.10`). */
function heldAddresses(service: KubeObject): string[] {
  const spec = (service.spec ?? {}) as { type?: string; clusterIPs?: string[] };
  if (spec.type === 'ExternalName') return [];
  return (spec.clusterIPs ?? []).flatMap((ip) => sloppyIPString(ip) ?? []);
}

export interface ServiceIPRepairOptions {
  readonly services: ObjectStorage;
  readonly ipAddresses: ObjectStorage;
  readonly allocator: ClusterIPAllocator;
  /** Removes an IPAddress object through the API's deletion. */
  readonly removeAddress: (name: string) => Promise<void>;
  readonly log?: (message: string) => void;
}

export class ServiceIPRepair {
  /**
   * Addresses seen without a Service on the last pass. An address is taken a moment before its
   * Service is stored, so one is only removed when it is still without one on the next pass.
   */
  private suspects = new Set<string>();
  private readonly log: (message: string) => void;

  constructor(private readonly options: ServiceIPRepairOptions) {
    this.log = options.log ?? ((message) => console.error(message));
  }

  async runOnce(): Promise<void> {
    const { items: addresses } = await this.options.ipAddresses.list({}, { predicate: EVERYTHING });
    const { items: services } = await this.options.services.list({}, { predicate: EVERYTHING });
    const holders = new Map<string, string>();
    for (const service of services) {
      const owner = { namespace: service.metadata.namespace ?? '', name: service.metadata.name ?? '' };
      for (const ip of heldAddresses(service)) holders.set(ip, `${owner.namespace}/${owner.name}`);
    }
    const parents = new Map(
      addresses.map((address) => [
        String(address.metadata.name),
        ((address.spec ?? {}) as { parentRef?: ParentRef }).parentRef ?? {},
      ]),
    );
    // Addresses others manage (not the Service allocator's) are theirs to keep.
    const managed = new Set(
      addresses
        .filter((address) => address.metadata.labels?.[MANAGED_BY] === ALLOCATOR)
        .map((address) => String(address.metadata.name)),
    );
    for (const service of services) {
      const owner = { namespace: service.metadata.namespace ?? '', name: service.metadata.name ?? '' };
      for (const ip of heldAddresses(service)) {
        if (parents.has(ip)) continue;
        if (await this.options.allocator.restore(ip, owner))
          this.log(`the ClusterIP ${ip} for Service ${owner.namespace}/${owner.name} is not allocated; repairing`);
        else
          this.log(
            `the ClusterIP ${ip} for Service ${owner.namespace}/${owner.name} is not within any configured Service CIDR; please recreate`,
          );
      }
    }
    const orphans = new Set<string>();
    for (const [name, parent] of parents) {
      if (!managed.has(name) || holders.get(name) === `${parent.namespace}/${parent.name}`) continue;
      if (!this.suspects.has(name)) {
        orphans.add(name);
        continue;
      }
      this.log(`the IPAddress ${name} has no Service holding it: removing it`);
      await this.options.removeAddress(name);
    }
    this.suspects = orphans;
  }
}

export function startServiceIPRepair(
  operations: ObjectOperations,
  allocator: ClusterIPAllocator,
  stop: AbortSignal,
): void {
  const services = operations.registry.find({ group: '', version: 'v1' }, 'services');
  const ipAddresses = operations.registry.find({ group: 'networking.k8s.io', version: 'v1' }, 'ipaddresses');
  if (!services || !ipAddresses) return;
  const repair = new ServiceIPRepair({
    services: operations.storageFor(services),
    ipAddresses: operations.storageFor(ipAddresses),
    allocator,
    removeAddress: (name) => operations.deleteObject(ipAddresses, { name }, {}),
  });
  const pass = () =>
    void repair.runOnce().catch((error: unknown) => console.error(`cluster IP repair: ${(error as Error).message}`));
  const timer = setInterval(pass, REPAIR_INTERVAL_MS);
  timer.unref();
  pass();
  stop.addEventListener('abort', () => clearInterval(timer), { once: true });
}
