/**
 * Service cluster IP allocation from one IPv4 range (default 10.96.0.0/12).
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

export const DEFAULT_SERVICE_CIDR = '10.96.0.0/12';

/** Who holds an address (recorded in the IPAddress object's spec.parentRef). */
export interface ServiceRef {
  readonly namespace: string;
  readonly name: string;
}

/** Claims of addresses, atomic across every replica sharing the store. */
export interface IPReservations {
  /** True when `ip` is now held by `owner` (it was free, or `owner` held it already); false when another holds it. */
  reserve(ip: string, owner: ServiceRef): Promise<boolean>;
  release(ip: string): Promise<void>;
}

/** Reservations as IPAddress objects in the store (the `ipaddresses` resource's storage). */
export function ipAddressReservations(ipAddresses: ObjectStorage): IPReservations {
  return {
    async reserve(ip, owner) {
      const ipAddress: KubeObject = {
        apiVersion: 'networking.k8s.io/v1',
        kind: 'IPAddress',
        metadata: { name: ip, labels: { 'ipaddress.kubernetes.io/ip-family': 'IPv4', 'ipaddress.kubernetes.io/managed-by': 'ipallocator.k8s.io' } },
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

interface Range {
  readonly base: number;
  readonly size: number;
}

function parseIPv4(ip: string): number | undefined {
  const parts = ip.split('.');
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p) || Number(p) > 255)) return undefined;
  return parts.reduce((n, p) => n * 256 + Number(p), 0);
}

function formatIPv4(n: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join('.');
}

/** Throws when `cidr` is not a service range the allocator can serve (`--service-cluster-ip-range`). */
export function checkServiceCIDR(cidr: string): void {
  parseCIDR(cidr);
}

function parseCIDR(cidr: string): Range {
  const [address, bits] = cidr.split('/');
  const base = parseIPv4(address);
  const prefix = Number(bits);
  if (base === undefined || !Number.isInteger(prefix) || prefix < 8 || prefix > 30) throw new Error(`invalid service CIDR ${JSON.stringify(cidr)}`);
  const size = 2 ** (32 - prefix);
  return { base: base - (base % size), size };
}

export interface ClusterIPAllocatorOptions {
  readonly reservations: IPReservations;
  readonly cidr?: string;
  /** A random integer in [0, n): injectable so tests can force collisions. */
  readonly random?: (n: number) => number;
  /** Dynamic picks tried before giving up on a nearly full range. */
  readonly maxAttempts?: number;
}

interface ServiceSpec {
  type?: string;
  clusterIP?: string;
  clusterIPs?: string[];
}

export class ClusterIPAllocator {
  private readonly range: Range;
  private readonly reservations: IPReservations;
  private readonly random: (n: number) => number;
  private readonly maxAttempts: number;
  readonly cidr: string;

  constructor(options: ClusterIPAllocatorOptions) {
    this.cidr = options.cidr ?? DEFAULT_SERVICE_CIDR;
    this.range = parseCIDR(this.cidr);
    this.reservations = options.reservations;
    this.random = options.random ?? ((n) => Math.floor(Math.random() * n));
    this.maxAttempts = options.maxAttempts ?? 64;
  }

  /** The range's first usable address, kept for the `kubernetes` Service. */
  firstAddress(): string {
    return formatIPv4(this.range.base + 1);
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
    if (asked === 'None') {
      spec.clusterIP = 'None';
      spec.clusterIPs = ['None'];
      return [];
    }
    const owner = { namespace: service.metadata.namespace ?? '', name: service.metadata.name ?? '' };
    const path = FieldPath.root('spec', 'clusterIPs').index(0);
    if (asked !== '') {
      const n = parseIPv4(asked);
      if (n === undefined || n <= this.range.base || n >= this.range.base + this.range.size - 1) {
        return [
          invalid(path, asked, `failed to allocate IP ${asked}: the provided IP (${asked}) is not in the valid range. The range of valid IPs is ${this.cidr}`),
        ];
      }
      if (!(await this.reservations.reserve(asked, owner))) {
        return [invalid(path, new GoValue(`[]string{${JSON.stringify(asked)}}`), `failed to allocate IP ${asked}: provided IP is already allocated`)];
      }
      spec.clusterIP = asked;
      spec.clusterIPs = [asked];
      return [];
    }
    // Dynamic picks skip the network address, the first address (the `kubernetes` Service's)
    // and the broadcast address.
    const usable = this.range.size - 3;
    for (let attempt = 0; attempt < this.maxAttempts; attempt++) {
      const ip = formatIPv4(this.range.base + 2 + this.random(usable));
      if (await this.reservations.reserve(ip, owner)) {
        spec.clusterIP = ip;
        spec.clusterIPs = [ip];
        return [];
      }
    }
    return [invalid(path, '', `failed to allocate IP: range is full (${this.cidr})`)];
  }

  /** Frees the addresses of a deleted Service (or of one whose create failed). */
  async release(service: KubeObject): Promise<void> {
    const spec = (service.spec ?? {}) as ServiceSpec;
    for (const ip of spec.clusterIPs ?? (spec.clusterIP ? [spec.clusterIP] : [])) {
      if (ip !== 'None' && parseIPv4(ip) !== undefined) await this.reservations.release(ip);
    }
  }
}
