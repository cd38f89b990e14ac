/**
 * `--service-cluster-ip-range` read as a 1.34 kube-apiserver reads it; the messages are those
 * the reference binary printed for the same values (v1.34.4).
 */
import { parseServiceIPRanges } from '../../../server/net/service-ip-ranges';

const GA = { limitSize: false };
/** `--feature-gates=DisableAllocatorDualWrite=false`: the old allocator's size limit applies. */
const DUAL_WRITE = { limitSize: true };

describe('parseServiceIPRanges', () => {
  test.each([
    ['', '10.0.0.0/24', '10.0.0.1', undefined],
    ['10.96.0.0/12', '10.96.0.0/12', '10.96.0.1', undefined],
    ['10.96.0.5/12', '10.96.0.0/12', '10.96.0.1', undefined],
    ['010.096.0.0/12', '10.96.0.0/12', '10.96.0.1', undefined],
    ['10.0.0.0/8', '10.0.0.0/8', '10.0.0.1', undefined],
    ['fd00::/64', 'fd00::/64', 'fd00::1', undefined],
    ['10.96.0.0/12,fd00:10:96::/112', '10.96.0.0/12', '10.96.0.1', 'fd00:10:96::/112'],
    ['fd00::/108,10.96.0.0/12', 'fd00::/108', 'fd00::1', '10.96.0.0/12'],
  ])('%j: primary %s, kubernetes Service at %s, secondary %s', (value, primary, first, secondary) => {
    const ranges = parseServiceIPRanges(value, GA);
    expect(ranges.primary.cidr).toBe(primary);
    expect(ranges.primary.firstAddress()).toBe(first);
    expect(ranges.secondary?.cidr).toBe(secondary);
  });

  test.each([
    ['x', GA, 'service-cluster-ip-range[0] is not a valid cidr'],
    [
      '10.96.0.0/30',
      GA,
      'error determining service IP ranges for primary service cidr: the service cluster IP range must be at least 8 IP addresses',
    ],
    [
      '10.96.0.0/12,10.97.0.0/16',
      GA,
      '--service-cluster-ip-range[0] and --service-cluster-ip-range[1] must be of different IP family',
    ],
    ['10.96.0.0/12,fd00::/108,10.1.0.0/16', GA, '--service-cluster-ip-range must not contain more than two entries'],
    ['10.96.0.0/12,bad', GA, 'service-cluster-ip-range[1] is not an ip net'],
    ['10.96.0.0/12,', GA, 'service-cluster-ip-range[1] is not an ip net'],
    [
      '10.0.0.0/8',
      DUAL_WRITE,
      'specified --service-cluster-ip-range is too large; for 32-bit addresses, the mask must be >= 12',
    ],
    [
      '10.0.0.0/8,fd00::/64',
      DUAL_WRITE,
      '[specified --service-cluster-ip-range is too large; for 32-bit addresses, the mask must be >= 12, specified --service-cluster-ip-range[1] is too large; for 128-bit addresses, the mask must be >= 108]',
    ],
    [
      '10.0.0.0/8,10.1.0.0/8',
      DUAL_WRITE,
      '[specified --service-cluster-ip-range is too large; for 32-bit addresses, the mask must be >= 12, --service-cluster-ip-range[0] and --service-cluster-ip-range[1] must be of different IP family, specified --service-cluster-ip-range[1] is too large; for 32-bit addresses, the mask must be >= 12]',
    ],
  ])('%j is refused: %s', (value, checks, message) => {
    expect(() => parseServiceIPRanges(value, checks)).toThrow(message);
  });

  test('addresses of a range by index, and indices of addresses', () => {
    const { primary } = parseServiceIPRanges('fd00:10:96::/112', GA);
    expect(primary.addressAt(0x1234n)).toBe('fd00:10:96::1234');
    expect(primary.indexOf('fd00:10:96::ffff')).toBe(0xffffn);
    expect(primary.lastUsableIndex).toBe(0xffffn);
    expect(primary.indexOf('fd00:10:97::1')).toBeUndefined();
    expect(primary.indexOf('10.96.0.1')).toBeUndefined();
    const v4 = parseServiceIPRanges('10.96.0.0/12', GA).primary;
    expect(v4.lastUsableIndex).toBe(2n ** 20n - 2n);
    expect(v4.addressAt(v4.lastUsableIndex)).toBe('10.111.255.254');
  });
});
