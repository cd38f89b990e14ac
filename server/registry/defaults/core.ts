/** core/v1 defaults other than the pod spec's (Service, Namespace, Secret, claims, volumes, controllers ...). */
import type { KubeObject } from '../../../api/objects';
import { child, fill, fillWhenEmpty, isEmptyValue, items, type Json } from './fill';
import { defaultLegacyVolumeSources, defaultPodObjectSpec, defaultPodTemplateSpec } from './pod';
import { showClaimSourceGroups } from '../conversion/claim-source-group';
import type { FeatureEnabled } from '../types';

export function defaultPod(pod: KubeObject, _version: string, featureEnabled: FeatureEnabled): void {
  const spec = child(pod as Json, 'spec');
  // The reference's conversion of a Pod (not of a pod template) forces a negative grace period,
  // which old clients wrote and validation accepts, to 1.
  if (typeof spec.terminationGracePeriodSeconds === 'number' && spec.terminationGracePeriodSeconds < 0)
    spec.terminationGracePeriodSeconds = 1;
  defaultPodObjectSpec(spec, featureEnabled);
  const status = (pod as Json).status as Json | undefined;
  if (status !== undefined) pairSingularAndList(status, 'podIP', 'podIPs', (ip) => ({ ip }));
}

/**
 * A field of core/v1 that has a list beside its old single value (a pod's `podIP` and
 * `podIPs`, a node's `podCIDR` and `podCIDRs`): the reference's conversion to its internal
 * version keeps only the list, the single value winning where the two disagree, and converting
 * back sets the single value to the list's first. Every write and every read through it so
 * leaves the two in step, whichever of them a client set.
 */
function pairSingularAndList<T>(
  parent: Json,
  singular: string,
  list: string,
  entryOf: (value: string) => T,
  valueOf: (entry: T) => unknown = (entry) => (entry as { ip?: unknown }).ip,
): void {
  const one = typeof parent[singular] === 'string' ? (parent[singular] as string) : '';
  const many = Array.isArray(parent[list]) ? (parent[list] as T[]) : [];
  if (one !== '' && (many.length === 0 || valueOf(many[0]) !== one)) parent[list] = [entryOf(one)];
  const first = (parent[list] as T[] | undefined)?.[0];
  if (first !== undefined && typeof valueOf(first) === 'string' && valueOf(first) !== '')
    parent[singular] = valueOf(first);
}

/**
 * Go holds a PodTemplate's `template` as a value, not a pointer: one left out is decoded as the
 * zero template, defaulted and then validated (`template.spec.containers: Required value`).
 */
export function defaultPodTemplate(podTemplate: KubeObject, _version: string, featureEnabled: FeatureEnabled): void {
  defaultPodTemplateSpec(child(podTemplate as Json, 'template'), featureEnabled);
}

/**
 * A Service as the reference's registry shows it on every read: one that became ExternalName
 * keeps the internalTrafficPolicy defaulted for its old type in storage, and reads drop it (the
 * reference's defaultOnReadInternalTrafficPolicy). A copy when something is dropped.
 */
export function serviceAsRead(service: KubeObject): KubeObject {
  const spec = service.spec as Json | undefined;
  if (spec?.type !== 'ExternalName' || spec.internalTrafficPolicy === undefined) return service;
  const { internalTrafficPolicy: _dropped, ...shown } = spec;
  return { ...service, spec: shown };
}

/** Service defaults; `spec.clusterIP(s)` and the IP families come from the allocator (allocators/cluster-ip.ts). */
export function defaultService(service: KubeObject): void {
  const spec = child(service as Json, 'spec');
  fillWhenEmpty(spec, 'sessionAffinity', 'None');
  // No affinity has no affinity settings: whatever was sent with None is dropped, not refused.
  if (spec.sessionAffinity === 'None') delete spec.sessionAffinityConfig;
  if (spec.sessionAffinity === 'ClientIP') {
    const clientIP = child(child(spec, 'sessionAffinityConfig'), 'clientIP');
    fill(clientIP, 'timeoutSeconds', 10800);
  }
  fillWhenEmpty(spec, 'type', 'ClusterIP');
  for (const port of items(spec, 'ports')) {
    fillWhenEmpty(port, 'protocol', 'TCP');
    if (isEmptyValue(port.targetPort)) port.targetPort = port.port;
  }
  if (externallyAccessible(spec as ServiceSpecFields)) fillWhenEmpty(spec, 'externalTrafficPolicy', 'Cluster');
  if (spec.type === 'LoadBalancer') fill(spec, 'allocateLoadBalancerNodePorts', true);
  if (spec.type !== 'ExternalName') fill(spec, 'internalTrafficPolicy', 'Cluster');
  // LoadBalancerIPMode is locked on: a load balancer's ingress point with an address is reached as a VIP unless it says.
  const loadBalancer = ((service as Json).status as Json | undefined)?.loadBalancer as Json | undefined;
  if (spec.type === 'LoadBalancer')
    for (const point of items(loadBalancer, 'ingress')) if (point.ip) fill(point, 'ipMode', 'VIP');
}

interface ServiceSpecFields {
  type?: string;
  clusterIP?: string;
  clusterIPs?: string[];
  ipFamilies?: string[];
  ipFamilyPolicy?: string;
  ports?: { name?: string; nodePort?: number }[];
  externalTrafficPolicy?: string;
  healthCheckNodePort?: number;
  allocateLoadBalancerNodePorts?: boolean;
  loadBalancerClass?: string;
  externalIPs?: string[];
}

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
const hasNodePorts = (spec: ServiceSpecFields): boolean => spec.type === 'NodePort' || spec.type === 'LoadBalancer';
const hasHealthCheckNodePort = (spec: ServiceSpecFields): boolean =>
  spec.type === 'LoadBalancer' && spec.externalTrafficPolicy === 'Local';
const externallyAccessible = (spec: ServiceSpecFields): boolean =>
  hasNodePorts(spec) || (spec.type === 'ClusterIP' && (spec.externalIPs?.length ?? 0) > 0);

/**
 * `clusterIP` given without `clusterIPs` (an older client) stands for both, as the reference's
 * normalizeClusterIPs on create.
 */
export function normalizeServiceClusterIPs(service: KubeObject): void {
  const spec = child(service as Json, 'spec') as ServiceSpecFields;
  if (spec.clusterIP && (spec.clusterIPs?.length ?? 0) === 0) spec.clusterIPs = [spec.clusterIP];
}

/**
 * An update of a Service, before it is validated: the values the server filled on create that
 * the client left out are kept (its cluster IPs; its node ports, by port name, unless another
 * port now uses them; its health check port), as the reference's patchAllocatedValues, so that
 * a PUT of what was sent at first keeps them; then `clusterIP` and `clusterIPs` are brought in
 * line as the reference's normalizeClusterIPs does on update; then the type's fields go with
 * the type.
 */
export function prepareServiceUpdate(service: KubeObject, old: KubeObject): void {
  const spec = child(service as Json, 'spec') as ServiceSpecFields;
  const oldSpec = (old.spec ?? {}) as ServiceSpecFields;
  const hasClusterIP = (s: ServiceSpecFields) => s.type !== 'ExternalName';
  if (hasClusterIP(oldSpec) && hasClusterIP(spec)) {
    if (!spec.clusterIP && oldSpec.clusterIP) spec.clusterIP = oldSpec.clusterIP;
    if ((spec.clusterIPs?.length ?? 0) === 0 && (oldSpec.clusterIPs?.length ?? 0) > 0)
      spec.clusterIPs = oldSpec.clusterIPs;
  }
  if (hasNodePorts(oldSpec) && hasNodePorts(spec)) {
    const used = new Set((spec.ports ?? []).map((port) => port.nodePort ?? 0));
    const byName = new Map((oldSpec.ports ?? []).map((port) => [port.name ?? '', port.nodePort ?? 0]));
    for (const port of spec.ports ?? []) {
      const kept = byName.get(port.name ?? '') ?? 0;
      if ((port.nodePort ?? 0) === 0 && kept !== 0 && !used.has(kept)) port.nodePort = kept;
    }
  }
  if (
    hasHealthCheckNodePort(oldSpec) &&
    hasHealthCheckNodePort(spec) &&
    (spec.healthCheckNodePort ?? 0) === 0 &&
    oldSpec.healthCheckNodePort !== undefined
  ) {
    spec.healthCheckNodePort = oldSpec.healthCheckNodePort;
  }
  normalizeClusterIPsOnUpdate(spec, oldSpec);
  dropServiceTypeDependentFields(service, old);
}

/** What a client changing one of `clusterIP` and `clusterIPs` meant for the other. */
function normalizeClusterIPsOnUpdate(spec: ServiceSpecFields, oldSpec: ServiceSpecFields): void {
  if (
    (oldSpec.clusterIPs?.length ?? 0) > 0 &&
    (spec.clusterIPs?.length ?? 0) === 0 &&
    oldSpec.clusterIP === spec.clusterIP
  )
    spec.clusterIPs = oldSpec.clusterIPs;
  if (oldSpec.clusterIP === spec.clusterIP) return;
  const sameIPs = sameJson(spec.clusterIPs, oldSpec.clusterIPs);
  if (oldSpec.clusterIP && !spec.clusterIP) {
    if (sameIPs) delete spec.clusterIPs;
  } else if (sameIPs) {
    spec.clusterIPs = [spec.clusterIP!];
  }
}

/**
 * On an update to a type that no longer takes them, the fields the server filled for the old
 * type, when the client left them as they were (so that `kubectl patch -p
 * '{"spec":{"type":"ClusterIP"}}'` of a NodePort Service works), as the reference's
 * dropTypeDependentFields. Their addresses and ports are given back once stored.
 */
function dropServiceTypeDependentFields(service: KubeObject, old: KubeObject): void {
  const spec = child(service as Json, 'spec') as ServiceSpecFields;
  const oldSpec = (old.spec ?? {}) as ServiceSpecFields;
  if (oldSpec.type !== 'ExternalName' && spec.type === 'ExternalName') {
    if (sameJson(spec.clusterIPs, oldSpec.clusterIPs)) {
      delete spec.clusterIP;
      delete spec.clusterIPs;
    }
    if (sameJson(spec.ipFamilies, oldSpec.ipFamilies)) delete spec.ipFamilies;
    if (sameJson(spec.ipFamilyPolicy, oldSpec.ipFamilyPolicy)) delete spec.ipFamilyPolicy;
  }
  if (
    hasNodePorts(oldSpec) &&
    !hasNodePorts(spec) &&
    sameJson(
      spec.ports?.map((p) => p.nodePort ?? 0),
      oldSpec.ports?.map((p) => p.nodePort ?? 0),
    )
  ) {
    for (const port of spec.ports ?? []) delete port.nodePort;
  }
  if (
    hasHealthCheckNodePort(oldSpec) &&
    !hasHealthCheckNodePort(spec) &&
    (spec.healthCheckNodePort ?? 0) === (oldSpec.healthCheckNodePort ?? 0)
  )
    delete spec.healthCheckNodePort;
  if (oldSpec.type === 'LoadBalancer' && spec.type !== 'LoadBalancer') {
    if (
      spec.allocateLoadBalancerNodePorts !== undefined &&
      spec.allocateLoadBalancerNodePorts === oldSpec.allocateLoadBalancerNodePorts
    )
      delete spec.allocateLoadBalancerNodePorts;
    if (sameJson(spec.loadBalancerClass, oldSpec.loadBalancerClass)) delete spec.loadBalancerClass;
  }
  if (
    externallyAccessible(oldSpec) &&
    !externallyAccessible(spec) &&
    sameJson(spec.externalTrafficPolicy, oldSpec.externalTrafficPolicy)
  )
    delete spec.externalTrafficPolicy;
  if (spec.type !== 'LoadBalancer' && service.status !== undefined)
    service.status = { ...(service.status as Json), loadBalancer: {} };
}

export function defaultNamespace(namespace: KubeObject): void {
  // As the reference's SetDefaults_NamespaceStatus, on every write: a status update sending an
  // empty phase stores Active. A write without a phase gets it from the strategy (a create's
  // Active, an update's stored phase), after managedFields are recorded, so that it stays the
  // server's own field, nobody's (recorded: a create sending `status: {}` owns no f:status).
  const status = (namespace as Json).status;
  if (typeof status === 'object' && status !== null && !Array.isArray(status) && 'phase' in status)
    fillWhenEmpty(status as Json, 'phase', 'Active');
  // Every namespace carries its own name as a label, so selectors can name namespaces.
  if (namespace.metadata.name) {
    namespace.metadata.labels = {
      ...namespace.metadata.labels,
      'kubernetes.io/metadata.name': namespace.metadata.name,
    };
  }
}

export function defaultSecret(secret: KubeObject): void {
  foldStringData(secret);
  fillWhenEmpty(secret as Json, 'type', 'Opaque');
}

/**
 * `stringData` is write-only: the reference's conversion folds it into `data` (base64, its keys
 * winning over `data`'s) and never stores it, on every write. An empty one folds nothing: the
 * conversion makes no `data` map for it (len(in.StringData) > 0), and an immutable Secret's
 * update tells a missing `data` from an empty one.
 */
function foldStringData(secret: KubeObject): void {
  const stringData = secret.stringData as Record<string, unknown> | undefined;
  delete secret.stringData;
  if (stringData === undefined || stringData === null || typeof stringData !== 'object') return;
  if (Object.keys(stringData).length === 0) return;
  const data = { ...((secret.data as Record<string, string> | undefined) ?? {}) };
  for (const [key, value] of Object.entries(stringData))
    data[key] = Buffer.from(String(value), 'utf8').toString('base64');
  secret.data = data;
}

export function defaultPersistentVolumeClaim(claim: KubeObject): void {
  const spec = child(claim as Json, 'spec');
  fill(spec, 'volumeMode', 'Filesystem');
  showClaimSourceGroups(spec);
  defaultPhase(claim, 'Pending');
}

export function defaultPersistentVolume(volume: KubeObject): void {
  const spec = child(volume as Json, 'spec');
  fillWhenEmpty(spec, 'persistentVolumeReclaimPolicy', 'Retain');
  fill(spec, 'volumeMode', 'Filesystem');
  // The same host path and legacy sources as a pod volume's, with the same defaults.
  const hostPath = spec.hostPath as Json | undefined;
  if (hostPath) fill(hostPath, 'type', '');
  defaultLegacyVolumeSources(spec);
  defaultPhase(volume, 'Pending');
}

/** A status without a phase (or with an empty one) gets `phase`, as the reference defaults claims and volumes. */
function defaultPhase(object: KubeObject, phase: string): void {
  fillWhenEmpty(child(object as Json, 'status'), 'phase', phase);
}

export function defaultReplicationController(
  controller: KubeObject,
  _version: string,
  featureEnabled: FeatureEnabled,
): void {
  const spec = child(controller as Json, 'spec');
  const template = spec.template as Json | undefined;
  const templateLabels = (template?.metadata as Json | undefined)?.labels as Record<string, string> | undefined;
  if (templateLabels && Object.keys(templateLabels).length > 0) {
    if (!spec.selector || Object.keys(spec.selector as object).length === 0) spec.selector = { ...templateLabels };
    if (!controller.metadata.labels || Object.keys(controller.metadata.labels).length === 0)
      controller.metadata.labels = { ...templateLabels };
  }
  fill(spec, 'replicas', 1);
  defaultPodTemplateSpec(template, featureEnabled);
}

export function defaultEndpoints(endpoints: KubeObject): void {
  for (const subset of items(endpoints as Json, 'subsets')) {
    for (const port of items(subset, 'ports')) fillWhenEmpty(port, 'protocol', 'TCP');
  }
}

/** Container limit items: default limit ← max, default request ← default limit, then ← min. */
export function defaultLimitRange(limitRange: KubeObject): void {
  for (const limit of items((limitRange as Json).spec as Json | undefined, 'limits')) {
    if (limit.type !== 'Container') continue;
    const fromMax = { ...((limit.max as Json | undefined) ?? {}), ...((limit.default as Json | undefined) ?? {}) };
    const request = {
      ...((limit.min as Json | undefined) ?? {}),
      ...fromMax,
      ...((limit.defaultRequest as Json | undefined) ?? {}),
    };
    if (Object.keys(fromMax).length > 0) limit.default = fromMax;
    if (Object.keys(request).length > 0) limit.defaultRequest = request;
  }
}

export function defaultNode(node: KubeObject): void {
  const spec = (node as Json).spec as Json | undefined;
  if (spec !== undefined)
    pairSingularAndList(
      spec,
      'podCIDR',
      'podCIDRs',
      (cidr) => cidr,
      (cidr) => cidr,
    );
  const status = (node as Json).status as Json | undefined;
  if (status?.capacity && status.allocatable === undefined) status.allocatable = { ...(status.capacity as Json) };
}
