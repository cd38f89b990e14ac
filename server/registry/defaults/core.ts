/** core/v1 defaults other than the pod spec's (Service, Namespace, Secret, claims, volumes, controllers ...). */
import type { KubeObject } from '../../../storage/objects/types';
import { child, fill, isEmptyValue, items, type Json } from './fill';
import { defaultPodObjectSpec, defaultPodTemplateSpec } from './pod';

export function defaultPod(pod: KubeObject): void {
  defaultPodObjectSpec(child(pod as Json, 'spec'));
}

export function defaultPodTemplate(podTemplate: KubeObject): void {
  defaultPodTemplateSpec((podTemplate as Json).template as Json | undefined);
}

/** Service defaults; `spec.clusterIP(s)` come from the allocator (allocators/cluster-ip.ts). */
export function defaultService(service: KubeObject): void {
  const spec = child(service as Json, 'spec');
  fill(spec, 'type', 'ClusterIP');
  fill(spec, 'sessionAffinity', 'None');
  if (spec.sessionAffinity === 'ClientIP') {
    const clientIP = child(child(spec, 'sessionAffinityConfig'), 'clientIP');
    fill(clientIP, 'timeoutSeconds', 10800);
  }
  for (const port of items(spec, 'ports')) {
    fill(port, 'protocol', 'TCP');
    if (isEmptyValue(port.targetPort)) port.targetPort = port.port;
  }
  if (spec.type === 'NodePort' || spec.type === 'LoadBalancer') fill(spec, 'externalTrafficPolicy', 'Cluster');
  if (spec.type === 'LoadBalancer') fill(spec, 'allocateLoadBalancerNodePorts', true);
  if (spec.type !== 'ExternalName') fill(spec, 'internalTrafficPolicy', 'Cluster');
}

/**
 * A Service's IP families: the reference's registry sets them with its cluster IPs, after the
 * request's ownership is recorded, so they are no defaults and no manager owns them. An update
 * keeps the stored ones; this server allocates from one IPv4 range, so the rest is single-stack
 * IPv4.
 */
export function fillServiceIPFamilies(service: KubeObject, old?: KubeObject): void {
  const spec = child(service as Json, 'spec');
  if (spec.type === 'ExternalName') return;
  const oldSpec = (old?.spec ?? {}) as Json;
  fill(spec, 'ipFamilyPolicy', oldSpec.ipFamilyPolicy ?? 'SingleStack');
  fill(spec, 'ipFamilies', oldSpec.ipFamilies ?? ['IPv4']);
}

export function defaultNamespace(namespace: KubeObject): void {
  // Every namespace carries its own name as a label, so selectors can name namespaces.
  if (namespace.metadata.name) {
    namespace.metadata.labels = { ...namespace.metadata.labels, 'kubernetes.io/metadata.name': namespace.metadata.name };
  }
}

export function defaultSecret(secret: KubeObject): void {
  foldStringData(secret);
  fill(secret as Json, 'type', 'Opaque');
}

/**
 * `stringData` is write-only: the reference's conversion folds it into `data` (base64, its keys
 * winning over `data`'s) and never stores it, on every write.
 */
function foldStringData(secret: KubeObject): void {
  const stringData = secret.stringData as Record<string, unknown> | undefined;
  delete secret.stringData;
  if (stringData === undefined || stringData === null || typeof stringData !== 'object') return;
  const data = { ...((secret.data as Record<string, string> | undefined) ?? {}) };
  for (const [key, value] of Object.entries(stringData)) data[key] = Buffer.from(String(value), 'utf8').toString('base64');
  secret.data = data;
}

export function defaultPersistentVolumeClaim(claim: KubeObject): void {
  fill(child(claim as Json, 'spec'), 'volumeMode', 'Filesystem');
}

export function defaultPersistentVolume(volume: KubeObject): void {
  const spec = child(volume as Json, 'spec');
  fill(spec, 'persistentVolumeReclaimPolicy', 'Retain');
  fill(spec, 'volumeMode', 'Filesystem');
}

export function defaultReplicationController(controller: KubeObject): void {
  const spec = child(controller as Json, 'spec');
  const template = spec.template as Json | undefined;
  const templateLabels = (template?.metadata as Json | undefined)?.labels as Record<string, string> | undefined;
  if (templateLabels && Object.keys(templateLabels).length > 0) {
    if (!spec.selector || Object.keys(spec.selector as object).length === 0) spec.selector = { ...templateLabels };
    if (!controller.metadata.labels || Object.keys(controller.metadata.labels).length === 0) controller.metadata.labels = { ...templateLabels };
  }
  fill(spec, 'replicas', 1);
  defaultPodTemplateSpec(template);
}

export function defaultEndpoints(endpoints: KubeObject): void {
  for (const subset of items(endpoints as Json, 'subsets')) {
    for (const port of items(subset, 'ports')) fill(port, 'protocol', 'TCP');
  }
}

/** Container limit items: default limit ← max, default request ← default limit, then ← min. */
export function defaultLimitRange(limitRange: KubeObject): void {
  for (const limit of items((limitRange as Json).spec as Json | undefined, 'limits')) {
    if (limit.type !== 'Container') continue;
    const fromMax = { ...((limit.max as Json | undefined) ?? {}), ...((limit.default as Json | undefined) ?? {}) };
    const request = { ...((limit.min as Json | undefined) ?? {}), ...fromMax, ...((limit.defaultRequest as Json | undefined) ?? {}) };
    if (Object.keys(fromMax).length > 0) limit.default = fromMax;
    if (Object.keys(request).length > 0) limit.defaultRequest = request;
  }
}

export function defaultNode(node: KubeObject): void {
  const status = (node as Json).status as Json | undefined;
  if (status?.capacity && status.allocatable === undefined) status.allocatable = { ...(status.capacity as Json) };
}
