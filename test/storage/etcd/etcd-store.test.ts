/**
 * What only the etcd backend has to show: watches that survive losing their etcd member
 * without gaps or repeats, unavailability errors, and learning compaction done by another
 * client. Real etcd processes throughout.
 */
import { CompactedError, StoreUnavailableError } from '../../../storage/errors';
import { openEtcdStore } from '../../../storage/etcd/etcd-store';
import type { RevisionedStore, WriteResult } from '../../../storage/store';
import { EtcdCluster, EtcdServer, startEtcd, startEtcdCluster } from '../../helpers/etcd';
import { recordWatch, settle } from '../backend-harness';

const value = (s: string): Buffer => Buffer.from(s, 'utf8');

/** Creates a key, retrying while the cluster elects a leader; bounded in attempts. */
async function createWithRetry(store: RevisionedStore, key: string): Promise<WriteResult> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await store.create(key, value(key));
    } catch (error) {
      if (!(error instanceof StoreUnavailableError) || attempt >= 50) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

describe('etcd store on a three-member cluster', () => {
  let cluster: EtcdCluster;
  let store: RevisionedStore;

  beforeAll(async () => {
    cluster = await startEtcdCluster(3);
    store = await openEtcdStore({ endpoints: cluster.endpoints, requestTimeoutMs: 2_000 });
  });

  afterAll(async () => {
    await store?.close();
    await cluster?.stop();
  });

  test('a watch keeps every event exactly once while each member in turn is killed and restarted', async () => {
    const first = await createWithRetry(store, '/survive/start');
    const recorded = recordWatch(store, { prefix: '/survive/', fromRevision: first.revision });
    const written = [first.revision];
    for (const member of cluster.members) {
      written.push((await createWithRetry(store, `/survive/before-${member.name}`)).revision);
      await member.kill();
      for (let i = 0; i < 3; i++)
        written.push((await createWithRetry(store, `/survive/${member.name}-down-${i}`)).revision);
      await member.restart();
    }
    await recorded.until(() => recorded.events.length >= written.length, 20_000);
    // No event may come twice after the restarts: a short time in which a duplicate would show.
    await settle();
    recorded.watch.close();
    expect(recorded.errors).toEqual([]);
    expect(recorded.events.map((event) => event.kv.modRevision)).toEqual(written);
  });

  test('reads ride out the election that follows killing the leader', async () => {
    await createWithRetry(store, '/election/a');
    const leader = await leaderIndex(cluster);
    await cluster.members[leader].kill();
    const failures: string[] = [];
    // Reads in flight when the new leader takes over fail with "leader changed" unless retried.
    const readers = Array.from({ length: 4 }, async () => {
      for (let i = 0; i < 15; i++) {
        await store.get('/election/a').catch((error: Error) => failures.push(error.message));
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    });
    await Promise.all(readers);
    await cluster.members[leader].restart();
    expect(failures).toEqual([]);
  });
});

/** The index of the member that leads now, from the members' own status. */
async function leaderIndex(cluster: EtcdCluster): Promise<number> {
  const statuses = await Promise.all(
    cluster.members.map(async (member) => {
      const response = await fetch(`${member.endpoint}/v3/maintenance/status`, { method: 'POST', body: '{}' });
      return (await response.json()) as { header: { member_id: string }; leader: string };
    }),
  );
  return Math.max(
    0,
    statuses.findIndex((status) => status.header.member_id === status.leader),
  );
}

describe('etcd store on one member', () => {
  let etcd: EtcdServer;

  beforeAll(async () => {
    etcd = await startEtcd();
  });

  afterAll(async () => {
    await etcd?.stop();
  });

  test('opening against an endpoint where no etcd listens fails with StoreUnavailableError', async () => {
    await expect(openEtcdStore({ endpoints: ['http://127.0.0.1:1'], requestTimeoutMs: 1_000 })).rejects.toBeInstanceOf(
      StoreUnavailableError,
    );
  });

  test('compaction by another client shows in compactedRevision, reads and watches', async () => {
    const compactor = await openEtcdStore({ endpoints: etcd.endpoints });
    const observer = await openEtcdStore({ endpoints: etcd.endpoints });
    try {
      const created = await compactor.create('/compacted/a', value('1'));
      const updated = await compactor.update('/compacted/a', value('2'), created.revision);
      await compactor.compact(updated.revision);

      expect(await observer.compactedRevision()).toBe(updated.revision);
      await expect(observer.get('/compacted/a', { revision: created.revision })).rejects.toEqual(
        new CompactedError(created.revision, updated.revision),
      );
      const recorded = recordWatch(observer, { prefix: '/compacted/', fromRevision: created.revision });
      await recorded.until(() => recorded.errors.length === 1);
      expect(recorded.errors[0]).toEqual(new CompactedError(created.revision, updated.revision));
    } finally {
      await compactor.close();
      await observer.close();
    }
  });

  test('calls fail with StoreUnavailableError while etcd is down, and a watch resumes without a gap once it is back', async () => {
    const store = await openEtcdStore({ endpoints: etcd.endpoints, requestTimeoutMs: 1_000 });
    try {
      const first = await store.create('/outage/a', value('a'));
      const recorded = recordWatch(store, { prefix: '/outage/', fromRevision: first.revision });
      await recorded.until(() => recorded.events.length === 1);

      await etcd.kill();
      await expect(store.currentRevision()).rejects.toBeInstanceOf(StoreUnavailableError);
      await etcd.restart();

      const second = await createWithRetry(store, '/outage/b');
      await recorded.until(() => recorded.events.length === 2, 10_000);
      recorded.watch.close();
      expect(recorded.errors).toEqual([]);
      expect(recorded.events.map((event) => event.kv.modRevision)).toEqual([first.revision, second.revision]);
    } finally {
      await store.close();
    }
  });
});

describe('etcd store answers larger than gRPC default limits', () => {
  let etcd: EtcdServer;
  let store: RevisionedStore;

  beforeAll(async () => {
    etcd = await startEtcd();
    store = await openEtcdStore({ endpoints: etcd.endpoints });
  });

  afterAll(async () => {
    await store?.close();
    await etcd?.stop();
  });

  test('one range of 6 MiB of values comes back whole (gRPC caps answers at 4 MiB by default)', async () => {
    const body = 'x'.repeat(2_500);
    await Promise.all(
      Array.from({ length: 2_500 }, (_, i) => store.create(`/big/${String(i).padStart(5, '0')}`, value(body))),
    );
    const all = await store.range({ prefix: '/big/' });
    expect(all.kvs).toHaveLength(2_500);
    expect(all.remaining).toBe(0);
  });
});
