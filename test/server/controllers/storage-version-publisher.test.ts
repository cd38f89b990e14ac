/**
 * StorageVersions as kube-apiserver 1.34.4 publishes them with StorageVersionAPI and
 * APIServerIdentity on and internal.apiserver.k8s.io/v1alpha1 served (its list recorded in
 * storage-versions.reference.json, ids and times left out): one object per built-in resource,
 * named `<group>.<resource>` (`core.` for the core group), with this server's entry under its
 * identity lease's name, the common encoding version and its condition. A second replica on the
 * same host has the same identity, so it keeps one entry, as the reference's do; servers that
 * disagree unset the common version. Off (the default), nothing is published.
 */
import { hostname } from 'node:os';
import { apiserverIdentity } from '../../../server/controllers/apiserver-identity-lease';
import { withServerEntry } from '../../../server/controllers/storage-version-publisher';
import { startEtcd, type EtcdServer } from '../../helpers/etcd';
import { startServer, type TestServer } from '../../helpers/server';
import { waitUntil } from '../../helpers/wait-for';
import reference from './storage-versions.reference.json';

jest.setTimeout(120_000);

const STORAGE_VERSIONS = '/apis/internal.apiserver.k8s.io/v1alpha1/storageversions';
const FLAGS = ['--feature-gates=StorageVersionAPI=true', '--runtime-config=internal.apiserver.k8s.io/v1alpha1=true'];
const HOOK = 'poststarthook/built-in-resources-storage-version-updater';

interface Entry {
  apiServerID: string;
  encodingVersion: string;
  decodableVersions: string[];
  servedVersions: string[];
}
interface StorageVersion {
  metadata: { name: string };
  status: {
    storageVersions: Entry[];
    commonEncodingVersion?: string;
    conditions: Record<string, string>[];
  };
}

describe('with StorageVersionAPI on', () => {
  let etcd: EtcdServer;
  let first: TestServer;
  let second: TestServer | undefined;

  beforeAll(async () => {
    etcd = await startEtcd();
    first = await startServer({ etcdServers: etcd.endpoints, etcdPrefix: '/sv', flags: FLAGS });
    await waitUntil(
      'the storage versions',
      async () => (await first.request('GET', `/healthz/${HOOK}`)).status === 200,
      30_000,
    );
  }, 60_000);
  afterAll(async () => {
    await Promise.all([first?.stop(), second?.stop()]);
    await etcd?.stop();
  });

  const list = async (server: TestServer) =>
    (await server.request('GET', STORAGE_VERSIONS)).json<{ items: StorageVersion[] }>().items;

  it("publishes the reference's objects, field for field but the versions capstan cannot decode", async () => {
    const items = await list(first);
    expect(items.map((item) => item.metadata.name)).toEqual(Object.keys(reference));
    for (const item of items) {
      const expected = reference[item.metadata.name as keyof typeof reference];
      const [entry, ...others] = item.status.storageVersions;
      expect(others).toEqual([]);
      expect(entry.apiServerID).toBe(apiserverIdentity(hostname()));
      expect({ name: item.metadata.name, encoding: entry.encodingVersion, served: entry.servedVersions }).toEqual({
        name: item.metadata.name,
        encoding: expected.encodingVersion,
        served: expected.servedVersions,
      });
      // capstan decodes a subset of the reference's versions (it has no apps/v1beta1 kinds), in its order.
      expect(entry.decodableVersions).toEqual(
        expected.decodableVersions.filter((version) => entry.decodableVersions.includes(version)),
      );
      expect(entry.decodableVersions).toContain(entry.encodingVersion);
      expect(item.status.commonEncodingVersion).toBe(expected.commonEncodingVersion);
      const [condition] = item.status.conditions;
      expect({ ...condition, lastTransitionTime: undefined }).toEqual({
        ...expected.condition,
        lastTransitionTime: undefined,
      });
    }
  });

  it('passes writes once published, and a second replica on this host keeps the one entry', async () => {
    const created = await first.request('POST', '/api/v1/namespaces/default/configmaps', {
      body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'after' } }),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(created.status).toBe(201);
    second = await startServer({ etcdServers: etcd.endpoints, etcdPrefix: '/sv', flags: FLAGS });
    await waitUntil(
      'the second replica',
      async () => (await second!.request('GET', `/healthz/${HOOK}`)).status === 200,
      30_000,
    );
    const pods = (await list(second)).find((item) => item.metadata.name === 'core.pods');
    expect(pods?.status.storageVersions.map((entry) => entry.apiServerID)).toEqual([apiserverIdentity(hostname())]);
  });
});

it('off (the default): no hook and nothing published', async () => {
  const server = await startServer({ flags: ['--runtime-config=internal.apiserver.k8s.io/v1alpha1=true'] });
  try {
    expect((await server.request('GET', `/healthz/${HOOK}`)).status).toBe(404);
    expect((await server.request('GET', STORAGE_VERSIONS)).json<{ items: unknown[] }>().items).toEqual([]);
  } finally {
    await server.stop();
  }
});

describe('the common encoding version', () => {
  const entry = (apiServerID: string, encodingVersion: string) => ({
    apiServerID,
    encodingVersion,
    decodableVersions: ['apps/v1'],
    servedVersions: ['apps/v1'],
  });

  it('is set while every server writes one version, and unset with the transition when one differs', () => {
    const status = {};
    withServerEntry(status, entry('a', 'apps/v1'), 't1');
    withServerEntry(status, entry('b', 'apps/v1'), 't2');
    expect(status).toEqual({
      storageVersions: [entry('a', 'apps/v1'), entry('b', 'apps/v1')],
      commonEncodingVersion: 'apps/v1',
      conditions: [
        {
          type: 'AllEncodingVersionsEqual',
          status: 'True',
          lastTransitionTime: 't1',
          reason: 'CommonEncodingVersionSet',
          message: 'Common encoding version set',
        },
      ],
    });
    withServerEntry(status, entry('b', 'apps/v2'), 't3');
    expect(status).toEqual({
      storageVersions: [entry('a', 'apps/v1'), entry('b', 'apps/v2')],
      conditions: [
        {
          type: 'AllEncodingVersionsEqual',
          status: 'False',
          lastTransitionTime: 't3',
          reason: 'CommonEncodingVersionUnset',
          message: 'Common encoding version unset',
        },
      ],
    });
  });

  it('moves its transition time when the agreed version changes', () => {
    const status = {};
    withServerEntry(status, entry('a', 'apps/v1'), 't1');
    withServerEntry(status, entry('a', 'apps/v2'), 't2');
    expect(status).toMatchObject({
      commonEncodingVersion: 'apps/v2',
      conditions: [{ status: 'True', lastTransitionTime: 't2' }],
    });
  });
});
