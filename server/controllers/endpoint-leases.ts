/**
 * The `kubernetes` Service's Endpoints and EndpointSlice list every live replica, as the
 * reference's lease endpoint reconciler (`--endpoint-reconciler-type=lease`) keeps them: each
 * replica holds a key `<prefix>/masterleases/<advertise address>` with a 15 s TTL, rewritten
 * every 10 s, and rewrites the two objects whenever the live set differs from what they list.
 * A replica that stops cleanly removes its key and itself at once; one that dies leaves the
 * list when its key expires. The lease keys hold an Endpoints object with the address in its one
 * subset and a generation bumped on each renewal, as the reference writes them, so a reference
 * server on the same etcd reads them and is read by this one.
 */
import { isIP } from 'node:net';
import type { KubeObject } from '../../api/objects';
import { KUBERNETES_SERVICE } from '../../api/kubernetes-service';
import { unlessNotFound } from '../../storage/errors';
import { EVERYTHING, type ObjectStorage, type ObjectWatch } from '../../storage/objects/types';
import type { ResourceType } from '../registry/types';
import type { ObjectOperations } from '../client/operations';

/** The reference's DefaultEndpointReconcilerTTL. */
export const MASTER_LEASE_TTL_SECONDS = 15;
/** The reference's DefaultEndpointReconcilerInterval. */
const RECONCILE_INTERVAL_MS = 10_000;

export interface EndpointLeaseOptions {
  /** Objects at `<prefix>/masterleases/`, written with the lease TTL. */
  readonly leases: ObjectStorage;
  readonly endpoints: ResourceType;
  readonly endpointSlices: ResourceType | undefined;
  readonly advertiseAddress: string;
  readonly securePort: number;
}

export interface EndpointLeaseReconciler {
  /** Stops renewing, removes this replica's lease and lists the others (the reference's pre-shutdown hook). */
  stop(): Promise<void>;
}

/** The `kubernetes` Endpoints for `addresses` (sorted as the reference sorts them). */
export function kubernetesEndpoints(addresses: readonly string[], securePort: number): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: {
      ...KUBERNETES_SERVICE,
      labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' },
    },
    // The last replica to leave empties it, as the reference repacks a subset with no address away.
    ...(addresses.length === 0
      ? {}
      : {
          subsets: [
            {
              addresses: addresses.map((ip) => ({ ip })),
              ports: [{ name: 'https', port: securePort, protocol: 'TCP' }],
            },
          ],
        }),
  };
}

/** The slice the reference writes next to the Endpoints, of the first address's family. */
export function kubernetesEndpointSlice(addresses: readonly string[], securePort: number): KubeObject {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      ...KUBERNETES_SERVICE,
      labels: { 'kubernetes.io/service-name': KUBERNETES_SERVICE.name },
    },
    addressType: isIP(addresses[0] ?? '') === 6 ? 'IPv6' : 'IPv4',
    endpoints: addresses.map((ip) => ({ addresses: [ip], conditions: { ready: true } })),
    ports: [{ name: 'https', protocol: 'TCP', port: securePort }],
  };
}

/**
 * Renews this replica's lease and writes the objects once before returning, then every interval,
 * and at once when another replica's lease goes: a replica that died leaves the list when its
 * key expires, not up to an interval later.
 */
export async function startEndpointLeaseReconciler(
  operations: ObjectOperations,
  options: EndpointLeaseOptions,
): Promise<EndpointLeaseReconciler> {
  let stopped = false;
  let running: Promise<void> = reconcile(operations, options, true);
  await running;
  const again = () => {
    running = running
      .then(() => (stopped ? undefined : reconcile(operations, options, true)))
      .catch((error: unknown) => console.error('kubernetes endpoint reconcile failed:', error));
  };
  const timer = setInterval(again, RECONCILE_INTERVAL_MS);
  timer.unref();
  let watch: ObjectWatch | undefined;
  void (async () => {
    while (!stopped) {
      try {
        watch = await options.leases.watch({}, { predicate: EVERYTHING });
        if (stopped) watch.stop();
        for await (const event of watch) if (event.type === 'DELETED') again();
      } catch (error) {
        if (!stopped) console.error('watching the kubernetes endpoint leases failed:', error);
        await new Promise((resolve) => setTimeout(resolve, RECONCILE_INTERVAL_MS).unref());
      }
    }
  })();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      watch?.stop();
      await running.catch(() => undefined);
      await unlessNotFound(options.leases.delete({ name: options.advertiseAddress }));
      await reconcile(operations, options, false);
    },
  };
}

async function reconcile(operations: ObjectOperations, options: EndpointLeaseOptions, alive: boolean): Promise<void> {
  const own = options.advertiseAddress;
  if (alive) await renewLease(options.leases, own);
  const live = new Set(await leasedAddresses(options.leases));
  // A lease just written may not be listed yet by a cache that is behind the store.
  if (alive) live.add(own);
  else live.delete(own);
  const addresses = [...live].sort();
  await writeIfDifferent(operations, options.endpoints, kubernetesEndpoints(addresses, options.securePort), [
    'subsets',
  ]);
  if (options.endpointSlices)
    await writeIfDifferent(operations, options.endpointSlices, kubernetesEndpointSlice(addresses, options.securePort), [
      'addressType',
      'endpoints',
      'ports',
    ]);
}

async function renewLease(leases: ObjectStorage, address: string): Promise<void> {
  await leases.update(
    { name: address },
    (current) => ({
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: {
        name: address,
        ...(current ? { uid: current.metadata.uid, creationTimestamp: current.metadata.creationTimestamp } : {}),
        generation: Number(current?.metadata.generation ?? 0) + 1,
      },
      subsets: [{ addresses: [{ ip: address }] }],
    }),
    { allowCreate: true },
  );
}

async function leasedAddresses(leases: ObjectStorage): Promise<string[]> {
  const { items } = await leases.list({}, { predicate: EVERYTHING });
  const addresses: string[] = [];
  for (const lease of items) {
    const ip = (lease.subsets as { addresses?: { ip?: string }[] }[] | undefined)?.[0]?.addresses?.[0]?.ip;
    if (ip) addresses.push(ip);
  }
  return addresses;
}

/** Creates the object, or rewrites `fields` when they differ from what is stored. */
async function writeIfDifferent(
  operations: ObjectOperations,
  type: ResourceType,
  desired: KubeObject,
  fields: readonly string[],
): Promise<void> {
  const key = KUBERNETES_SERVICE;
  const current = await unlessNotFound(operations.storageFor(type).get(key));
  if (current === undefined) {
    await operations.createObject(type, desired);
    return;
  }
  if (fields.every((field) => JSON.stringify(current[field]) === JSON.stringify(desired[field]))) return;
  await operations.updateObject(type, key, (object) => {
    for (const field of fields) {
      if (desired[field] === undefined) delete object[field];
      else object[field] = structuredClone(desired[field]);
    }
  });
}
