/**
 * Service cluster IP allocation from the ranges of `--service-cluster-ip-range` (one per
 * family), as a 1.34 kube-apiserver's Service registry does it: the IP families and family
 * policy are settled first (initIPFamilyFields: SingleStack, PreferDualStack, RequireDualStack,
 * families given or inferred from the addresses asked for), then each family gets its address,
 * the one asked for or one at random; an update takes an address for a family it adds (an
 * ExternalName turned ClusterIP, a single-stack Service turned dual-stack) and gives back the
 * ones it drops once stored.
 *
 * Uniqueness across replicas: an address is taken by creating the IPAddress object named after
 * it (`/registry/ipaddresses/<ip>`, networking.k8s.io/v1, as the reference's allocator does
 * since 1.33). The create is a create-if-absent transaction in the store, so of two replicas
 * picking the same address exactly one wins; the loser sees AlreadyExists and tries another.
 * No replica keeps state of its own: a restart or another replica needs nothing but the store.
 *
 * An address asked for is a legacy field: written with leading zeros or IPv4-mapped (when
 * validation let it through, StrictIPCIDRValidation being off) it stays so in the Service, while
 * its IPAddress object, its range and its family are those of the address it reads as
 * (`10.96.0.010` holds `10.96.0.10`), as the reference's allocator parses it sloppily.
 *
 * Call `allocate` on a Service create after defaults, before storing (not on dry-run), and
 * `release` after the Service is deleted or when its create fails after allocation.
 */
import { ObjectError } from '../../../storage/errors';
import type { KubeObject } from '../../../api/objects';
import type { ObjectStorage } from '../../../storage/objects/types';
import { internalError } from '../../status/catalogue';
import { FieldPath, invalid } from '../../status/field-errors';
import type { FieldError } from '../types';
import {
  familyOf,
  parseServiceIPRanges,
  type IPFamily,
  type ServiceIPRange,
  type ServiceIPRanges,
} from '../../net/service-ip-ranges';
import { sloppyIPString } from '../../validation/ip';

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
        metadata: {
          name: ip,
          labels: {
            'ipaddress.kubernetes.io/ip-family': family,
            'ipaddress.kubernetes.io/managed-by': 'ipallocator.k8s.io',
          },
        },
        // The core group is the empty string, which the reference's omitempty leaves out.
        spec: { parentRef: { resource: 'services', namespace: owner.namespace, name: owner.name } },
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

export interface ServiceIPSpec {
  type?: string;
  clusterIP?: string;
  clusterIPs?: string[];
  ipFamilies?: string[];
  ipFamilyPolicy?: string;
  selector?: Record<string, string>;
}

/** What an allocation did: the addresses it took (given back if the write fails) and those to give back once stored. */
export interface IPChange {
  readonly errors: FieldError[];
  readonly allocated: string[];
  readonly released: string[];
}

export interface DryRunOption {
  readonly dryRun?: boolean;
}

/** Dynamic picks draw from at most this many addresses, so the draw stays exact in a double (an IPv6 /64 has 2^64). */
const MAX_DRAWN_RANGE = 2 ** 48;

const specOf = (service: KubeObject | undefined): ServiceIPSpec => (service?.spec ?? {}) as ServiceIPSpec;
const isHeadless = (spec: ServiceIPSpec): boolean => spec.clusterIP === 'None' || spec.clusterIPs?.[0] === 'None';
const sameList = (a: readonly string[] | undefined, b: readonly string[] | undefined): boolean =>
  (a ?? []).length === (b ?? []).length && (a ?? []).every((value, i) => value === b?.[i]);
const otherFamily = (family: IPFamily): IPFamily => (family === 'IPv4' ? 'IPv6' : 'IPv4');
const NO_CHANGE: IPChange = { errors: [], allocated: [], released: [] };
/** The family of an address as the reference's allocator reads it (a mapped one is IPv4). */
const sloppyFamilyOf = (ip: string): IPFamily | undefined => familyOf(sloppyIPString(ip) ?? ip);

/**
 * Two PreferDualStack Services of one type with the same addresses and families: the update
 * changes nothing of their addresses, even when the cluster's dual-stackness changed since.
 */
function matchingPreferDualStack(spec: ServiceIPSpec, oldSpec: ServiceIPSpec | undefined): boolean {
  if (oldSpec === undefined || spec.ipFamilyPolicy === undefined || oldSpec.type !== spec.type) return false;
  if (spec.type !== 'ClusterIP' && spec.type !== 'NodePort' && spec.type !== 'LoadBalancer') return false;
  if (spec.ipFamilyPolicy !== 'PreferDualStack' || (oldSpec.ipFamilyPolicy ?? 'PreferDualStack') !== 'PreferDualStack')
    return false;
  return sameList(spec.clusterIPs, oldSpec.clusterIPs) && sameList(spec.ipFamilies, oldSpec.ipFamilies);
}

export class ClusterIPAllocator {
  private readonly reservations: IPReservations;
  private readonly random: (n: number) => number;
  private readonly maxAttempts: number;
  readonly ranges: ServiceIPRanges;
  private readonly byFamily: Map<IPFamily, ServiceIPRange>;

  constructor(options: ClusterIPAllocatorOptions) {
    this.ranges = options.ranges ?? parseServiceIPRanges('', { limitSize: false });
    this.reservations = options.reservations;
    this.random = options.random ?? ((n) => Math.floor(Math.random() * n));
    this.maxAttempts = options.maxAttempts ?? 64;
    const { primary, secondary } = this.ranges;
    this.byFamily = new Map(
      secondary
        ? [
            [primary.family, primary],
            [secondary.family, secondary],
          ]
        : [[primary.family, primary]],
    );
  }

  /** The range's first usable address, kept for the `kubernetes` Service. */
  firstAddress(): string {
    return this.ranges.primary.firstAddress();
  }

  private get dualStack(): boolean {
    return this.byFamily.size === 2;
  }

  /**
   * Settles `ipFamilyPolicy` and `ipFamilies` of a new or updated Service on this cluster's
   * ranges (may mutate `service`), as the reference's initIPFamilyFields; the field errors of
   * the 422 when they cannot be.
   */
  initIPFamilyFields(service: KubeObject, old?: KubeObject): FieldError[] {
    const spec = specOf(service);
    const oldSpec = old && specOf(old);
    if (spec.type === 'ExternalName' || matchingPreferDualStack(spec, oldSpec)) return [];
    if (spec.ipFamilyPolicy === undefined) {
      if (oldSpec?.ipFamilyPolicy !== undefined) spec.ipFamilyPolicy = oldSpec.ipFamilyPolicy;
      else
        spec.ipFamilyPolicy =
          spec.clusterIP === 'None' && Object.keys(spec.selector ?? {}).length === 0
            ? 'RequireDualStack'
            : 'SingleStack';
    }
    const policyPath = FieldPath.root('spec', 'ipFamilyPolicy');
    const errors: FieldError[] = [];
    if (oldSpec !== undefined) {
      if (spec.ipFamilyPolicy === 'SingleStack') {
        // Clear intent while the addresses and families are as they were: keep the primary only.
        if (sameList(spec.clusterIPs, oldSpec.clusterIPs) && (spec.clusterIPs?.length ?? 0) > 1)
          spec.clusterIPs = spec.clusterIPs!.slice(0, 1);
        if (sameList(spec.ipFamilies, oldSpec.ipFamilies) && (spec.ipFamilies?.length ?? 0) > 1)
          spec.ipFamilies = spec.ipFamilies!.slice(0, 1);
      } else {
        const reduced = (next: string[] | undefined, before: string[] | undefined) =>
          (next?.length ?? 0) > 0 && next!.length < (before?.length ?? 0);
        if (reduced(spec.clusterIPs, oldSpec.clusterIPs))
          errors.push(
            invalid(policyPath, spec.ipFamilyPolicy, "must be 'SingleStack' to release the secondary cluster IP"),
          );
        if (reduced(spec.ipFamilies, oldSpec.ipFamilies))
          errors.push(
            invalid(policyPath, spec.ipFamilyPolicy, "must be 'SingleStack' to release the secondary IP family"),
          );
      }
    }
    if (spec.ipFamilyPolicy === 'SingleStack') {
      if (spec.clusterIPs?.length === 2)
        errors.push(
          invalid(
            policyPath,
            spec.ipFamilyPolicy,
            "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified",
          ),
        );
      if (spec.ipFamilies?.length === 2)
        errors.push(
          invalid(
            policyPath,
            spec.ipFamilyPolicy,
            "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified",
          ),
        );
    }
    // The families of the addresses asked for, where no family was given for them.
    for (const [i, ip] of (spec.clusterIPs ?? []).entries()) {
      if (ip === 'None') break;
      if (i < (spec.ipFamilies?.length ?? 0)) continue;
      const family = sloppyFamilyOf(ip);
      if (family === undefined || !this.byFamily.has(family)) {
        errors.push(
          invalid(
            FieldPath.root('spec', 'clusterIPs').index(i),
            spec.clusterIPs,
            `${family ?? 'unknown'} is not configured on this cluster`,
          ),
        );
      } else {
        spec.ipFamilies = [...(spec.ipFamilies ?? []), family];
      }
    }
    if (errors.length > 0) return errors;
    const primary = this.ranges.primary.family;
    // Headless without a selector: whatever families its endpoints will have, dual unless told otherwise.
    if (spec.clusterIP === 'None' && Object.keys(spec.selector ?? {}).length === 0) {
      if ((spec.ipFamilies?.length ?? 0) === 0) spec.ipFamilies = [primary];
      if (spec.ipFamilies!.length < 2 && spec.ipFamilyPolicy !== 'SingleStack')
        spec.ipFamilies = [spec.ipFamilies![0], otherFamily(spec.ipFamilies![0] as IPFamily)];
      return [];
    }
    if (spec.ipFamilyPolicy === 'RequireDualStack' && !this.dualStack)
      errors.push(invalid(policyPath, spec.ipFamilyPolicy, 'this cluster is not configured for dual-stack services'));
    (spec.ipFamilies ?? []).forEach((family, i) => {
      if (!this.byFamily.has(family as IPFamily))
        errors.push(invalid(FieldPath.root('spec', 'ipFamilies').index(i), family, 'not configured on this cluster'));
    });
    if (errors.length > 0) return errors;
    if ((spec.ipFamilies?.length ?? 0) === 0) spec.ipFamilies = [primary];
    if (spec.ipFamilyPolicy !== 'SingleStack' && spec.ipFamilies!.length === 1 && this.dualStack)
      spec.ipFamilies = [spec.ipFamilies![0], otherFamily(spec.ipFamilies![0] as IPFamily)];
    return [];
  }

  /**
   * The families and addresses of a new Service (may mutate `service`): each family its address,
   * the one asked for or one picked. Headless and ExternalName Services get none.
   */
  async allocate(service: KubeObject, options: DryRunOption = {}): Promise<IPChange> {
    const errors = this.initIPFamilyFields(service);
    if (errors.length > 0) return { errors, allocated: [], released: [] };
    return this.allocateFamilies(service, 0, options);
  }

  /** What an update adds and drops (may mutate `service`), as the reference's updateClusterIPs. */
  async update(service: KubeObject, old: KubeObject, options: DryRunOption = {}): Promise<IPChange> {
    const errors = this.initIPFamilyFields(service, old);
    if (errors.length > 0) return { errors, allocated: [], released: [] };
    const spec = specOf(service);
    const oldSpec = specOf(old);
    if (matchingPreferDualStack(spec, oldSpec)) return NO_CHANGE;
    if (oldSpec.type === 'ExternalName' && spec.type !== 'ExternalName')
      return this.allocateFamilies(service, 0, options);
    if (isHeadless(oldSpec)) return NO_CHANGE;
    if (spec.type === 'ExternalName')
      return {
        errors: [],
        allocated: [],
        released: (oldSpec.clusterIPs ?? []).filter((ip) => sloppyFamilyOf(ip) !== undefined),
      };
    const before = oldSpec.ipFamilies?.length ?? 0;
    const after = spec.ipFamilies?.length ?? 0;
    if (before === 1 && after === 2) return this.allocateFamilies(service, 1, options);
    if (before === 2 && after === 1 && oldSpec.clusterIPs?.[1] !== undefined)
      return { errors: [], allocated: [], released: [oldSpec.clusterIPs[1]] };
    return NO_CHANGE;
  }

  /**
   * Addresses for the Service's families from index `from` on; all or none are taken. A dry run
   * takes none and shows what the reference's dry run shows: an address asked for as it is, the
   * range's network address for one to be picked.
   */
  private async allocateFamilies(
    service: KubeObject,
    from: number,
    { dryRun = false }: DryRunOption,
  ): Promise<IPChange> {
    const spec = specOf(service);
    if (spec.type === 'ExternalName' || isHeadless(spec)) return NO_CHANGE;
    const owner = { namespace: service.metadata.namespace ?? '', name: service.metadata.name ?? '' };
    const families = (spec.ipFamilies ?? []) as IPFamily[];
    const asked = [...(spec.clusterIPs ?? [])];
    const allocated: string[] = [];
    const giveBack = async () => {
      for (const ip of allocated) await this.reservations.release(ip);
    };
    const addresses = [...asked];
    for (let i = from; i < families.length; i++) {
      const range = this.byFamily.get(families[i])!;
      const wanted = asked[i] ?? '';
      if (dryRun) {
        addresses[i] = wanted === '' ? range.addressAt(0n) : wanted;
        continue;
      }
      try {
        const refused = wanted === '' ? undefined : await this.reserve(range, wanted, owner);
        if (refused !== undefined) {
          await giveBack();
          return {
            errors: [
              invalid(
                FieldPath.root('spec', 'clusterIPs'),
                spec.clusterIPs,
                `failed to allocate IP ${wanted}: ${refused}`,
              ),
            ],
            allocated: [],
            released: [],
          };
        }
        addresses[i] = wanted === '' ? await this.pick(range, owner) : wanted;
      } catch (error) {
        await giveBack();
        throw error;
      }
      allocated.push(addresses[i]);
    }
    spec.clusterIPs = addresses.slice(0, families.length);
    spec.clusterIP = spec.clusterIPs[0];
    return { errors: [], allocated, released: [] };
  }

  /** Reserves an address asked for; the reference's reason when it cannot. */
  private async reserve(range: ServiceIPRange, ip: string, owner: ServiceRef): Promise<string | undefined> {
    const address = sloppyIPString(ip) ?? ip;
    const index = range.indexOf(address);
    if (index === undefined || index < 1n || index > range.lastUsableIndex)
      return 'the provided network does not match the current range';
    return (await this.reservations.reserve(address, owner, range.family))
      ? undefined
      : 'provided IP is already allocated';
  }

  /**
   * A free address at random. Dynamic picks skip the network address, the first address (the
   * `kubernetes` Service's) and, for IPv4, the broadcast address.
   */
  private async pick(range: ServiceIPRange, owner: ServiceRef): Promise<string> {
    const usable = range.lastUsableIndex - 1n;
    const drawn = Number(usable < BigInt(MAX_DRAWN_RANGE) ? usable : BigInt(MAX_DRAWN_RANGE));
    for (let attempt = 0; attempt < this.maxAttempts; attempt++) {
      const ip = range.addressAt(2n + BigInt(this.random(drawn)));
      if (await this.reservations.reserve(ip, owner, range.family)) return ip;
    }
    throw internalError(`failed to allocate a serviceIP: range is full (${range.cidr})`);
  }

  /**
   * Takes again, for `owner`, an address a stored Service holds whose IPAddress object is gone
   * (the repair's work): false when the address lies in none of the ranges, or another holds it.
   */
  async restore(ip: string, owner: ServiceRef): Promise<boolean> {
    const address = sloppyIPString(ip) ?? ip;
    const family = familyOf(address);
    const range = family && this.byFamily.get(family);
    if (!range || range.indexOf(address) === undefined) return false;
    return this.reservations.reserve(address, owner, range.family);
  }

  /** Frees the addresses of a deleted Service (or of one whose create failed). */
  async release(service: KubeObject): Promise<void> {
    const spec = specOf(service);
    if (spec.type === 'ExternalName') return;
    await this.releaseIPs(spec.clusterIPs ?? (spec.clusterIP ? [spec.clusterIP] : []));
  }

  async releaseIPs(ips: readonly string[]): Promise<void> {
    for (const ip of ips) {
      const address = sloppyIPString(ip);
      if (address !== undefined) await this.reservations.release(address);
    }
  }
}
