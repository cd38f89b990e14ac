/**
 * What one object consumes of a ResourceQuota, by the reference's resource names: the generic
 * count `count/<resource>[.<group>]` for everything, the standard counts (`pods`, `services`,
 * `configmaps`, ...), and the compute and storage amounts of pods and claims. Shared by the
 * ResourceQuota admission plugin (the charge of one write) and the quota controller (the sum
 * over a namespace), so both count alike.
 */
import type { KubeObject } from '../../api/objects';
import { volumeAttributesClassesOf } from './scopes';
import { formatQuantity, isBinaryFormat, parseQuantity, Quantity } from '../quantity/quantity';

/** An amount and whether it is written in binary suffixes (kept on sums, as the reference does). */
export interface Amount {
  readonly value: Quantity;
  readonly binary: boolean;
}

export type Usage = Map<string, Amount>;

type Fields = Record<string, unknown>;

export const ZERO: Amount = { value: new Quantity(0n), binary: false };

function record(value: unknown): Fields {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Fields) : {};
}

export function amountOf(text: unknown): Amount | undefined {
  if (typeof text === 'number') return { value: new Quantity(BigInt(Math.trunc(text))), binary: false };
  if (typeof text !== 'string') return undefined;
  const value = parseQuantity(text);
  return value === undefined ? undefined : { value, binary: isBinaryFormat(text) };
}

/** The sum keeps the left side's format, or the right side's when the left is zero (as Quantity.Add does). */
export function addAmounts(left: Amount, right: Amount): Amount {
  return {
    value: left.value.add(right.value),
    binary: left.value.compareTo(ZERO.value) === 0 ? right.binary : left.binary,
  };
}

export function formatAmount(amount: Amount): string {
  return formatQuantity(amount.value, amount.binary);
}

function addTo(usage: Usage, name: string, amount: Amount): void {
  usage.set(name, addAmounts(usage.get(name) ?? ZERO, amount));
}

const one = (): Amount => ({ value: new Quantity(1n), binary: false });

/**
 * A pod's `requests` or `limits` by resource: the sum over its containers, raised to any init
 * container's that asks for more (init containers run one at a time, before the others).
 */
export function podTotals(spec: Fields, field: 'requests' | 'limits'): Usage {
  const total: Usage = new Map();
  for (const container of containersOf(spec, 'containers')) {
    for (const [name, text] of Object.entries(record(record(container.resources)[field]))) {
      const amount = amountOf(text);
      if (amount !== undefined) addTo(total, name, amount);
    }
  }
  for (const container of containersOf(spec, 'initContainers')) {
    for (const [name, text] of Object.entries(record(record(container.resources)[field]))) {
      const amount = amountOf(text);
      const current = total.get(name);
      if (amount !== undefined && (current === undefined || current.value.compareTo(amount.value) < 0))
        total.set(name, amount);
    }
  }
  return total;
}

/** The quota names one container states (`requests.cpu` and `cpu`, `limits.memory`, ...). */
function computeNames(requests: Usage, limits: Usage): Usage {
  const usage: Usage = new Map();
  for (const [name, amount] of requests) {
    usage.set(`requests.${name}`, amount);
    if (name === 'cpu' || name === 'memory' || name === 'ephemeral-storage') usage.set(name, amount);
  }
  for (const [name, amount] of limits) usage.set(`limits.${name}`, amount);
  return usage;
}

function records(value: unknown): Fields[] {
  return Array.isArray(value) ? value.map(record) : [];
}

function containersOf(spec: Fields, field: 'containers' | 'initContainers'): Fields[] {
  return records(spec[field]);
}

/** A pod's compute quota names: its totals plus the pod overhead on what it states. */
function podComputeUsage(spec: Fields): Usage {
  const total = computeNames(podTotals(spec, 'requests'), podTotals(spec, 'limits'));
  for (const [name, text] of Object.entries(record(spec.overhead))) {
    const amount = amountOf(text);
    if (amount === undefined) continue;
    for (const prefixed of [`requests.${name}`, `limits.${name}`, name])
      if (total.has(prefixed)) addTo(total, prefixed, amount);
  }
  return total;
}

/** A pod that has finished (or is being deleted past its grace) no longer holds quota. */
export function isTerminalPod(pod: KubeObject): boolean {
  const phase = record(pod.status).phase;
  return phase === 'Succeeded' || phase === 'Failed';
}

/** The generic object-count name of a resource: `count/pods`, `count/deployments.apps`. */
export function countName(group: string, resource: string): string {
  return group === '' ? `count/${resource}` : `count/${resource}.${group}`;
}

const STANDARD_COUNTS = new Set([
  'pods',
  'services',
  'configmaps',
  'secrets',
  'persistentvolumeclaims',
  'replicationcontrollers',
  'resourcequotas',
]);

/** The class a claim is provisioned from: the beta annotation when set, as the reference still honours it, else the field. */
function storageClassOf(claim: KubeObject): string | undefined {
  const annotated = claim.metadata.annotations?.['volume.beta.kubernetes.io/storage-class'];
  if (typeof annotated === 'string' && annotated !== '') return annotated;
  const named = record(claim.spec).storageClassName;
  return typeof named === 'string' && named !== '' ? named : undefined;
}

/** Storage is charged in whole units: a fractional request counts as the next integer. */
function roundedUp(amount: Amount): Amount {
  const { numerator, denominator } = amount.value;
  if (denominator === 1n) return amount;
  const whole = numerator / denominator + (numerator > 0n ? 1n : 0n);
  return { value: new Quantity(whole), binary: amount.binary };
}

/**
 * The storage a claim holds: its request, or the size the volume was expanded to when that is
 * larger (a failed expansion still holds the larger size until it is recovered).
 */
function claimStorage(claim: KubeObject): Amount | undefined {
  const requested = amountOf(record(record(record(claim.spec).resources).requests).storage);
  if (requested === undefined) return undefined;
  const allocated = amountOf(record(record(claim.status).allocatedResources).storage);
  return roundedUp(allocated !== undefined && allocated.value.compareTo(requested.value) > 0 ? allocated : requested);
}

function claimUsage(usage: Usage, claim: KubeObject): void {
  const className = storageClassOf(claim);
  if (className !== undefined) usage.set(`${className}.storageclass.storage.k8s.io/persistentvolumeclaims`, one());
  const storage = claimStorage(claim);
  if (storage === undefined) return;
  usage.set('requests.storage', storage);
  if (className !== undefined) usage.set(`${className}.storageclass.storage.k8s.io/requests.storage`, storage);
}

/**
 * Whether a claim's update changes what quota sees of it beyond its spec: the size it was
 * expanded to, or the VolumeAttributesClasses that put it in a quota's scope.
 */
export function claimQuotaChanged(old: KubeObject, claim: KubeObject): boolean {
  const expanded = (object: KubeObject) => record(record(object.status).allocatedResources).storage;
  const classes = (object: KubeObject) => volumeAttributesClassesOf(object).sort().join();
  return expanded(old) !== expanded(claim) || classes(old) !== classes(claim);
}

/** The quota name of the devices of one DeviceClass a ResourceClaim asks for. */
export const DEVICE_CLASS_SUFFIX = '.deviceclass.resource.k8s.io/devices';

/** A request for all devices of a class is charged as the most one claim can be allocated. */
const ALLOCATION_RESULTS_MAX_SIZE = 32n;

function devicesAsked(request: Fields): bigint {
  if (request.allocationMode === 'All') return ALLOCATION_RESULTS_MAX_SIZE;
  if (request.allocationMode === 'ExactCount' && typeof request.count === 'number')
    return BigInt(Math.trunc(request.count));
  return 0n;
}

/**
 * A ResourceClaim's devices by class: each exact request counts its devices; a request with
 * alternatives (`firstAvailable`) counts, per class, the most any alternative of it asks.
 */
function resourceClaimUsage(usage: Usage, claim: KubeObject): void {
  for (const request of records(record(record(claim.spec).devices).requests)) {
    const asked = new Map<string, bigint>();
    const firstAvailable = records(request.firstAvailable);
    const alternatives = firstAvailable.length > 0 ? firstAvailable : [record(request.exactly)];
    for (const alternative of alternatives) {
      if (typeof alternative.deviceClassName !== 'string') continue;
      const name = `${alternative.deviceClassName}${DEVICE_CLASS_SUFFIX}`;
      const devices = devicesAsked(alternative);
      if (devices >= (asked.get(name) ?? 0n)) asked.set(name, devices);
    }
    for (const [name, devices] of asked) addTo(usage, name, { value: new Quantity(devices), binary: false });
  }
}

/**
 * Everything `object` of `group/resource` consumes. Every stored object counts in
 * `count/<resource>[.<group>]`, a finished pod too; a finished pod holds nothing else.
 */
export function usageOf(group: string, resource: string, object: KubeObject): Usage {
  const usage: Usage = new Map();
  usage.set(countName(group, resource), one());
  if (group === 'resource.k8s.io' && resource === 'resourceclaims') resourceClaimUsage(usage, object);
  if (group !== '') return usage;
  if (resource === 'pods' && isTerminalPod(object)) return usage;
  if (STANDARD_COUNTS.has(resource)) usage.set(resource, one());
  const spec = record(object.spec);
  if (resource === 'pods') for (const [name, amount] of podComputeUsage(spec)) usage.set(name, amount);
  if (resource === 'services') {
    const ports = Array.isArray(spec.ports) ? spec.ports.length : 0;
    if (spec.type === 'LoadBalancer') usage.set('services.loadbalancers', one());
    if (spec.type === 'LoadBalancer' || spec.type === 'NodePort')
      usage.set('services.nodeports', { value: new Quantity(BigInt(ports)), binary: false });
  }
  if (resource === 'persistentvolumeclaims') claimUsage(usage, object);
  return usage;
}

/** The compute names a quota can require every container of a pod to state (the reference's validation set). */
const REQUIRED_COMPUTE = ['cpu', 'limits.cpu', 'limits.memory', 'memory', 'requests.cpu', 'requests.memory'];

/**
 * What a new pod leaves unstated that the quota's `hard` tracks, as the reference words it:
 * `limits.memory for: c; requests.cpu for: c`; undefined when nothing is missing.
 */
export function missingPodCompute(pod: KubeObject, hard: ReadonlySet<string>): string | undefined {
  const required = REQUIRED_COMPUTE.filter((name) => hard.has(name));
  if (required.length === 0) return undefined;
  const spec = record(pod.spec);
  const missing = new Map<string, string[]>();
  for (const container of [...containersOf(spec, 'initContainers'), ...containersOf(spec, 'containers')]) {
    const stated = computeNames(
      podTotals({ containers: [container] }, 'requests'),
      podTotals({ containers: [container] }, 'limits'),
    );
    for (const name of required)
      if (!stated.has(name)) missing.set(name, [...(missing.get(name) ?? []), String(container.name)]);
  }
  if (missing.size === 0) return undefined;
  return [...missing.entries()].map(([name, containers]) => `${name} for: ${containers.join(',')}`).join('; ');
}
