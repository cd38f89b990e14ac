/**
 * The Kubernetes CIDR library: `cidr(string)`, `isCIDR(string)`, `string(cidr)`, and the members
 * containsIP, containsCIDR (each with a string or a parsed operand), ip, prefixLength and masked.
 * A CIDR is what Go's netip.ParsePrefix accepts, not an IPv4 prefix written as IPv6; its address
 * keeps the bits past the prefix until masked. Available since the 1.30 environment.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { STRING_TRAVERSAL_FACTOR, traversalCost } from '../runtime-cost';
import { toIP } from './ip';
import { CelFunctionError, type CelLibrary } from './library';
import { NetAddr, NetPrefix, parsePrefix } from '../../net/netip';
import { goQuote } from '../../../api/go-quote';

const PARSE_ERROR = 'network address parse error during conversion from string';

/** The prefix `text` denotes, or the reference's reason for refusing it (it says the first words twice). */
export function parseCIDR(text: string): NetPrefix | string {
  const prefix = parsePrefix(text);
  if (typeof prefix === 'string') return `${PARSE_ERROR}: ${PARSE_ERROR}: ${prefix}`;
  if (prefix.addr.is4In6) return `${PARSE_ERROR}: IPv4-mapped IPv6 address ${goQuote(text)} is not allowed`;
  return prefix;
}

function toCIDR(text: string): NetPrefix {
  const prefix = parseCIDR(text);
  if (typeof prefix === 'string') throw new CelFunctionError(prefix);
  return prefix;
}

const containsCIDR = (prefix: NetPrefix, other: NetPrefix): boolean =>
  prefix.overlaps(other) && prefix.bits <= other.bits;

/** A CIDR's size in the reference's cost model: the bytes its prefix spans. */
const prefixBytes = (prefix: unknown): number => Math.ceil((prefix as NetPrefix).bits / 8);

/** Comparing two addresses up to the prefix, and parsing the operand when it is a string. */
function containsCost(prefix: unknown, operand: unknown): number {
  return (
    Math.ceil(2 * prefixBytes(prefix) * STRING_TRAVERSAL_FACTOR) +
    (typeof operand === 'string' ? traversalCost(operand) : 0)
  );
}

export const cidrLibrary: CelLibrary = {
  declare(env: Environment) {
    env
      .registerType('net.CIDR', NetPrefix)
      .registerOperator('net.CIDR == net.CIDR', (a: NetPrefix, b: NetPrefix) => a.equals(b))
      .registerFunction('cidr(string): net.CIDR', toCIDR)
      .registerFunction('isCIDR(string): bool', (text: string) => typeof parseCIDR(text) !== 'string')
      .registerFunction('string(net.CIDR): string', (prefix: NetPrefix) => prefix.toString())
      .registerFunction('net.CIDR.containsIP(string): bool', (prefix: NetPrefix, text: string) =>
        prefix.contains(toIP(text)),
      )
      .registerFunction('net.CIDR.containsIP(net.IP): bool', (prefix: NetPrefix, addr: NetAddr) =>
        prefix.contains(addr),
      )
      .registerFunction('net.CIDR.containsCIDR(string): bool', (prefix: NetPrefix, text: string) =>
        containsCIDR(prefix, toCIDR(text)),
      )
      .registerFunction('net.CIDR.containsCIDR(net.CIDR): bool', containsCIDR)
      .registerFunction('net.CIDR.ip(): net.IP', (prefix: NetPrefix) => prefix.addr)
      .registerFunction('net.CIDR.prefixLength(): int', (prefix: NetPrefix) => BigInt(prefix.bits))
      .registerFunction('net.CIDR.masked(): net.CIDR', (prefix: NetPrefix) => prefix.masked());
  },
  costs: {
    cidr: ([text]) => traversalCost(text),
    isCIDR: ([text]) => traversalCost(text),
    '.containsIP': ([prefix, operand]) => containsCost(prefix, operand),
    // Masking the base prefix and comparing the lengths add one more traversal and 1.
    '.containsCIDR': ([prefix, operand]) =>
      containsCost(prefix, operand) + Math.ceil(prefixBytes(prefix) * STRING_TRAVERSAL_FACTOR) + 1,
  },
};
