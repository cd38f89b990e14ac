/**
 * The renew deadline of leader election, as client-go's: a leader whose renewals fail keeps
 * leading while it retries within the deadline, and gives leadership up once the deadline has
 * passed without a renewal. Without a deadline the first failed renewal ends it. The store is a
 * real SQLite file; its trouble is a read failing while the test says so.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ResourceStore } from '../../../storage/objects/resource-store';
import type { ObjectStorage } from '../../../storage/objects/types';
import { openSqliteStore } from '../../../storage/sqlite/sqlite-store';
import type { RevisionedStore } from '../../../storage/store';
import { startLeaderElection, type LeaderElection } from '../../../server/controllers/leader-election';
import { waitUntil } from '../../helpers/wait-for';

let dir: string;
let store: RevisionedStore;
let failing = false;
let leases: ObjectStorage;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'capstan-election-'));
  store = await openSqliteStore({ path: join(dir, 'store.db') });
  const real = new ResourceStore({
    store,
    keyPrefix: '/registry/leases',
    qualifiedResource: { group: 'coordination.k8s.io', resource: 'leases' },
    namespaced: true,
  });
  leases = new Proxy(real, {
    get(target, property, receiver) {
      if (property === 'get' && failing) return () => Promise.reject(new Error('the store is unreachable'));
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
});

afterAll(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

async function leadThenFail(name: string, renewDeadlineMs?: number) {
  let lost: AbortSignal | undefined;
  const election: LeaderElection = startLeaderElection({
    leases,
    namespace: 'kube-system',
    name,
    identity: `${name}-me`,
    leaseDurationSeconds: 15,
    retryPeriodMs: 100,
    renewDeadlineMs,
    onStartedLeading: (signal) => (lost = signal),
  });
  await waitUntil('leadership', () => election.isLeader(), 5_000, 20);
  failing = true;
  const failedAt = Date.now();
  return { election, failedAt, lost: () => lost?.aborted === true };
}

afterEach(() => {
  failing = false;
});

it('keeps leading through failed renewals within the renew deadline, and stops after it', async () => {
  const { election, failedAt, lost } = await leadThenFail('with-deadline', 1_000);
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(election.isLeader()).toBe(true);
  await waitUntil('leadership to end', () => !election.isLeader(), 5_000, 20);
  expect(Date.now() - failedAt).toBeGreaterThanOrEqual(900);
  expect(lost()).toBe(true);
  failing = false;
  await election.stop();
});

it('gives leadership up at the first failed renewal without a deadline', async () => {
  const { election, failedAt } = await leadThenFail('without-deadline');
  await waitUntil('leadership to end', () => !election.isLeader(), 5_000, 20);
  expect(Date.now() - failedAt).toBeLessThan(900);
  failing = false;
  await election.stop();
});
