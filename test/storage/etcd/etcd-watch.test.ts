/**
 * The etcd watch's reconnection on its own: a stream that has worked for longer than the
 * give-up time still reconnects when its member dies (the give-up time counts from the
 * failure, not from when the stream was made). Real etcd members.
 */
import { EtcdClient } from '../../../storage/etcd/client/client';
import { StoreUnavailableError } from '../../../storage/errors';
import { EtcdWatch } from '../../../storage/etcd/etcd-watch';
import { openEtcdStore } from '../../../storage/etcd/etcd-store';
import type { RevisionedStore, StoreEvent } from '../../../storage/store';
import { startEtcdCluster, type EtcdCluster } from '../../helpers/etcd';
import { retryUntil } from '../../helpers/wait-for';

const GIVE_UP_AFTER_MS = 1_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Creates a key while the cluster may be electing a leader; the revision it was created at. */
async function createAcrossElection(store: RevisionedStore, key: string): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    try {
      const result = await store.create(key, Buffer.from('x'));
      // Not created: an earlier attempt that timed out did create it.
      return result.succeeded ? result.revision : result.kv!.createRevision;
    } catch (error) {
      if (!(error instanceof StoreUnavailableError) || attempt >= 20) throw error;
      await sleep(100);
    }
  }
}

describe('an etcd watch whose stream has worked for a long time', () => {
  let cluster: EtcdCluster;
  let store: RevisionedStore;
  let client: EtcdClient;
  beforeAll(async () => {
    cluster = await startEtcdCluster(3);
    store = await openEtcdStore({ endpoints: cluster.endpoints, requestTimeoutMs: 1_000 });
    client = new EtcdClient({ endpoints: cluster.endpoints });
  });
  afterAll(async () => {
    client?.close();
    await store?.close();
    await cluster?.stop();
  });

  it('reconnects to another member when its member dies, without a gap', async () => {
    const first = await store.create('/aged/start', Buffer.from('x'));
    const events: StoreEvent[] = [];
    const errors: Error[] = [];
    const watch = new EtcdWatch({
      client,
      request: {
        prefix: '/aged/',
        fromRevision: first.revision,
        onEvents: (batch) => events.push(...batch),
        onError: (error) => errors.push(error),
      },
      onCompactedRevision: () => undefined,
      giveUpAfterMs: GIVE_UP_AFTER_MS,
    });
    const written = [first.revision];
    try {
      // Whichever member the stream is on dies at some point, after the stream worked past the give-up time.
      for (const member of cluster.members) {
        // The stream's age is the point: past the give-up time, a lost member must not end it.
        await sleep(GIVE_UP_AFTER_MS + 300);
        await member.kill();
        written.push(await createAcrossElection(store, `/aged/${member.name}`));
        await member.restart();
      }
      await retryUntil(
        () => events.length,
        (count) => count >= written.length || errors.length > 0,
        5_000,
      );
    } finally {
      watch.close();
    }
    expect(errors).toEqual([]);
    expect(events.map((event) => event.kv.modRevision)).toEqual(written);
  }, 30_000);
});
