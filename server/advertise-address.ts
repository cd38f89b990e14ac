/**
 * The address the `kubernetes` Service's endpoints name when `--advertise-address` is not
 * given, found as the reference finds it (its ResolveBindAddress): the bind address, unless it
 * is unspecified or loopback; then the host's: the first global unicast address of the
 * interface a default route leaves through (IPv4 first, IPv6 first for an IPv6 bind address),
 * or of any up interface when the host has no route table to read.
 */
import { readFileSync } from 'node:fs';
import { networkInterfaces, type NetworkInterfaceInfo } from 'node:os';
import { parseAddr } from './net/netip';

const IPV4_ROUTES = '/proc/net/route';
const IPV6_ROUTES = '/proc/net/ipv6_route';

type Family = 4 | 6;

/** What the choice reads of the host, so that it can be given in a test. */
export interface HostNetwork {
  /** The contents of /proc/net/route; absent when the file is. */
  readonly ipv4Routes?: string;
  readonly ipv6Routes?: string;
  /** Up interfaces and their addresses, as `os.networkInterfaces()` lists them. */
  readonly interfaces: Readonly<Record<string, readonly NetworkInterfaceInfo[] | undefined>>;
}

export function readHostNetwork(): HostNetwork {
  const read = (path: string) => {
    try {
      return readFileSync(path, 'utf8');
    } catch {
      return undefined;
    }
  };
  return { ipv4Routes: read(IPV4_ROUTES), ipv6Routes: read(IPV6_ROUTES), interfaces: networkInterfaces() };
}

/** The advertise address for `bindAddress`; throws with the reference's message when the host has none. */
export function defaultAdvertiseAddress(bindAddress: string, host: HostNetwork): string {
  const bind = parseAddr(bindAddress);
  if (typeof bind !== 'string' && !bind.isUnspecified && !bind.isLoopback) return bind.toString();
  const families: Family[] = typeof bind !== 'string' && !bind.is4 ? [6, 4] : [4, 6];
  try {
    return chooseHostAddress(families, host);
  } catch (error) {
    throw new Error(
      `Unable to find suitable network address.error='${(error as Error).message}'. Try to set the AdvertiseAddress directly or provide a valid BindAddress to fix this.`,
    );
  }
}

function chooseHostAddress(families: readonly Family[], host: HostNetwork): string {
  if (host.ipv4Routes === undefined) return anyInterfaceAddress(families, host);
  const routes = [...defaultRoutes(host.ipv4Routes, 4), ...defaultRoutes(host.ipv6Routes ?? '', 6)];
  if (routes.length === 0) throw new Error(`no default routes found in "${IPV4_ROUTES}" or "${IPV6_ROUTES}"`);
  for (const family of families) {
    for (const route of routes) {
      if (route.family !== family) continue;
      const address =
        globalAddress(host.interfaces[route.interface] ?? [], family) ?? loopbackGlobalAddress(host, family);
      if (address !== undefined) return address;
    }
  }
  throw new Error('unable to select an IP from default routes.');
}

interface Route {
  readonly interface: string;
  readonly family: Family;
}

/** Default routes: destination all zeros (and, for IPv6, a gateway, which the loopback's lacks). */
function defaultRoutes(table: string, family: Family): Route[] {
  const routes: Route[] = [];
  for (const line of table.split('\n')) {
    const fields = line.trim().split(/\s+/);
    if (family === 4) {
      if (fields[0] === 'Iface' || fields.length < 3) continue;
      if (/^0+$/.test(fields[1])) routes.push({ interface: fields[0], family });
    } else {
      if (fields.length < 10) continue;
      if (/^0+$/.test(fields[0]) && !/^0+$/.test(fields[4])) routes.push({ interface: fields[9], family });
    }
  }
  return routes;
}

function globalAddress(addresses: readonly NetworkInterfaceInfo[], family: Family): string | undefined {
  for (const { address } of addresses) {
    const addr = parseAddr(address.replace(/%.*$/, ''));
    if (typeof addr === 'string' || (addr.is4 ? 4 : 6) !== family) continue;
    if (addr.isGlobalUnicast) return addr.toString();
  }
  return undefined;
}

/** Hosts routing over link-local addresses keep their global one on the loopback interface. */
function loopbackGlobalAddress(host: HostNetwork, family: Family): string | undefined {
  for (const addresses of Object.values(host.interfaces)) {
    if (!addresses?.some((info) => info.internal)) continue;
    const address = globalAddress(addresses, family);
    if (address !== undefined) return address;
  }
  return undefined;
}

function anyInterfaceAddress(families: readonly Family[], host: HostNetwork): string {
  const external = Object.values(host.interfaces).filter(
    (addresses) => addresses !== undefined && !addresses.some((info) => info.internal),
  );
  if (Object.keys(host.interfaces).length === 0) throw new Error('no interfaces found on host.');
  for (const family of families) {
    for (const addresses of external) {
      const address = globalAddress(addresses ?? [], family);
      if (address !== undefined) return address;
    }
  }
  throw new Error('no acceptable interface with global unicast address found on host');
}
