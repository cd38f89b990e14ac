/**
 * The Kubernetes IP library: `ip(string)`, `isIP(string)`, `ip.isCanonical(string)`,
 * `string(ip)`, and the members family, isUnspecified, isLoopback, isLinkLocalMulticast,
 * isLinkLocalUnicast and isGlobalUnicast. An IP is what Go's netip parses, without a zone and not
 * an IPv4 address written as IPv6. Available since the 1.30 environment (a 1.34 server compiles
 * new expressions at 1.33).
 */
import type { Environment } from '@marcbachmann/cel-js';
import { STRING_TRAVERSAL_FACTOR, sizeOf, traversalCost } from '../runtime-cost';
import { CelFunctionError, type CelLibrary } from './library';
import { NetAddr, parseAddr } from '../../net/netip';
import { goQuote } from '../../../api/go-quote';

/** The address `text` denotes, or the reference's reason for refusing it. */
export function parseIP(text: string): NetAddr | string {
  const addr = parseAddr(text);
  if (typeof addr === 'string') return `IP Address ${goQuote(text)} parse error during conversion from string: ${addr}`;
  if (addr.zone !== '') return `IP address ${goQuote(text)} with zone value is not allowed`;
  if (addr.is4In6) return `IPv4-mapped IPv6 address ${goQuote(text)} is not allowed`;
  return addr;
}

export function toIP(text: string): NetAddr {
  const addr = parseIP(text);
  if (typeof addr === 'string') throw new CelFunctionError(addr);
  return addr;
}

/** Holder for `ip.isCanonical`: the engine resolves `ip.` as a constant of this type. */
class IPNamespace {}

export const ipLibrary: CelLibrary = {
  declare(env: Environment) {
    env
      .registerType('net.IP', NetAddr)
      .registerOperator('net.IP == net.IP', (a: NetAddr, b: NetAddr) => a.equals(b))
      .registerFunction('ip(string): net.IP', toIP)
      .registerFunction('isIP(string): bool', (text: string) => typeof parseIP(text) !== 'string')
      .registerFunction('string(net.IP): string', (addr: NetAddr) => addr.toString())
      .registerType('kubernetes.IPNamespace', IPNamespace)
      .registerConstant('ip', 'kubernetes.IPNamespace', new IPNamespace())
      .registerFunction(
        'kubernetes.IPNamespace.isCanonical(string): bool',
        (_ns: IPNamespace, text: string) => toIP(text).toString() === text,
      )
      .registerFunction('net.IP.family(): int', (addr: NetAddr) => (addr.is4 ? 4n : 6n))
      .registerFunction('net.IP.isUnspecified(): bool', (addr: NetAddr) => addr.isUnspecified)
      .registerFunction('net.IP.isLoopback(): bool', (addr: NetAddr) => addr.isLoopback)
      .registerFunction('net.IP.isLinkLocalMulticast(): bool', (addr: NetAddr) => addr.isLinkLocalMulticast)
      .registerFunction('net.IP.isLinkLocalUnicast(): bool', (addr: NetAddr) => addr.isLinkLocalUnicast)
      .registerFunction('net.IP.isGlobalUnicast(): bool', (addr: NetAddr) => addr.isGlobalUnicast);
  },
  // The reference's prices: parsing traverses the string; isCanonical parses and compares.
  costs: {
    ip: ([text]) => traversalCost(text),
    isIP: ([text]) => traversalCost(text),
    '.isCanonical': ([, text]) => Math.ceil(2 * sizeOf(text) * STRING_TRAVERSAL_FACTOR),
  },
};
