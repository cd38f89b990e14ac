/**
 * The Service cluster IP ranges of `--service-cluster-ip-range`: one CIDR, or two of different
 * families (dual-stack), read and checked as a 1.34 kube-apiserver does (its
 * `getServiceIPAndRanges` and `validateClusterIPFlags`), with its error texts. The first
 * usable address of the primary range is the `kubernetes` Service's.
 *
 * Addresses are counted as bigints from the range's network address, so IPv6 ranges of any size
 * work the same as IPv4 ones.
 */
import { NetAddr, NetPrefix, parseAddr, parsePrefix } from './netip';
import { goAggregate } from '../../api/go-json-syntax';

export type IPFamily = 'IPv4' | 'IPv6';

/** The reference's default when the flag is not given (deprecated there, kept for compatibility). */
export const DEFAULT_SERVICE_CLUSTER_IP_RANGE = '10.0.0.0/24';
/** Below this many addresses the reference refuses a primary range. */
const MIN_RANGE_SIZE = 8n;
/** Host bits a range may have when the allocator's size limit applies. */
const MAX_CIDR_BITS = 20;

export class ServiceIPRange {
  private readonly base: bigint;
  /** Addresses in the range, network and broadcast addresses included. */
  readonly size: bigint;

  constructor(private readonly prefix: NetPrefix) {
    this.base = toBigInt(prefix.addr);
    this.size = 1n << BigInt(this.totalBits - prefix.bits);
  }

  get family(): IPFamily {
    return this.prefix.addr.is4 ? 'IPv4' : 'IPv6';
  }

  private get totalBits(): number {
    return this.prefix.addr.bytes.length * 8;
  }

  /** The masked CIDR, as the reference prints it (10.96.0.0/12). */
  get cidr(): string {
    return this.prefix.toString();
  }

  /** The address `index` places after the network address. */
  addressAt(index: bigint): string {
    return fromBigInt(this.base + index, this.prefix.addr.bytes.length).toString();
  }

  /** Where `ip` sits in the range, or undefined when it is no address of this range's family or lies outside. */
  indexOf(ip: string): bigint | undefined {
    const addr = parseAddr(ip);
    if (typeof addr === 'string' || addr.zone !== '' || addr.bytes.length !== this.prefix.addr.bytes.length)
      return undefined;
    if (!this.prefix.contains(addr)) return undefined;
    return toBigInt(addr) - this.base;
  }

  /**
   * The indices the allocator may hand out: never the network address, nor IPv4's broadcast
   * address (IPv6 has none; its last address is usable), as the reference's allocator.
   */
  get lastUsableIndex(): bigint {
    return this.family === 'IPv4' ? this.size - 2n : this.size - 1n;
  }

  /** The first usable address: the `kubernetes` Service's (10.96.0.1 for 10.96.0.0/12). */
  firstAddress(): string {
    return this.addressAt(1n);
  }
}

export interface ServiceIPRanges {
  readonly primary: ServiceIPRange;
  /** The other family's range of a dual-stack cluster. */
  readonly secondary?: ServiceIPRange;
}

export interface ServiceIPRangeChecks {
  /**
   * The reference limits ranges to 2^20 addresses only while it still writes its old bitmap
   * allocator, i.e. unless MultiCIDRServiceAllocator and DisableAllocatorDualWrite are both on
   * (their 1.34 defaults).
   */
  readonly limitSize: boolean;
}

/** The ranges of the flag's value ('' for the default); throws with the reference's message when it refuses them. */
export function parseServiceIPRanges(value: string, checks: ServiceIPRangeChecks): ServiceIPRanges {
  const entries = value === '' ? [DEFAULT_SERVICE_CLUSTER_IP_RANGE] : value.split(',');
  const primaryPrefix = parseCIDRSloppy(entries[0]);
  if (primaryPrefix === undefined) throw new Error('service-cluster-ip-range[0] is not a valid cidr');
  const primary = new ServiceIPRange(primaryPrefix);
  if (primary.size < MIN_RANGE_SIZE) {
    throw new Error(
      `error determining service IP ranges for primary service cidr: the service cluster IP range must be at least ${MIN_RANGE_SIZE} IP addresses`,
    );
  }
  let secondary: ServiceIPRange | undefined;
  if (entries.length > 1) {
    const secondaryPrefix = parseCIDRSloppy(entries[1]);
    if (secondaryPrefix === undefined) throw new Error('service-cluster-ip-range[1] is not an ip net');
    secondary = new ServiceIPRange(secondaryPrefix);
  }
  // Found together, reported together, as the reference's validation aggregates them.
  const errors: string[] = [];
  if (entries.length > 2) errors.push('--service-cluster-ip-range must not contain more than two entries');
  if (checks.limitSize) errors.push(...tooLarge(primary, '--service-cluster-ip-range'));
  if (secondary !== undefined) {
    if (secondary.family === primary.family)
      errors.push('--service-cluster-ip-range[0] and --service-cluster-ip-range[1] must be of different IP family');
    if (checks.limitSize) errors.push(...tooLarge(secondary, '--service-cluster-ip-range[1]'));
  }
  if (errors.length > 0) throw new Error(goAggregate(errors));
  return { primary, secondary };
}

function tooLarge(range: ServiceIPRange, flag: string): string[] {
  const bits = range.family === 'IPv4' ? 32 : 128;
  if (range.size <= 1n << BigInt(MAX_CIDR_BITS)) return [];
  return [`specified ${flag} is too large; for ${bits}-bit addresses, the mask must be >= ${bits - MAX_CIDR_BITS}`];
}

/**
 * The masked prefix of a CIDR, as Go's sloppy parser reads it: IPv4 parts may have leading
 * zeros (read as decimal), which netip refuses.
 */
function parseCIDRSloppy(text: string): NetPrefix | undefined {
  const slash = text.indexOf('/');
  const address = slash < 0 ? text : text.slice(0, slash);
  const unpadded = /^[\d.]+$/.test(address)
    ? address
        .split('.')
        .map((part) => part.replace(/^0+(?=\d)/, ''))
        .join('.')
    : address;
  const prefix = parsePrefix(unpadded + text.slice(address.length));
  return typeof prefix === 'string' ? undefined : prefix.masked();
}

function toBigInt(addr: NetAddr): bigint {
  return addr.bytes.reduce((n, byte) => (n << 8n) | BigInt(byte), 0n);
}

function fromBigInt(n: bigint, length: number): NetAddr {
  const bytes = new Uint8Array(length);
  for (let i = length - 1; i >= 0; i--) {
    bytes[i] = Number(n & 0xffn);
    n >>= 8n;
  }
  return new NetAddr(bytes);
}

/** The family of an address, or undefined when it is none. */
export function familyOf(ip: string): IPFamily | undefined {
  const addr = parseAddr(ip);
  if (typeof addr === 'string') return undefined;
  return addr.is4 ? 'IPv4' : 'IPv6';
}
