/**
 * The default `--advertise-address`, chosen from the host's routes and interfaces as the
 * reference's ResolveBindAddress does, given here as the files and interfaces it reads.
 */
import type { NetworkInterfaceInfo } from 'node:os';
import { defaultAdvertiseAddress, type HostNetwork } from '../../server/advertise-address';

function info(address: string, internal = false): NetworkInterfaceInfo {
  const family = address.includes(':') ? 'IPv6' : 'IPv4';
  return family === 'IPv4'
    ? { address, family, internal, netmask: '255.255.255.0', mac: '00:00:00:00:00:00', cidr: `${address}/24` }
    : {
        address,
        family,
        internal,
        netmask: 'ffff:ffff:ffff:ffff::',
        mac: '00:00:00:00:00:00',
        cidr: `${address}/64`,
        scopeid: 0,
      };
}

// This machine's tables: a default route through eth0 for each family.
const IPV4_ROUTES = `Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT
eth0\t00000000\t010200C0\t0003\t0\t0\t0\t00000000\t0\t0\t0
eth0\t000200C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0
`;
const IPV6_ROUTES = `fd000000000000000000000000000000 40 00000000000000000000000000000000 00 00000000000000000000000000000000 00000100 00000001 00000000 00000001     eth0
00000000000000000000000000000000 00 00000000000000000000000000000000 00 fd000000000000000000000000000001 00000400 00000002 00000000 00000003     eth0
00000000000000000000000000000000 00 00000000000000000000000000000000 00 00000000000000000000000000000000 ffffffff 00000001 00000000 00200200       lo
`;
const HOST: HostNetwork = {
  ipv4Routes: IPV4_ROUTES,
  ipv6Routes: IPV6_ROUTES,
  interfaces: {
    lo: [info('127.0.0.1', true), info('::1', true)],
    eth1: [info('10.1.1.1')],
    eth0: [info('fe80::fc:ff:fe00:1'), info('fd00::2'), info('192.0.2.2')],
  },
};

describe('defaultAdvertiseAddress', () => {
  test.each([
    ['10.1.1.1', '10.1.1.1'],
    ['127.0.0.1', '192.0.2.2'],
    ['0.0.0.0', '192.0.2.2'],
    // An IPv6 bind address prefers the IPv6 default route's interface.
    ['::', 'fd00::2'],
    ['::1', 'fd00::2'],
  ])('bind address %s advertises %s', (bind, advertised) => {
    expect(defaultAdvertiseAddress(bind, HOST)).toBe(advertised);
  });

  test('without a route table: the first global address of an external interface', () => {
    expect(defaultAdvertiseAddress('0.0.0.0', { interfaces: HOST.interfaces })).toBe('10.1.1.1');
  });

  test("a host with no default route: the reference's message", () => {
    expect(() =>
      defaultAdvertiseAddress('127.0.0.1', { ...HOST, ipv4Routes: 'Iface\tDestination\n', ipv6Routes: '' }),
    ).toThrow(
      'Unable to find suitable network address.error=\'no default routes found in "/proc/net/route" or "/proc/net/ipv6_route"\'. Try to set the AdvertiseAddress directly or provide a valid BindAddress to fix this.',
    );
  });

  test('a default route through an interface with link-local addresses only, and a global address on the loopback', () => {
    const host: HostNetwork = {
      ipv4Routes: IPV4_ROUTES,
      interfaces: { lo: [info('127.0.0.1', true), info('203.0.113.7', true)], eth0: [info('169.254.0.2')] },
    };
    expect(defaultAdvertiseAddress('0.0.0.0', host)).toBe('203.0.113.7');
    expect(() =>
      defaultAdvertiseAddress('0.0.0.0', { ipv4Routes: IPV4_ROUTES, interfaces: { eth0: [info('169.254.0.2')] } }),
    ).toThrow(/unable to select an IP from default routes\./);
  });
});
