/**
 * How writes with a TTL share etcd leases (storage/etcd/lease-manager.ts): the reuse rule on a
 * clock the test moves, then the leases real etcd records for keys written through the store.
 */
import { EtcdClient } from '../../../storage/etcd/client/client';
import { openEtcdStore } from '../../../storage/etcd/etcd-store';
import { LeaseManager } from '../../../storage/etcd/lease-manager';
import { startEtcd } from '../../helpers/etcd';

/** A stand-in for the client's LeaseGrant: records each grant's TTL, answers new IDs. */
function grantingClient() {
  const grants: number[] = [];
  const client = {
    leaseGrant: async (ttlSeconds: number) => {
      grants.push(ttlSeconds);
      return { header: { revision: 1 }, id: BigInt(grants.length), ttl: ttlSeconds, error: '' };
    },
  } as unknown as EtcdClient;
  return { client, grants };
}

describe('the lease manager', () => {
  test('reuses a lease for the reuse window, each lease granted for TTL + window', async () => {
    const { client, grants } = grantingClient();
    let now = 1_000_000;
    const leases = new LeaseManager(client, 60, () => now);
    const first = await leases.leaseFor(3600);
    expect(grants).toEqual([3660]);
    now += 59_000;
    expect(await leases.leaseFor(3600)).toBe(first);
    // Past the window a write would expire more than 60 s after its TTL on the old lease.
    now += 2_000;
    const second = await leases.leaseFor(3600);
    expect(second).not.toBe(first);
    expect(grants).toEqual([3660, 3660]);
  });

  test('the window is at most 5% of the TTL: short TTLs get a lease each', async () => {
    const { client, grants } = grantingClient();
    // A clock that moves a millisecond per reading: at the very instant of a grant, a write
    // would end exactly at the window's end, which (as in the reference) is not within it.
    let now = 1_000_000;
    const leases = new LeaseManager(client, 60, () => ++now);
    // 5% of 100 s is 5 s: granted for 105 s.
    await leases.leaseFor(100);
    await leases.leaseFor(100);
    expect(grants).toEqual([105]);
    await leases.leaseFor(10);
    await leases.leaseFor(10);
    expect(grants).toEqual([105, 10, 10]);
  });

  test('a lease serves at most 1,000 keys; concurrent writes share one grant', async () => {
    const { client, grants } = grantingClient();
    let now = 1_000_000;
    const leases = new LeaseManager(client, 60, () => ++now);
    const ids = await Promise.all(Array.from({ length: 1_001 }, () => leases.leaseFor(3600)));
    expect(grants).toEqual([3660, 3660]);
    expect(ids.filter((id) => id === ids[0])).toHaveLength(1_000);
  });

  test('--lease-reuse-duration-seconds=0 turns reuse off', async () => {
    const { client, grants } = grantingClient();
    const leases = new LeaseManager(client, 0, () => 1_000_000);
    await leases.leaseFor(3600);
    await leases.leaseFor(3600);
    expect(grants).toEqual([3600, 3600]);
  });
});

test('keys written with the same TTL through the etcd store share one etcd lease', async () => {
  const etcd = await startEtcd();
  const store = await openEtcdStore({ endpoints: etcd.endpoints, leaseReuseDurationSeconds: 60 });
  const client = new EtcdClient({ endpoints: etcd.endpoints });
  const leaseOf = async (key: string) => (await client.range({ key: Buffer.from(key) })).kvs[0].lease;
  try {
    await store.create('/events/a', Buffer.from('a'), { ttlSeconds: 3600 });
    const b = await store.create('/events/b', Buffer.from('b'), { ttlSeconds: 3600 });
    await store.create('/events/short', Buffer.from('s'), { ttlSeconds: 10 });
    const shared = await leaseOf('/events/a');
    expect(shared).not.toBe(0n);
    expect(await leaseOf('/events/b')).toBe(shared);
    expect(await leaseOf('/events/short')).not.toBe(shared);
    // A write without a TTL takes the key off its lease.
    await store.update('/events/b', Buffer.from('b2'), b.revision);
    expect(await leaseOf('/events/b')).toBe(0n);
  } finally {
    client.close();
    await store.close();
    await etcd.stop();
  }
}, 30_000);
