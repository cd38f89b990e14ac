/**
 * Coordinated leader election (the CoordinatedLeaderElection gate, LeaseCandidates served at
 * coordination.k8s.io/v1beta1), as kube-apiserver 1.34.4 runs it. Asked on 2026-11-29 with
 * `--feature-gates=CoordinatedLeaderElection=true --runtime-config=coordination.k8s.io/v1beta1=true`
 * and this file's scenario (the test acting as the candidates, renewing each when pinged):
 *
 * - two candidates renewed a minute ago, emulation 1.34.0 and 1.33.0 (both binary 1.34.0), are
 *   pinged and, once they renew, the Lease is created for the 1.33.0 one: spec
 *   `{holderIdentity, leaseDurationSeconds: 5, renewTime, strategy: OldestEmulationVersion}`;
 * - while its holder renews it, a candidate at emulation and binary 1.33.0 arriving makes the
 *   Lease name it `preferredHolder`, the holder kept;
 * - once the holder stops renewing and the Lease expires, the candidates are pinged again and
 *   the Lease handed to the new one, `preferredHolder` gone;
 * - the controller holds `kube-system/leader-election-controller` (15 s) and the post-start hook
 *   `start-kube-apiserver-coordinated-leader-election-controller` follows
 *   `start-system-namespaces-controller`.
 */
import { electedLeaseSpec } from '../../../server/controllers/coordinated-leader-election';
import {
  isCandidateExpired,
  oldestEmulationVersionLeader,
  strategyOf,
} from '../../../server/controllers/lease-candidate-selection';
import { startEtcd, type EtcdServer } from '../../helpers/etcd';
import { startInProcessServer } from '../../helpers/in-process-server';
import { startServer, type HttpResult, type TestServer } from '../../helpers/server';
import { retryUntil, waitFor } from '../../helpers/wait-for';

import type { KubeObject } from '../../../api/objects';

jest.setTimeout(120_000);

const GATE_ON = ['--feature-gates=CoordinatedLeaderElection=true', '--runtime-config=coordination.k8s.io/v1beta1=true'];
const CANDIDATES = '/apis/coordination.k8s.io/v1beta1/namespaces/default/leasecandidates';
const LEASES = '/apis/coordination.k8s.io/v1/namespaces/default/leases';
const CONTROLLER_LEASE = '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/leader-election-controller';
const JSON_BODY = { 'Content-Type': 'application/json' };
const HOOK = 'poststarthook/start-kube-apiserver-coordinated-leader-election-controller';

const microTime = (ms: number) => new Date(ms).toISOString().replace('Z', '000Z');

function candidate(
  name: string,
  spec: { emulationVersion?: string; binaryVersion: string; strategy?: string },
  creationTimestamp = '2026-11-29T12:00:00Z',
): KubeObject {
  return {
    apiVersion: 'coordination.k8s.io/v1beta1',
    kind: 'LeaseCandidate',
    metadata: { name, namespace: 'default', creationTimestamp },
    spec: { leaseName: 'demo', strategy: 'OldestEmulationVersion', ...spec },
  };
}

describe('the election rules', () => {
  it('elects the oldest emulation version, then the oldest binary, then the earliest created', () => {
    const names = (candidates: KubeObject[]) => oldestEmulationVersionLeader(candidates)?.metadata.name;
    expect(
      names([
        candidate('a', { emulationVersion: '1.34.0', binaryVersion: '1.34.0' }),
        candidate('b', { emulationVersion: '1.33.0', binaryVersion: '1.34.0' }),
        candidate('c', { emulationVersion: '1.33.0', binaryVersion: '1.33.0' }),
      ]),
    ).toBe('c');
    expect(
      names([
        candidate('late', { emulationVersion: '1.33.0', binaryVersion: '1.33.0' }, '2026-11-29T12:00:05Z'),
        candidate('early', { emulationVersion: '1.33.0', binaryVersion: '1.33.0' }, '2026-11-29T12:00:01Z'),
      ]),
    ).toBe('early');
    // blang/semver's tolerant parser: `v1.32` is 1.32.0; an unparsable version is never elected.
    expect(
      names([
        candidate('tolerant', { emulationVersion: 'v1.32', binaryVersion: '1.34.0' }),
        candidate('strict', { emulationVersion: '1.33.0', binaryVersion: '1.34.0' }),
        candidate('garbage', { emulationVersion: 'one', binaryVersion: '1.34.0' }),
      ]),
    ).toBe('tolerant');
    expect(names([candidate('garbage', { emulationVersion: 'one', binaryVersion: '1.34.0' })])).toBeUndefined();
  });

  it('takes the strategy of the newest binaries, and refuses two at that version that differ', () => {
    expect(
      strategyOf([
        candidate('old', { binaryVersion: '1.33.0', strategy: 'example.com/mine' }),
        candidate('new', { emulationVersion: '1.34.0', binaryVersion: '1.34.0' }),
      ]),
    ).toEqual({ strategy: 'OldestEmulationVersion' });
    expect(
      strategyOf([
        candidate('one', { emulationVersion: '1.34.0', binaryVersion: '1.34.0' }),
        candidate('two', { binaryVersion: '1.34.0', strategy: 'example.com/mine' }),
      ]),
    ).toEqual({
      error:
        'candidates "one", "two" at same binary version but received differing strategies OldestEmulationVersion, example.com/mine',
    });
    expect(strategyOf([])).toEqual({ error: 'no candidates' });
  });

  it('takes a candidate not renewed for 30 minutes, or never, as expired', () => {
    const now = Date.parse('2026-11-29T12:30:00Z') * 1000;
    const renewed = (renewTime?: string) => ({
      ...candidate('c', { emulationVersion: '1.34.0', binaryVersion: '1.34.0' }),
      spec: { leaseName: 'demo', renewTime },
    });
    expect(isCandidateExpired(renewed('2026-11-29T12:00:00.000000Z'), now)).toBe(false);
    expect(isCandidateExpired(renewed('2026-11-29T11:59:59.999999Z'), now)).toBe(true);
    expect(isCandidateExpired(renewed(undefined), now)).toBe(true);
  });

  it('takes an expired Lease over, names the electee preferred holder of a live one, and leaves the right one', () => {
    const now = new Date('2026-11-29T12:00:10Z');
    const lease = (spec: Record<string, unknown>): KubeObject => ({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'demo', namespace: 'default' },
      spec,
    });
    const strategy = 'OldestEmulationVersion';
    const held = {
      holderIdentity: 'old',
      leaseDurationSeconds: 5,
      strategy,
      acquireTime: '2026-11-29T11:00:00.000000Z',
    };
    expect(
      electedLeaseSpec(lease({ ...held, renewTime: '2026-11-29T12:00:09.000000Z' }), { strategy, holder: 'new', now }),
    ).toEqual({ ...held, renewTime: '2026-11-29T12:00:09.000000Z', preferredHolder: 'new' });
    expect(
      electedLeaseSpec(lease({ ...held, renewTime: '2026-11-29T12:00:01.000000Z', preferredHolder: 'new' }), {
        strategy,
        holder: 'new',
        now,
      }),
    ).toEqual({ holderIdentity: 'new', leaseDurationSeconds: 5, strategy, renewTime: '2026-11-29T12:00:10.000000Z' });
    expect(
      electedLeaseSpec(lease({ ...held, renewTime: '2026-11-29T12:00:09.000000Z' }), { strategy, holder: 'old', now }),
    ).toBeUndefined();
    // A Lease without holder (made under another strategy) gets one.
    expect(electedLeaseSpec(lease({ strategy: 'example.com/mine' }), { strategy, holder: 'new', now })).toEqual({
      holderIdentity: 'new',
      leaseDurationSeconds: 5,
      strategy,
      renewTime: '2026-11-29T12:00:10.000000Z',
    });
  });
});

type Request = TestServer['request'];

async function createCandidate(
  request: Request,
  name: string,
  versions: { emulationVersion: string; binaryVersion: string },
  renewedAgoMs: number,
): Promise<void> {
  const answer = await request('POST', CANDIDATES, {
    body: JSON.stringify({
      apiVersion: 'coordination.k8s.io/v1beta1',
      kind: 'LeaseCandidate',
      metadata: { name },
      spec: {
        leaseName: 'demo',
        strategy: 'OldestEmulationVersion',
        ...versions,
        renewTime: microTime(Date.now() - renewedAgoMs),
      },
    }),
    headers: JSON_BODY,
  });
  expect(answer.status).toBe(201);
}

/** Acts as the candidates' components do: renews a candidate once it is pinged, until stopped. */
function answerPings(request: Request): { stop(): Promise<void> } {
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const listed = (await request('GET', CANDIDATES)).json<{ items: KubeObject[] }>();
      for (const item of listed.items) {
        const spec = item.spec as { pingTime?: string; renewTime?: string };
        if (spec.pingTime === undefined || Date.parse(spec.renewTime ?? '') >= Date.parse(spec.pingTime)) continue;
        spec.renewTime = microTime(Date.now());
        await request('PUT', `${CANDIDATES}/${item.metadata.name}`, { body: JSON.stringify(item), headers: JSON_BODY });
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

/** Acts as the Lease's holder: renews it every second, until stopped. */
function holdLease(request: Request): { stop(): Promise<void> } {
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const lease = (await request('GET', `${LEASES}/demo`)).json<KubeObject>();
      (lease.spec as { renewTime: string }).renewTime = microTime(Date.now());
      const answer = await request('PUT', `${LEASES}/demo`, { body: JSON.stringify(lease), headers: JSON_BODY });
      // The controller wrote the Lease (its preferredHolder) between the read and the write: read
      // it again, as client-go's elector does on a conflict.
      if (answer.status === 409) continue;
      expect(answer.status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

const leaseSpec = async (request: Request) => {
  const answer: HttpResult = await request('GET', `${LEASES}/demo`);
  return answer.status === 200 ? (answer.json<KubeObject>().spec as Record<string, unknown>) : undefined;
};

describe('with the gate on, on etcd', () => {
  let etcd: EtcdServer;
  let first: TestServer;
  let second: TestServer | undefined;

  beforeAll(async () => {
    etcd = await startEtcd();
    first = await startServer({ etcdServers: etcd.endpoints, etcdPrefix: '/cle', flags: GATE_ON });
  }, 60_000);

  afterAll(async () => {
    await Promise.all([first?.stop(), second?.stop()]);
    await etcd?.stop();
  });

  it('holds its own leader lease and reports its post-start hook where the reference does', async () => {
    const verbose = (await first.request('GET', '/healthz?verbose')).body;
    expect(verbose).toContain(`[+]${HOOK} ok\n[+]poststarthook/start-cluster-authentication-info-controller ok`);
    expect(verbose).toContain(`[+]poststarthook/start-system-namespaces-controller ok\n[+]${HOOK} ok`);
    const lease = await waitFor('the controller lease', async () => {
      const answer = await first.request('GET', CONTROLLER_LEASE);
      return answer.status === 200 ? answer.json<KubeObject>() : undefined;
    });
    expect(lease.spec).toMatchObject({ leaseDurationSeconds: 15, leaseTransitions: 0 });
    expect((lease.spec as { holderIdentity: string }).holderIdentity).toMatch(/_[0-9a-f-]{36}$/);
  });

  it('elects as the reference: pings, creates the Lease, prefers a better candidate, takes over on expiry', async () => {
    const pings = answerPings(first.request);
    try {
      await createCandidate(first.request, 'newer', { emulationVersion: '1.34.0', binaryVersion: '1.34.0' }, 60_000);
      await createCandidate(first.request, 'older', { emulationVersion: '1.33.0', binaryVersion: '1.34.0' }, 60_000);
      const created = await waitFor('the Lease', () => leaseSpec(first.request), 20_000);
      expect(created).toEqual({
        holderIdentity: 'older',
        leaseDurationSeconds: 5,
        renewTime: expect.stringMatching(/^\d{4}-.*\.\d{6}Z$/),
        strategy: 'OldestEmulationVersion',
      });
      // Both were pinged, and answered before the vote.
      const listed = (await first.request('GET', CANDIDATES)).json<{ items: KubeObject[] }>().items;
      for (const item of listed) expect((item.spec as { pingTime?: string }).pingTime).toBeDefined();

      const holder = holdLease(first.request);
      try {
        await createCandidate(first.request, 'oldest', { emulationVersion: '1.33.0', binaryVersion: '1.33.0' }, 0);
        const preferred = await retryUntil(
          () => leaseSpec(first.request),
          (spec) => spec?.preferredHolder !== undefined,
          20_000,
        );
        expect(preferred).toMatchObject({ holderIdentity: 'older', preferredHolder: 'oldest' });
      } finally {
        await holder.stop();
      }
      const taken = await retryUntil(
        () => leaseSpec(first.request),
        (spec) => spec?.holderIdentity === 'oldest',
        30_000,
      );
      expect(taken).toEqual({
        holderIdentity: 'oldest',
        leaseDurationSeconds: 5,
        renewTime: expect.any(String),
        strategy: 'OldestEmulationVersion',
      });
    } finally {
      await pings.stop();
    }
  });

  it('collects a candidate not renewed for 30 minutes once a replica starts leading, and keeps live ones', async () => {
    await createCandidate(first.request, 'stale', { emulationVersion: '1.34.0', binaryVersion: '1.34.0' }, 31 * 60_000);
    await first.stop();
    // Its own timers, as --coordinated-leadership-* set them.
    second = await startServer({
      etcdServers: etcd.endpoints,
      etcdPrefix: '/cle',
      flags: [...GATE_ON, '--coordinated-leadership-lease-duration=20s'],
    });
    const stale = await retryUntil(
      async () => (await second!.request('GET', `${CANDIDATES}/stale`)).status,
      (status) => status === 404,
      30_000,
    );
    expect(stale).toBe(404);
    expect((await second.request('GET', `${CANDIDATES}/oldest`)).status).toBe(200);
    const lease = (await second.request('GET', CONTROLLER_LEASE)).json<KubeObject>();
    expect(lease.spec).toMatchObject({ leaseDurationSeconds: 20 });
  });
});

it('runs nothing with the gate off, LeaseCandidates served or not', async () => {
  const server = await startInProcessServer(['--runtime-config=coordination.k8s.io/v1beta1=true']);
  try {
    await createCandidate(server.request, 'alone', { emulationVersion: '1.34.0', binaryVersion: '1.34.0' }, 0);
    expect((await server.request('GET', '/healthz?verbose')).body).not.toContain(HOOK);
    // The controllers' own election runs within a second of start; the Lease would follow at once.
    await waitFor('the controllers lease', async () => {
      const answer = await server.request('GET', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases');
      const names = answer.json<{ items: KubeObject[] }>().items.map((lease) => lease.metadata.name);
      return names.includes('capstan-controllers') ? names : undefined;
    });
    expect((await server.request('GET', CONTROLLER_LEASE)).status).toBe(404);
    expect((await server.request('GET', `${LEASES}/demo`)).status).toBe(404);
  } finally {
    await server.stop();
  }
});
