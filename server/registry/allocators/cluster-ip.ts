/**
 * Service cluster IP allocation from the ranges of `--service-cluster-ip-range` (one per
 * family; a Service gets one address, of its first family).
 *
 * Uniqueness across replicas: an address is taken by creating the IPAddress object named after
 * it (`/registry/ipaddresses/<ip>`, networking.k8s.io/v1, as the reference's allocator does
 * since 1.33). The create is a create-if-absent transaction in the store, so of two replicas
 * picking the same address exactly one wins; the loser sees AlreadyExists and tries another.
 * No replica keeps state of its own: a restart or another replica needs nothing but the store.
 *
 * Call `allocate` on a Service create after defaults, before storing (not on dry-run), and
 * `release` after the Service is deleted or when its create fails after allocation.
 */
import { ObjectError } from '../../../storage/errors';
import type { KubeObject, ObjectStorage } from '../../../storage/objects/types';
import { FieldPath, GoValue, invalid } from '../../validation/field-errors';
import type { FieldError } from '../types';
import { familyOf, parseServiceIPRanges, type IPFamily, type ServiceIPRange, type ServiceIPRanges } from './service-cidr';

/** Who holds an address (recorded in the IPAddress object's spec.parentRef). */
export interface ServiceRef {
  readonly namespace: string;
  readonly name: string;
}

/** Claims of addresses, atomic across every replica sharing the store. */
export interface IPReservations {
  /** True when `ip` is now held by `owner` (it was free, or `owner` held it already); false when another holds it. */
  reserve(ip: string, owner: ServiceRef, family: IPFamily): Promise<boolean>;
  release(ip: string): Promise<void>;
}

/** Reservations as IPAddress objects in the store (the `ipaddresses` resource's storage). */
export function ipAddressReservations(ipAddresses: ObjectStorage): IPReservations {
  return {
    async reserve(ip, owner, family) {
      const ipAddress: KubeObject = {
        apiVersion: 'networking.k8s.io/v1',
        kind: 'IPAddress',
        metadata: { name: ip, labels: { 'ipaddress.kubernetes.io/ip-family': family, 'ipaddress.kubernetes.io/managed-by': 'ipallocator.k8s.io' } },
        spec: { parentRef: { group: '', resource: 'services', namespace: owner.namespace, name: owner.name } },
      };
      try {
        await ipAddresses.create({ name: ip }, ipAddress);
        return true;
      } catch (error) {
        if (!(error instanceof ObjectError && error.reason === 'AlreadyExists')) throw error;
        // Held already by this very Service (a create retried, or re-run at start-up): still ours.
        const held = await ipAddresses.get({ name: ip }).catch(() => undefined);
        const parent = (held?.spec as { parentRef?: Partial<ServiceRef> } | undefined)?.parentRef;
        return parent?.namespace === owner.namespace && parent?.name === owner.name;
      }
    },
    async release(ip) {
      try {
        await ipAddresses.delete({ name: ip });
      } catch (error) {
        if (!(error instanceof ObjectError && error.reason === 'NotFound')) throw error;
      }
    },
  };
}

export interface ClusterIPAllocatorOptions {
  readonly reservations: IPReservations;
  /** `--service-cluster-ip-range`; default: the reference's default range. */
  readonly ranges?: ServiceIPRanges;
  /** A random integer in [0, n): injectable so tests can force collisions. */
  readonly random?: (n: number) => number;
  /** Dynamic picks tried before giving up on a nearly full range. */
  readonly maxAttempts?: number;
}

interface ServiceSpec {
  type?: string;
  clusterIP?: string;
  clusterIPs?: string[];
  ipFamilies?: string[];
  ipFamilyPolicy?: string;
}

/** Dynamic picks draw from at most this many addresses, so the draw stays exact in a double (an IPv6 /64 has 2^64). */
const MAX_DRAWN_RANGE = 2 ** 48;

export class ClusterIPAllocator {
  private readonly reservations: IPReservations;
  private readonly random: (n: number) => number;
  private readonly maxAttempts: number;
  readonly ranges: ServiceIPRanges;

  constructor(options: ClusterIPAllocatorOptions) {
    this.ranges = options.ranges ?? parseServiceIPRanges('', { limitSize: false });
    this.reservations = options.reservations;
    this.random = options.random ?? ((n) => Math.floor(Math.random() * n));
    this.maxAttempts = options.maxAttempts ?? 64;
  }

  /** The range's first usable address, kept for the `kubernetes` Service. */
  firstAddress(): string {
    return this.ranges.primary.firstAddress();
  }

  /**
   * The range a new Service's address comes from: that of the address asked for, or of its first
   * IP family when the cluster has one, else the primary. The kind's preparation fills IPv4 as
   * the family before allocation, so an IPv4 family does not tell a client's wish from that
   * default: it picks the secondary range only for an address asked for.
   */
  private rangeFor(spec: ServiceSpec, asked: string): ServiceIPRange {
    const { primary, secondary } = this.ranges;
    if (secondary === undefined) return primary;
    if (asked !== '') return familyOf(asked) === secondary.family ? secondary : primary;
    return spec.ipFamilies?.[0] === 'IPv6' && secondary.family === 'IPv6' ? secondary : primary;
  }

  /**
   * Fills `spec.clusterIP` and `spec.clusterIPs` of a new Service (may mutate `service`), or
   * reserves the address the client asked for. Headless and ExternalName services get none.
   * Returns field errors for the 422 when the asked address is outside the range or taken.
   */
  async allocate(service: KubeObject): Promise<FieldError[]> {
    const spec = (service.spec ?? (service.spec = {})) as ServiceSpec;
    if (spec.type === 'ExternalName') return [];
    const asked = spec.clusterIP || spec.clusterIPs?.[0] || '';
    const unconfigured = this.unconfiguredFamilies(spec, asked);
    if (unconfigured.length > 0) return unconfigured;
    if (asked === 'None') {
      spec.clusterIP = 'None';
      spec.clusterIPs = ['None'];
      // As for an allocated address (see rangeFor): the default family is the primary range's.
      if ((spec.ipFamilies?.length ?? 0) <= 1 && spec.ipFamilies?.[0] !== 'IPv6') spec.ipFamilies = [this.ranges.primary.family];
      return [];
    }
    const owner = { namespace: service.metadata.namespace ?? '', name: service.metadata.name ?? '' };
    const path = FieldPath.root('spec', 'clusterIPs').index(0);
    const range = this.rangeFor(spec, asked);
    const assign = (ip: string) => {
      spec.clusterIP = ip;
      spec.clusterIPs = [ip];
      // A single-stack Service's family is its address's (see rangeFor); dual-stack families stay as asked.
      if ((spec.ipFamilies?.length ?? 0) <= 1) spec.ipFamilies = [range.family];
    };
    if (asked !== '') {
      const index = range.indexOf(asked);
      if (index === undefined || index < 1n || index > range.lastUsableIndex) {
        return [
          invalid(path, asked, `failed to allocate IP ${asked}: the provided IP (${asked}) is not in the valid range. The range of valid IPs is ${range.cidr}`),
        ];
      }
      if (!(await this.reservations.reserve(asked, owner, range.family))) {
        return [invalid(path, new GoValue(`[]string{${JSON.stringify(asked)}}`), `failed to allocate IP ${asked}: provided IP is already allocated`)];
      }
      assign(asked);
      return [];
    }
    // Dynamic picks skip the network address, the first address (the `kubernetes` Service's)
    // and, for IPv4, the broadcast address.
    const usable = range.lastUsableIndex - 1n;
    const drawn = Number(usable < BigInt(MAX_DRAWN_RANGE) ? usable : BigInt(MAX_DRAWN_RANGE));
    for (let attempt = 0; attempt < this.maxAttempts; attempt++) {
      const ip = range.addressAt(2n + BigInt(this.random(drawn)));
      if (await this.reservations.reserve(ip, owner, range.family)) {
        assign(ip);
        return [];
      }
    }
    return [invalid(path, '', `failed to allocate IP: range is full (${range.cidr})`)];
  }

  /**
   * What the reference refuses of a Service's families on this cluster's ranges: dual-stack
   * demanded of a single-stack cluster, an address or a family of a family it has no range
   * for. (An IPv4 family is not checked: it may be the kind's default, see rangeFor.)
   */
  private unconfiguredFamilies(spec: ServiceSpec, asked: string): FieldError[] {
    const { primary, secondary } = this.ranges;
    const families = new Set<IPFamily>(secondary ? [primary.family, secondary.family] : [primary.family]);
    const errors: FieldError[] = [];
    if (spec.ipFamilyPolicy === 'RequireDualStack' && families.size < 2) {
      errors.push(invalid(FieldPath.root('spec', 'ipFamilyPolicy'), spec.ipFamilyPolicy, 'this cluster is not configured for dual-stack services'));
    }
    const askedFamily = asked !== '' && asked !== 'None' ? familyOf(asked) : undefined;
    if (askedFamily !== undefined && !families.has(askedFamily)) {
      errors.push(invalid(FieldPath.root('spec', 'clusterIPs').index(0), new GoValue(`[]string{${(spec.clusterIPs ?? [asked]).map((ip) => JSON.stringify(ip)).join(', ')}}`), `${askedFamily} is not configured on this cluster`));
    }
    (spec.ipFamilies ?? []).forEach((family, i) => {
      if (family === 'IPv6' && !families.has('IPv6')) errors.push(invalid(FieldPath.root('spec', 'ipFamilies').index(i), family, 'not configured on this cluster'));
    });
    return errors;
  }

  /** Frees the addresses of a deleted Service (or of one whose create failed). */
  async release(service: KubeObject): Promise<void> {
    const spec = (service.spec ?? {}) as ServiceSpec;
    for (const ip of spec.clusterIPs ?? (spec.clusterIP ? [spec.clusterIP] : [])) {
      if (ip !== 'None' && familyOf(ip) !== undefined) await this.reservations.release(ip);
    }
  }
}
