/**
 * IP address and CIDR rules with the reference's texts. New fields (its IsValidIP and
 * IsValidCIDR): the value parses, has no leading zeros, is no IPv4-mapped IPv6 address, and is
 * written in canonical form (IPv6 compressed and lowercase, a CIDR's host bits clear). Fields
 * older than those rules take what Go's sloppy parsers take, and the strict rules but the
 * canonical form only with StrictIPCIDRValidation.
 */
import { goQuote } from '../../api/go-quote';
import { isIP, isIPv4 } from 'node:net';

const INVALID_IP = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';
const INVALID_CIDR = 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)';

/** Dotted decimal with leading zeros: what Go's sloppy parser still takes as IPv4. */
const SLOPPY_IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

function isSloppyIPv4(value: string): boolean {
  const match = SLOPPY_IPV4.exec(value);
  return match !== null && match.slice(1).every((octet) => Number(octet) <= 255);
}

/** Whether Go's sloppy parser takes the address: Node's isIP also takes an IPv6 zone (`fe80::1%eth0`), which Go refuses. */
function parsesSloppily(value: string): boolean {
  if (value.includes('%')) return false;
  return isIP(value) !== 0 || isSloppyIPv4(value);
}

/** `::ffff:a.b.c.d`, however written: ten zero bytes, then two 0xff. */
function isIPv4Mapped(value: string): boolean {
  if (isIP(value) !== 6) return false;
  const bytes = bytesOf(value);
  return bytes.slice(0, 10).every((byte) => byte === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
}

function canonicalIPv6(value: string): string {
  return new URL(`http://[${value}]`).hostname.slice(1, -1);
}

/** The address's bytes (4 or 16); the value must already be a valid address. */
function bytesOf(value: string): number[] {
  if (isIPv4(value)) return value.split('.').map(Number);
  const groups = canonicalIPv6(value).split(':');
  const empty = groups.indexOf('');
  const expanded =
    empty === -1
      ? groups
      : [
          ...groups.slice(0, empty),
          ...Array(8 - groups.filter((g) => g !== '').length).fill('0'),
          ...groups.slice(empty).filter((g) => g !== ''),
        ];
  return expanded.flatMap((group) => {
    const word = parseInt(group, 16);
    return [word >> 8, word & 0xff];
  });
}

function addressOf(bytes: readonly number[]): string {
  if (bytes.length === 4) return bytes.join('.');
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i] << 8) | bytes[i + 1]).toString(16));
  return canonicalIPv6(groups.join(':'));
}

/**
 * Fields that predate the strict rules take any address Go's sloppy parser takes (leading zeros
 * too); with `strict` (StrictIPCIDRValidation) leading zeros and IPv4-mapped IPv6 addresses are
 * refused, as the reference's IsValidIPForLegacyField does.
 */
export function isValidIPForLegacyField(value: string, strict: boolean): string[] {
  if (!parsesSloppily(value)) return [INVALID_IP];
  if (!strict) return [];
  if (isIP(value) === 0) return ['must not have leading 0s'];
  return isIPv4Mapped(value) ? ['must not be an IPv4-mapped IPv6 address'] : [];
}

/** New fields: the strict rules, and the canonical form. */
export function isValidIP(value: string): string[] {
  const problems = isValidIPForLegacyField(value, true);
  if (problems.length > 0) return problems;
  const canonical = isIPv4(value) ? value : canonicalIPv6(value);
  return value === canonical ? [] : [`must be in canonical form (${goQuote(canonical)})`];
}

/** A CIDR as Go's sloppy parser reads it (IPv4 parts and the length may have leading zeros), or undefined. */
function sloppyCIDR(value: string): { address: string; length: string } | undefined {
  const [address, length, ...rest] = value.split('/');
  const bits = isIP(address) === 6 ? 128 : 32;
  const parses =
    rest.length === 0 &&
    length !== undefined &&
    /^\d+$/.test(length) &&
    Number(length) <= bits &&
    parsesSloppily(address);
  return parses ? { address, length } : undefined;
}

/** A prefix length's mask over `size` bytes (4 or 16). */
function maskOf(length: number, size: number): number[] {
  return Array.from({ length: size }, (_, i) => (0xff << (8 - Math.max(0, Math.min(8, length - i * 8)))) & 0xff);
}

/** The address's bytes with those beyond the prefix length cleared. */
function maskedBytes(address: string, length: number): number[] {
  const bytes = bytesOf(address);
  const mask = maskOf(length, bytes.length);
  return bytes.map((byte, i) => byte & mask[i]);
}

/**
 * Fields that predate the strict rules take any CIDR Go's sloppy parser takes; with `strict`
 * (StrictIPCIDRValidation) leading zeros, IPv4-mapped addresses and bits set beyond the prefix
 * length are refused, as the reference's IsValidCIDRForLegacyField does.
 */
export function isValidCIDRForLegacyField(value: string, strict: boolean): string[] {
  const cidr = sloppyCIDR(value);
  if (cidr === undefined) return [INVALID_CIDR];
  if (!strict) return [];
  const { address, length } = cidr;
  if (isIP(address) === 0 || (length.length > 1 && length.startsWith('0')))
    return ['must not have leading 0s in IP or prefix length'];
  if (isIPv4Mapped(address)) return ['must not have an IPv4-mapped IPv6 address'];
  const bytes = bytesOf(address);
  if (maskedBytes(address, Number(length)).some((byte, i) => byte !== bytes[i]))
    return ['must not have bits set beyond the prefix length'];
  return [];
}

/** New fields: the strict rules, and the canonical form. */
export function isValidCIDR(value: string): string[] {
  const problems = isValidCIDRForLegacyField(value, true);
  if (problems.length > 0) return problems;
  const { address, length } = sloppyCIDR(value)!;
  const canonical = `${addressOf(maskedBytes(address, Number(length)))}/${Number(length)}`;
  return value === canonical ? [] : [`must be in canonical form (${goQuote(canonical)})`];
}

/** Go's IP.To4: an IPv4-mapped address's last four bytes, any other as it is. */
function to4(bytes: readonly number[]): readonly number[] {
  const mapped =
    bytes.length === 16 && bytes.slice(0, 10).every((byte) => byte === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  return mapped ? bytes.slice(12) : bytes;
}

/**
 * A CIDR as Go's ParseCIDRSloppy gives it: the network's bytes (16 for any IPv6 text, an IPv4-mapped
 * one included), its mask and its prefix length; undefined when it does not parse.
 */
function sloppyNetwork(value: string): { bytes: number[]; mask: number[]; length: number } | undefined {
  const cidr = sloppyCIDR(value);
  if (cidr === undefined) return undefined;
  const length = Number(cidr.length);
  const raw = isIP(cidr.address) === 6 ? bytesOf(cidr.address) : cidr.address.split('.').map(Number);
  const mask = maskOf(length, raw.length);
  return { bytes: raw.map((byte, i) => byte & mask[i]), mask, length };
}

/**
 * Whether `inner` is a strictly smaller part of `outer`, as the reference checks a NetworkPolicy's
 * ipBlock `except` (Go's IPNet.Contains of the inner network's address, which compares IPv4-mapped
 * addresses as IPv4, and a longer prefix). Both must parse as sloppy CIDRs.
 */
export function isStrictSubnet(outer: string, inner: string): boolean {
  const network = sloppyNetwork(outer);
  const part = sloppyNetwork(inner);
  if (network === undefined || part === undefined) return false;
  const base = to4(network.bytes);
  const mask = base.length === 4 && network.mask.length === 16 ? network.mask.slice(12) : network.mask;
  const address = to4(part.bytes);
  const contains =
    address.length === base.length && base.every((byte, i) => (byte & mask[i]) === (address[i] & mask[i]));
  return contains && network.length < part.length;
}

/** An address's bytes as Go's sloppy parser reads it (IPv4 parts in decimal, leading zeros or not), an IPv4-mapped one as IPv4. */
function sloppyBytes(value: string): number[] {
  if (isIP(value) === 0) return value.split('.').map(Number);
  const bytes = bytesOf(value);
  return isIPv4Mapped(value) ? bytes.slice(12) : bytes;
}

/** The family Go gives an address its sloppy parser takes (an IPv4-mapped one is IPv4); 0 for none. */
export function sloppyIPFamily(value: string): 0 | 4 | 6 {
  if (isValidIPForLegacyField(value, false).length > 0) return 0;
  return sloppyBytes(value).length === 4 ? 4 : 6;
}

/**
 * An address as Go prints what its sloppy parser read (`net.IP.String()`): leading zeros gone,
 * an IPv4-mapped address as IPv4, IPv6 in RFC 5952 form; undefined when it does not parse. The
 * reference names an address's IPAddress object so and suggests it in its warnings.
 */
export function sloppyIPString(value: string): string | undefined {
  if (isValidIPForLegacyField(value, false).length > 0) return undefined;
  return addressOf(sloppyBytes(value));
}

/**
 * What the reference's ValidateEndpointIP refuses in an address the sloppy parser takes
 * (Endpoints, EndpointSlices and, for historical reasons, a Service's externalIPs): the
 * unspecified, loopback, link-local and link-local multicast ranges. `allowLoopback` keeps
 * loopback addresses (see endpoints.ts).
 */
export function endpointIPProblems(value: string, { allowLoopback = false } = {}): string[] {
  if (isValidIPForLegacyField(value, false).length > 0) return ['must be a valid IP address'];
  const bytes = sloppyBytes(value);
  const v4 = bytes.length === 4;
  const problems: string[] = [];
  if (bytes.every((byte) => byte === 0)) problems.push(`may not be unspecified (${value})`);
  const loopback = v4 ? bytes[0] === 127 : bytes.slice(0, 15).every((byte) => byte === 0) && bytes[15] === 1;
  if (loopback && !allowLoopback) problems.push('may not be in the loopback range (127.0.0.0/8, ::1/128)');
  const linkLocal = v4 ? bytes[0] === 169 && bytes[1] === 254 : bytes[0] === 0xfe && (bytes[1] & 0xc0) === 0x80;
  if (linkLocal) problems.push('may not be in the link-local range (169.254.0.0/16, fe80::/10)');
  const linkLocalMulticast = v4
    ? bytes[0] === 224 && bytes[1] === 0 && bytes[2] === 0
    : bytes[0] === 0xff && (bytes[1] & 0x0f) === 0x02;
  if (linkLocalMulticast) problems.push('may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)');
  return problems;
}

/** 4 or 6 for a valid address or CIDR, 0 otherwise. */
export function ipFamilyOf(value: string): 0 | 4 | 6 {
  return isIP(value.split('/')[0]) as 0 | 4 | 6;
}

/**
 * The reference's GetWarningsForIP for a legacy field's value already found valid: an address
 * that the strict rules would refuse (leading zeros, IPv4-mapped) and IPv6 not in RFC 5952 form.
 */
export function warningsForIP(path: string, value: string): string[] {
  const printed = sloppyIPString(value);
  if (printed === undefined) return [];
  if (isIP(value) === 0 || isIPv4Mapped(value))
    return [
      `${path}: non-standard IP address ${goQuote(value)} will be considered invalid in a future Kubernetes release: use ${goQuote(printed)}`,
    ];
  if (isIP(value) === 6 && printed !== value)
    return [`${path}: IPv6 address ${goQuote(value)} should be in RFC 5952 canonical format (${goQuote(printed)})`];
  return [];
}

/** A network as Go's IPNet.String() prints it: an IPv4-mapped one as IPv4 with its IPv4 prefix length. */
function networkString(network: { bytes: number[]; length: number }): string {
  const bytes = to4(network.bytes);
  const length = bytes.length < network.bytes.length ? network.length - 96 : network.length;
  return `${addressOf([...bytes])}/${length}`;
}

/**
 * The reference's GetWarningsForCIDR for a legacy field's value already found valid: bits set
 * beyond the prefix (which of two meanings was meant?), a form the strict rules would refuse,
 * and, when neither, IPv6 not in RFC 5952 form.
 */
export function warningsForCIDR(path: string, value: string): string[] {
  const cidr = sloppyCIDR(value);
  const network = sloppyNetwork(value);
  if (cidr === undefined || network === undefined) return [];
  const warnings: string[] = [];
  const address = sloppyBytes(cidr.address);
  if (to4(network.bytes).some((byte, i) => byte !== address[i])) {
    const single = `${addressOf(address)}/${network.bytes.length * 8}`;
    warnings.push(
      `${path}: CIDR value ${goQuote(value)} is ambiguous in this context (should be ${goQuote(networkString(network))} or ${goQuote(single)}?)`,
    );
  }
  const strictParse = isIP(cidr.address) !== 0 && !(cidr.length.length > 1 && cidr.length.startsWith('0'));
  if (!strictParse || isIPv4Mapped(cidr.address))
    warnings.push(
      `${path}: non-standard CIDR value ${goQuote(value)} will be considered invalid in a future Kubernetes release: use ${goQuote(networkString(network))}`,
    );
  const printed = `${sloppyIPString(cidr.address)}/${cidr.length}`;
  if (warnings.length === 0 && isIP(cidr.address) === 6 && printed !== value)
    warnings.push(
      `${path}: IPv6 CIDR value ${goQuote(value)} should be in RFC 5952 canonical format (${goQuote(printed)})`,
    );
  return warnings;
}
