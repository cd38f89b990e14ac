/**
 * Objects a 1.34 cluster has from its first start: the four system namespaces, the
 * `default/kubernetes` Service (the first address of the service range; its Endpoints and
 * EndpointSlice are the endpoint reconciler's, endpoint-leases.ts), and the two system
 * PriorityClasses that critical pods name. Every replica runs this at start; creating what
 * already exists is not an error, so replicas may race. The namespaces and the Service are kept
 * afterwards, made again when found deleted, as the reference's system namespaces and
 * kubernetes-service controllers keep them.
 */
import { metaTime, type KubeObject } from '../../api/objects';
import { KUBERNETES_SERVICE } from '../../api/kubernetes-service';
import { getCached } from '../admission/lookup';
import type { ResourceType } from '../registry/types';
import type { ObjectOperations } from '../client/operations';
import { SYSTEM_PRIORITY_CLASSES } from '../validation/scheduling';
import { coreType } from './per-namespace';
import { repeat } from './repeat';

export const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'] as const;

export interface BootstrapOptions {
  /** The first address of the service range, e.g. 10.96.0.1. */
  readonly kubernetesServiceIP: string;
  /** The port the `kubernetes` Service's target port names: this server's. */
  readonly securePort: number;
  /** `--kubernetes-service-node-port`: the Service is of type NodePort on this port; 0: ClusterIP. */
  readonly nodePort: number;
}

/** How often the reference looks for the `kubernetes` Service: its endpoint reconciler's interval. */
export const KUBERNETES_SERVICE_INTERVAL_MS = 10_000;
/** How often the reference's system namespaces controller looks for them. */
export const SYSTEM_NAMESPACES_INTERVAL_MS = 60_000;

/** How an object is kept: looked for every `intervalMs` until `stop`. */
export interface Keeping {
  readonly intervalMs: number;
  readonly stop: AbortSignal;
}

export function kubernetesService(options: BootstrapOptions): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { ...KUBERNETES_SERVICE, labels: { component: 'apiserver', provider: 'kubernetes' } },
    spec: {
      type: options.nodePort > 0 ? 'NodePort' : 'ClusterIP',
      clusterIP: options.kubernetesServiceIP,
      clusterIPs: [options.kubernetesServiceIP],
      sessionAffinity: 'None',
      ports: [
        {
          name: 'https',
          port: 443,
          protocol: 'TCP',
          targetPort: options.securePort,
          ...(options.nodePort > 0 ? { nodePort: options.nodePort } : {}),
        },
      ],
    },
  };
}

/** The ServiceCIDR the reference's apiserver keeps for its flag's ranges, and who sets its status. */
export const DEFAULT_SERVICE_CIDR_NAME = 'kubernetes';
const SERVICE_CIDR_MANAGER = 'kubernetes-service-cidr-controller';

interface Condition {
  type: string;
  status: string;
}

/**
 * The default ServiceCIDR, as the reference's default-servicecidr controller keeps it: created
 * with the flag's ranges; upgraded from single- to dual-stack when a second range is added to
 * the same first one; marked Ready when it matches the flags and nothing said otherwise. A
 * ServiceCIDR that does not match is left alone (the operator changed the flag: the reference
 * only reports it).
 */
export async function ensureDefaultServiceCIDR(
  operations: ObjectOperations,
  cidrs: readonly string[],
  now: Date,
): Promise<void> {
  const type = operations.registry.find({ group: 'networking.k8s.io', version: 'v1' }, 'servicecidrs');
  if (!type) return;
  const key = { name: DEFAULT_SERVICE_CIDR_NAME };
  await operations.createObject(type, {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'ServiceCIDR',
    metadata: { name: DEFAULT_SERVICE_CIDR_NAME },
    spec: { cidrs: [...cidrs] },
  });
  const current = await operations.storageFor(type).get(key);
  const stored = ((current.spec ?? {}) as { cidrs?: string[] }).cidrs ?? [];
  if (cidrs.length === 2 && stored.length === 1 && stored[0] === cidrs[0]) {
    await operations.updateObject(
      type,
      key,
      (serviceCIDR) => void ((serviceCIDR.spec as { cidrs: string[] }).cidrs = [...cidrs]),
    );
    return;
  }
  if (current.metadata.deletionTimestamp || stored.join(',') !== cidrs.join(',')) return;
  const ready = (((current.status ?? {}) as { conditions?: Condition[] }).conditions ?? []).find(
    (condition) => condition.type === 'Ready',
  );
  if (ready !== undefined && ready.status !== 'Unknown') return;
  await operations.applyStatus(
    type,
    key,
    {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'ServiceCIDR',
      metadata: { name: DEFAULT_SERVICE_CIDR_NAME },
      // The reference sets no reason; its Go type writes the empty one all the same.
      status: {
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: '',
            message: 'Kubernetes default Service CIDR is ready',
            lastTransitionTime: metaTime(now),
          },
        ],
      },
    },
    SERVICE_CIDR_MANAGER,
  );
}

/**
 * Makes `object`, then looks for it at each interval and makes it again when it is gone; one
 * that exists is left as it is. A write that fails is logged and tried at the next look, as the
 * reference's controllers do (a node port another Service holds does not stop the server).
 * Resolves once the first look is over.
 */
export async function keepObject(
  operations: ObjectOperations,
  type: ResourceType,
  object: KubeObject,
  keeping: Keeping,
): Promise<void> {
  const { name = '', namespace } = object.metadata;
  const ensure = async (): Promise<void> => {
    // Looked for in the cache, as the reference's controllers look in their listers.
    if ((await getCached(operations.storageFor(type), name, namespace)) !== undefined) return;
    // A copy: the create fills in what the store gives an object (its uid, its version).
    await operations.createObject(type, structuredClone(object));
  };
  if (keeping.stop.aborted) return;
  await new Promise<void>((firstLookOver) =>
    repeat({
      run: () => ensure().finally(firstLookOver),
      periodMs: keeping.intervalMs,
      jitter: 0,
      stop: keeping.stop,
      what: `keeping ${type.resource} ${namespace === undefined ? '' : `${namespace}/`}${name}`,
    }),
  );
}

/** The system namespaces, first: the bootstrap's namespaced objects (roles, the Service) live in them. */
export async function keepSystemNamespaces(operations: ObjectOperations, keeping: Keeping): Promise<void> {
  const namespaces = coreType(operations, 'namespaces');
  await Promise.all(
    SYSTEM_NAMESPACES.map((name) =>
      keepObject(operations, namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }, keeping),
    ),
  );
}

/**
 * The `kubernetes` Service. The reference has not corrected an existing one's ports or type
 * after the first start since 1.17, and neither does this.
 */
export function keepKubernetesService(
  operations: ObjectOperations,
  options: BootstrapOptions,
  keeping: Keeping,
): Promise<void> {
  return keepObject(operations, coreType(operations, 'services'), kubernetesService(options), keeping);
}

export async function createSystemPriorityClasses(operations: ObjectOperations): Promise<void> {
  const priorityClasses = operations.registry.find({ group: 'scheduling.k8s.io', version: 'v1' }, 'priorityclasses');
  if (!priorityClasses) return;
  await Promise.all(
    SYSTEM_PRIORITY_CLASSES.map((priorityClass) => operations.createObject(priorityClasses, priorityClass)),
  );
}
