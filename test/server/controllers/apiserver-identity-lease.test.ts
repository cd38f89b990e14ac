/**
 * The API server identity lease, as kube-apiserver 1.34.4 keeps it (asked on 2026-11-29 on this
 * host, `vm`): its name, labels and spec, its renewal, and the collection of other servers'
 * expired leases, on two replicas sharing one etcd.
 */
import { hostname } from 'node:os';
import { apiserverIdentity, isExpired } from '../../../server/controllers/apiserver-identity-lease';
import { startEtcd, type EtcdServer } from '../../helpers/etcd';
import { startServer, type TestServer } from '../../helpers/server';
import { waitUntil } from '../../helpers/wait-for';

import type { KubeObject } from '../../../api/objects';

const LEASES = '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases';

interface Lease extends KubeObject {
  spec: { holderIdentity?: string; leaseDurationSeconds?: number; renewTime?: string };
}

it('names the lease as the reference does for the host', () => {
  // The reference's lease on host `vm`.
  expect(apiserverIdentity('vm')).toBe('apiserver-wlv32tlttr4jl3gtroqexyxapa');
  expect(apiserverIdentity('other-host')).toMatch(/^apiserver-[a-z2-7]{26}$/);
  expect(apiserverIdentity('other-host')).not.toBe(apiserverIdentity('vm'));
});

it('takes a lease without a renew time or duration, or renewed longer ago than its duration, as expired', () => {
  const now = new Date('2026-11-29T12:00:00Z');
  const lease = (spec: Lease['spec']): Lease => ({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {},
    spec,
  });
  expect(isExpired(lease({ renewTime: '2026-11-29T11:30:00.000000Z', leaseDurationSeconds: 3600 }), now)).toBe(false);
  expect(isExpired(lease({ renewTime: '2026-11-29T10:59:59.000000Z', leaseDurationSeconds: 3600 }), now)).toBe(true);
  expect(isExpired(lease({ leaseDurationSeconds: 3600 }), now)).toBe(true);
  expect(isExpired(lease({ renewTime: '2026-11-29T11:59:00.000000Z' }), now)).toBe(true);
});

describe('on two replicas of one etcd', () => {
  let etcd: EtcdServer;
  let first: TestServer;
  let second: TestServer | undefined;
  const name = apiserverIdentity(hostname());

  beforeAll(async () => {
    etcd = await startEtcd();
    first = await startServer({ etcdServers: etcd.endpoints, etcdPrefix: '/identity' });
  }, 60_000);

  afterAll(async () => {
    await Promise.all([first?.stop(), second?.stop()]);
    await etcd?.stop();
  });

  it('keeps its lease in kube-system with the reference labels and spec', async () => {
    await waitUntil('the lease', async () => (await first.request('GET', `${LEASES}/${name}`)).status === 200, 10_000);
    const lease = (await first.request('GET', `${LEASES}/${name}`)).json<Lease>();
    expect(lease.metadata.labels).toEqual({
      'apiserver.kubernetes.io/identity': 'kube-apiserver',
      'kubernetes.io/hostname': hostname(),
    });
    expect(lease.spec.holderIdentity).toMatch(new RegExp(`^${name}_[0-9a-f-]{36}$`));
    expect(lease.spec.leaseDurationSeconds).toBe(3600);
    expect(Date.now() - Date.parse(lease.spec.renewTime ?? '')).toBeLessThan(60_000);
    expect(lease.metadata.managedFields).toMatchObject([{ manager: 'kube-apiserver', operation: 'Update' }]);
    const verbose = await first.request('GET', '/healthz?verbose');
    expect(verbose.body).toContain('[+]poststarthook/start-kube-apiserver-identity-lease-controller ok');
    expect(verbose.body).toContain('[+]poststarthook/start-kube-apiserver-identity-lease-garbage-collector ok');
  });

  it('renews it, writing it again when it was deleted', async () => {
    expect((await first.request('DELETE', `${LEASES}/${name}`)).status).toBe(200);
    await waitUntil(
      'the lease again',
      async () => (await first.request('GET', `${LEASES}/${name}`)).status === 200,
      15_000,
    );
  }, 20_000);

  it("collects another server's expired lease at start, and leaves live and unlabelled ones", async () => {
    const put = async (leaseName: string, labels: Record<string, string>, renewTime: string) => {
      const answer = await first.request('POST', LEASES, {
        body: JSON.stringify({
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name: leaseName, labels },
          spec: { holderIdentity: `${leaseName}_x`, leaseDurationSeconds: 3600, renewTime },
        }),
        headers: { 'Content-Type': 'application/json' },
      });
      expect(answer.status).toBe(201);
    };
    const identity = { 'apiserver.kubernetes.io/identity': 'kube-apiserver' };
    const longAgo = new Date(Date.now() - 2 * 3600_000).toISOString().replace('Z', '000Z');
    await put('apiserver-gone', identity, longAgo);
    await put('apiserver-live', identity, new Date().toISOString().replace('Z', '000Z'));
    await put('not-an-apiserver', {}, longAgo);

    second = await startServer({ etcdServers: etcd.endpoints, etcdPrefix: '/identity' });
    await waitUntil(
      'the expired lease to go',
      async () => (await first.request('GET', `${LEASES}/apiserver-gone`)).status === 404,
      15_000,
    );
    expect((await first.request('GET', `${LEASES}/apiserver-live`)).status).toBe(200);
    expect((await first.request('GET', `${LEASES}/not-an-apiserver`)).status).toBe(200);
  }, 40_000);
});
