/**
 * What the reference's strategies warn of when a built-in object is written (their
 * WarningsOnCreate and WarningsOnUpdate, and those of the status strategies), each text a 1.34
 * kube-apiserver's. Most are addresses in a legacy field written in a form a future release will
 * refuse (leading zeros, IPv4-mapped) or IPv6 not in RFC 5952 form; the rest are fields the
 * object sets to no effect.
 */
import type { KubeObject } from '../../api/objects';
import { warningsForCIDR, warningsForIP } from './ip';

interface ServiceSpec {
  type?: string;
  clusterIP?: string;
  clusterIPs?: string[];
  externalIPs?: string[];
  loadBalancerIP?: string;
  loadBalancerSourceRanges?: string[];
  sessionAffinity?: string;
  externalName?: string;
}

interface LoadBalancerStatus {
  loadBalancer?: { ingress?: { ip?: string }[] };
}

const TOPOLOGY_HINTS_ANNOTATION = 'service.kubernetes.io/topology-aware-hints';
const TOPOLOGY_MODE_ANNOTATION = 'service.kubernetes.io/topology-mode';

/** A Service's create or update (its GetWarningsForService). */
export function serviceWarnings(service: KubeObject): string[] {
  const spec = (service.spec ?? {}) as ServiceSpec;
  const warnings: string[] = [];
  if (service.metadata.annotations?.[TOPOLOGY_HINTS_ANNOTATION] !== undefined)
    warnings.push(
      `annotation ${TOPOLOGY_HINTS_ANNOTATION} is deprecated, please use ${TOPOLOGY_MODE_ANNOTATION} instead`,
    );
  if (spec.clusterIP && spec.clusterIP !== 'None')
    (spec.clusterIPs ?? []).forEach((ip, i) => warnings.push(...warningsForIP(`spec.clusterIPs[${i}]`, ip)));
  if (spec.type === 'ClusterIP' && spec.clusterIP === 'None') {
    if (spec.loadBalancerIP) warnings.push('spec.loadBalancerIP is ignored for headless services');
    if ((spec.externalIPs ?? []).length > 0) warnings.push('spec.externalIPs is ignored for headless services');
    if (spec.sessionAffinity !== 'None') warnings.push('spec.SessionAffinity is ignored for headless services');
  }
  (spec.externalIPs ?? []).forEach((ip, i) => warnings.push(...warningsForIP(`spec.externalIPs[${i}]`, ip)));
  if (spec.loadBalancerIP) warnings.push(...warningsForIP('spec.loadBalancerIP', spec.loadBalancerIP));
  (spec.loadBalancerSourceRanges ?? []).forEach((cidr, i) =>
    warnings.push(...warningsForCIDR(`spec.loadBalancerSourceRanges[${i}]`, cidr)),
  );
  if (spec.type === 'ExternalName' && (spec.externalIPs ?? []).length > 0)
    warnings.push('spec.externalIPs is ignored when spec.type is "ExternalName"');
  if (spec.type !== 'ExternalName' && spec.externalName)
    warnings.push('spec.externalName is ignored when spec.type is not "ExternalName"');
  return warnings;
}

/** A status write of a Service or an Ingress: its load balancer's addresses. */
export function loadBalancerStatusWarnings(object: KubeObject): string[] {
  const ingress = (object.status as LoadBalancerStatus | undefined)?.loadBalancer?.ingress ?? [];
  return ingress.flatMap(({ ip }, i) => (ip ? warningsForIP(`status.loadBalancer.ingress[${i}]`, ip) : []));
}

/** A Pod's status write: its pod and host addresses. */
export function podStatusWarnings(pod: KubeObject): string[] {
  const status = (pod.status ?? {}) as { podIPs?: { ip?: string }[]; hostIPs?: { ip?: string }[] };
  return [
    ...(status.podIPs ?? []).flatMap(({ ip }, i) => warningsForIP(`status.podIPs[${i}].ip`, ip ?? '')),
    ...(status.hostIPs ?? []).flatMap(({ ip }, i) => warningsForIP(`status.hostIPs[${i}].ip`, ip ?? '')),
  ];
}

/** Endpoints the endpoints controller writes fix their addresses themselves: the reference spares them the check. */
const ENDPOINTS_MANAGED_BY = 'endpoints.kubernetes.io/managed-by';

export function endpointsWarnings(endpoints: KubeObject): string[] {
  if (endpoints.metadata.labels?.[ENDPOINTS_MANAGED_BY] === 'endpoint-controller') return [];
  type Address = { ip?: string };
  const subsets = (endpoints.subsets ?? []) as { addresses?: Address[]; notReadyAddresses?: Address[] }[];
  return subsets.flatMap((subset, i) => [
    ...(subset.addresses ?? []).flatMap(({ ip }, j) => warningsForIP(`subsets[${i}].addresses[${j}].ip`, ip ?? '')),
    ...(subset.notReadyAddresses ?? []).flatMap(({ ip }, j) =>
      warningsForIP(`subsets[${i}].notReadyAddresses[${j}].ip`, ip ?? ''),
    ),
  ]);
}

/** The controllers whose EndpointSlices the reference spares the address check, as they fix addresses themselves. */
const ENDPOINT_SLICE_CONTROLLERS = ['endpointslice-controller.k8s.io', 'endpointslicemirroring-controller.k8s.io'];

/** An EndpointSlice's create (`old` undefined) or update. */
export function endpointSliceWarnings(slice: KubeObject, old: KubeObject | undefined): string[] {
  const warnings =
    old === undefined && slice.addressType === 'FQDN' ? ['spec.addressType: FQDN endpoints are deprecated'] : [];
  const managedBy = slice.metadata.labels?.['endpointslice.kubernetes.io/managed-by'];
  if (managedBy !== undefined && ENDPOINT_SLICE_CONTROLLERS.includes(managedBy)) return warnings;
  const endpoints = (slice.endpoints ?? []) as { addresses?: string[] }[];
  return [
    ...warnings,
    ...endpoints.flatMap((endpoint, i) =>
      (endpoint.addresses ?? []).flatMap((ip, j) => warningsForIP(`endpoints[${i}].addresses[${j}]`, ip)),
    ),
  ];
}

interface IPBlock {
  cidr?: string;
  except?: string[];
}

function ipBlockWarnings(path: string, block: IPBlock | undefined): string[] {
  if (block === undefined) return [];
  return [
    ...warningsForCIDR(`${path}.cidr`, block.cidr ?? ''),
    ...(block.except ?? []).flatMap((cidr, k) => warningsForCIDR(`${path}.except[${k}]`, cidr)),
  ];
}

export function networkPolicyWarnings(policy: KubeObject): string[] {
  const spec = (policy.spec ?? {}) as {
    ingress?: { from?: { ipBlock?: IPBlock }[] }[];
    egress?: { to?: { ipBlock?: IPBlock }[] }[];
  };
  return [
    ...(spec.ingress ?? []).flatMap((rule, i) =>
      (rule.from ?? []).flatMap((peer, j) => ipBlockWarnings(`spec.ingress[${i}].from[${j}].ipBlock`, peer.ipBlock)),
    ),
    ...(spec.egress ?? []).flatMap((rule, i) =>
      (rule.to ?? []).flatMap((peer, j) => ipBlockWarnings(`spec.egress[${i}].to[${j}].ipBlock`, peer.ipBlock)),
    ),
  ];
}

/** A Node's create or update (not its status). */
export function nodeWarnings(node: KubeObject): string[] {
  const spec = (node.spec ?? {}) as { configSource?: unknown; externalID?: string; podCIDRs?: string[] };
  return [
    ...(spec.configSource != null ? ['spec.configSource: the feature is removed'] : []),
    ...(spec.externalID ? ['spec.externalID: this field is deprecated, and is unused by Kubernetes'] : []),
    ...(spec.podCIDRs ?? []).flatMap((cidr, i) => warningsForCIDR(`spec.podCIDRs[${i}]`, cidr)),
  ];
}
