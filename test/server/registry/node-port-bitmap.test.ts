/**
 * The node port range flag and the shared bitmap: the reference's parser and messages, its
 * stored bytes, and compare-and-swap over one real etcd, where two replicas' allocators racing
 * for ports never both get one.
 */
import { openEtcdStore } from '../../../storage/etcd/etcd-store';
import type { RevisionedStore } from '../../../storage/store';
import {
  decodeRangeAllocation,
  encodeRangeAllocation,
  PortBitmap,
  SharedPortBitmap,
} from '../../../server/registry/allocators/port-bitmap';
import { parsePortRange, PortRange } from '../../../server/config/port-range';
import { startEtcd, type EtcdServer } from '../../helpers/etcd';

/** What a 1.34 kube-apiserver wrote at /registry/ranges/servicenodeports on a new cluster. */
const REFERENCE_EMPTY_BITMAP = Buffer.from(
  'k8s\x00\n\x15\n\x02v1\x12\x0fRangeAllocation\x12!\n\x10\n\x00\x12\x00\x1a\x00"\x00*\x002\x008\x00B\x00\x12\x0b30000-32767\x1a\x00\x1a\x00"\x00',
  'latin1',
);

describe('--service-node-port-range', () => {
  test.each([
    ['30000-32767', 30000, 2768],
    ['30000+10', 30000, 11],
    ['8080', 8080, 1],
    [' 0-10 ', 0, 11],
  ])('%p is ports %p on, %p of them', (value, base, size) => {
    const range = parsePortRange(value);
    expect([range.base, range.size]).toEqual([base, size]);
  });

  test.each([
    ['abc', 'strconv.Atoi: parsing "abc": invalid syntax'],
    ['30000-', 'strconv.Atoi: parsing "": invalid syntax'],
    ['30000-32767x', 'strconv.Atoi: parsing "32767x": invalid syntax'],
    ['100-50', 'end port cannot be less than start port: 100-50'],
    ['70000-70010', 'the port range cannot be greater than 65535: 70000-70010'],
    ['1-2+3', 'unable to parse port range: 1-2+3'],
  ])('%p is refused as the reference refuses it', (value, message) => {
    expect(() => parsePortRange(value)).toThrow(message);
  });
});

describe('the stored RangeAllocation', () => {
  test('an empty bitmap is byte for byte what the reference writes', () => {
    expect(encodeRangeAllocation({ range: '30000-32767', data: Buffer.alloc(0) })).toEqual(REFERENCE_EMPTY_BITMAP);
    expect(decodeRangeAllocation(REFERENCE_EMPTY_BITMAP)).toEqual({ range: '30000-32767', data: new Uint8Array(0) });
  });

  test("bit i is port base+i, in big.Int's big-endian bytes without leading zeros", () => {
    const bitmap = new PortBitmap(new PortRange(30000, 2768), () => 0);
    expect(bitmap.allocate(30000)).toBeUndefined();
    expect(bitmap.allocate(30009)).toBeUndefined();
    expect(bitmap.data()).toEqual(Buffer.from([0x02, 0x01]));
    const read = new PortBitmap(
      new PortRange(30000, 2768),
      () => 0,
      decodeRangeAllocation(encodeRangeAllocation({ range: '30000-32767', data: bitmap.data() })).data,
    );
    expect(read.taken()).toEqual([30000, 30009]);
  });

  test('a JSON RangeAllocation (a reference on --storage-media-type=application/json) reads too', () => {
    const json = Buffer.from(
      JSON.stringify({
        kind: 'RangeAllocation',
        apiVersion: 'v1',
        metadata: {},
        range: '30000-32767',
        data: Buffer.from([4]).toString('base64'),
      }),
    );
    expect(new PortBitmap(new PortRange(30000, 2768), () => 0, decodeRangeAllocation(json).data).taken()).toEqual([
      30002,
    ]);
  });
});

describe('PortBitmap', () => {
  test('refuses a taken port and one outside the range with the reference messages', () => {
    const bitmap = new PortBitmap(new PortRange(30000, 2768), () => 0);
    expect(bitmap.allocate(30080)).toBeUndefined();
    expect(bitmap.allocate(30080)).toBe('provided port is already allocated');
    expect(bitmap.allocate(80)).toBe(
      'provided port is not in the valid range. The range of valid ports is 30000-32767',
    );
    expect(bitmap.allocate(32768)).toBe(
      'provided port is not in the valid range. The range of valid ports is 30000-32767',
    );
  });

  test('picks above the static band first (86 ports for the default range), then inside it, then none', () => {
    const bitmap = new PortBitmap(new PortRange(30000, 100), () => 0);
    // 100 ports: a band of 16 kept for ports asked by number.
    const picked = Array.from({ length: 84 }, () => bitmap.allocateNext()!);
    expect(Math.min(...picked)).toBe(30016);
    expect(bitmap.allocateNext()).toBe(30000);
    for (let i = 1; i < 16; i++) expect(bitmap.allocateNext()).toBe(30000 + i);
    expect(bitmap.allocateNext()).toBeUndefined();
    expect(new PortBitmap(new PortRange(30000, 2768), () => 0).allocateNext()).toBe(30086);
  });
});

describe('SharedPortBitmap over one etcd', () => {
  let etcd: EtcdServer;
  const clients: RevisionedStore[] = [];

  beforeAll(async () => {
    etcd = await startEtcd();
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await etcd.stop();
  });

  async function replica(key: string, random?: (n: number) => number): Promise<SharedPortBitmap> {
    const store = await openEtcdStore({ endpoints: etcd.endpoints });
    clients.push(store);
    return new SharedPortBitmap({ store, key, range: new PortRange(30000, 2768), random });
  }

  test('hands out nothing until the bitmap is written (by the repair)', async () => {
    const shared = await replica('/registry/ranges/unwritten');
    await expect(shared.change((bitmap) => bitmap.allocateNext())).rejects.toThrow(
      'cannot allocate resources of type servicenodeportallocations at this time',
    );
  });

  test('two replicas drawing the same random ports at once still get distinct ports', async () => {
    const key = '/registry/ranges/race';
    // Both draw the same sequence: every pick collides unless the loser sees the winner's write.
    const [a, b] = await Promise.all([replica(key, () => 7), replica(key, () => 7)]);
    expect(await a.write(a.empty(), 0)).toBe(true);
    const picks = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).change((bitmap) => bitmap.allocateNext()!)),
    );
    expect(new Set(picks).size).toBe(40);
    const { bitmap } = await a.read();
    expect(bitmap.taken().sort()).toEqual([...picks].sort());
  });
});
