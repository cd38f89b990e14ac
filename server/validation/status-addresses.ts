/**
 * The addresses a status reports, as the reference's status validation judges them: a pod's
 * `podIPs` and `hostIPs` (ValidatePodStatusUpdate's validatePodIPs and validateHostIPs) and the
 * load-balancer ingress points of a Service and of an Ingress (ValidateLoadBalancerStatus,
 * ValidateIngressLoadBalancerStatus). These are legacy IP fields: Go's sloppy parser decides,
 * and StrictIPCIDRValidation adds its rules, sparing an address the stored object already has.
 */
import type { KubeObject } from '../../api/objects';
import type { FieldError } from '../status/field-error';
import { FieldPath, forbidden, internalError, invalid, notSupported } from '../status/field-errors';
import { isValidIPForLegacyField, sloppyIPFamily } from './ip';
import { isDNS1123Subdomain } from './names';

interface PodIP {
  ip?: string;
}

interface PodStatusAddresses {
  hostIP?: string;
  hostIPs?: PodIP[] | null;
  podIPs?: PodIP[] | null;
}

interface LoadBalancerIngress {
  ip?: string;
  hostname?: string;
  ipMode?: string | null;
}

const ONE_PER_FAMILY = 'may specify no more than one IP for each IP family';

/** An address list's entries as the reference prints the list in an error: its internal Go structs. */
function goPodIPs(entries: readonly PodIP[]): { IP: string }[] {
  return entries.map((entry) => ({ IP: entry.ip ?? '' }));
}

function legacyIPErrors(path: FieldPath, value: string, existing: readonly string[], strict: boolean): FieldError[] {
  if (existing.includes(value)) return [];
  return isValidIPForLegacyField(value, strict).map((message) => invalid(path, value, message));
}

/**
 * Every address valid (unless already stored), and at most one of each family: two addresses
 * must be a dual-stack pair, as the reference's IsDualStackIPStrings decides.
 */
function addressListErrors(
  entries: readonly PodIP[],
  oldEntries: readonly PodIP[],
  path: FieldPath,
  strict: boolean,
): FieldError[] {
  const existing = oldEntries.map((entry) => entry.ip ?? '');
  const ips = entries.map((entry) => entry.ip ?? '');
  const errors = ips.flatMap((ip, i) => legacyIPErrors(path.index(i), ip, existing, strict));
  if (ips.length > 1) {
    const families = ips.map(sloppyIPFamily);
    const unparsed = families.indexOf(0);
    if (unparsed !== -1)
      errors.push(
        internalError(path, `failed to check for dual stack with error:invalid IP[${unparsed}]: ${ips[unparsed]}`),
      );
    const dualStack = unparsed === -1 && families.includes(4) && families.includes(6);
    if (!dualStack || ips.length > 2) errors.push(invalid(path, goPodIPs(entries), ONE_PER_FAMILY));
  }
  return errors;
}

/** A pod status's addresses; `hostIP` is the first of `hostIPs` (the reference pairs `podIP` in conversion). */
export function validatePodStatusAddresses(pod: KubeObject, old: KubeObject, strict: boolean): FieldError[] {
  const status = (pod.status as PodStatusAddresses | undefined) ?? {};
  const oldStatus = (old.status as PodStatusAddresses | undefined) ?? {};
  const errors = addressListErrors(
    status.podIPs ?? [],
    oldStatus.podIPs ?? [],
    FieldPath.root('status', 'podIPs'),
    strict,
  );
  const hostIPs = status.hostIPs ?? [];
  if (hostIPs.length === 0) return errors;
  const path = FieldPath.root('status', 'hostIPs');
  const first = hostIPs[0].ip ?? '';
  if ((status.hostIP ?? '') !== first)
    errors.push(invalid(path.index(0).child('ip'), first, 'must be equal to `hostIP`'));
  errors.push(...addressListErrors(hostIPs, oldStatus.hostIPs ?? [], path, strict));
  return errors;
}

function ingressPointsOf(object: KubeObject): LoadBalancerIngress[] {
  return (
    (object.status as { loadBalancer?: { ingress?: LoadBalancerIngress[] | null } } | undefined)?.loadBalancer
      ?.ingress ?? []
  );
}

/** An ingress point's `ip` and `hostname`: what Services and Ingresses share. */
function ingressPointErrors(
  point: LoadBalancerIngress,
  path: FieldPath,
  existingIPs: readonly string[],
  strict: boolean,
): FieldError[] {
  const errors: FieldError[] = [];
  if (point.ip) errors.push(...legacyIPErrors(path.child('ip'), point.ip, existingIPs, strict));
  if (point.hostname) {
    const hostname = point.hostname;
    errors.push(...isDNS1123Subdomain(hostname).map((message) => invalid(path.child('hostname'), hostname, message)));
    if (sloppyIPFamily(hostname) !== 0)
      errors.push(invalid(path.child('hostname'), hostname, 'must be a DNS name, not an IP address'));
  }
  return errors;
}

function existingIngressIPs(old: KubeObject): string[] {
  return ingressPointsOf(old).flatMap((point) => (point.ip ? [point.ip] : []));
}

const IP_MODES = ['Proxy', 'VIP'];

/**
 * A Service's load-balancer status: only a LoadBalancer Service has one (AllowServiceLBStatusOnNonLB
 * is locked off), and an ingress point's `ipMode` goes with its `ip` (defaulted to VIP beside one).
 */
export function validateServiceLoadBalancerStatus(service: KubeObject, old: KubeObject, strict: boolean): FieldError[] {
  const points = ingressPointsOf(service);
  const path = FieldPath.root('status', 'loadBalancer', 'ingress');
  if (points.length === 0) return [];
  if ((service.spec as { type?: string } | undefined)?.type !== 'LoadBalancer')
    return [forbidden(path, "may only be used when `spec.type` is 'LoadBalancer'")];
  const existing = existingIngressIPs(old);
  return points.flatMap((point, i) => {
    const at = path.index(i);
    const errors = ingressPointErrors(point, at, existing, strict);
    const ipMode = point.ipMode;
    if (ipMode != null && !point.ip)
      errors.push(forbidden(at.child('ipMode'), 'may not be specified when `ip` is not set'));
    else if (ipMode != null && !IP_MODES.includes(ipMode))
      errors.push(notSupported(at.child('ipMode'), ipMode, IP_MODES));
    return errors;
  });
}

/** An Ingress's load-balancer status. */
export function validateIngressLoadBalancerStatus(ingress: KubeObject, old: KubeObject, strict: boolean): FieldError[] {
  const path = FieldPath.root('status', 'loadBalancer', 'ingress');
  const existing = existingIngressIPs(old);
  return ingressPointsOf(ingress).flatMap((point, i) => ingressPointErrors(point, path.index(i), existing, strict));
}
