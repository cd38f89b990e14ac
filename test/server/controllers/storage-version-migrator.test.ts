/**
 * The storage version migrator, as the reference's controller manager runs it behind the
 * StorageVersionMigrator gate: a StorageVersionMigration of Secrets written before encryption at
 * rest was turned on rewrites them, so that etcd holds them encrypted; one naming a resource no
 * server serves fails as the reference's fails.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEtcdStore } from '../../../storage/etcd/etcd-store';
import { IDENTITY, writeEncryptionConfiguration } from '../../helpers/encryption-config';
import { startEtcd, type EtcdServer } from '../../helpers/etcd';
import { startInProcessServer, type InProcessServer } from '../../helpers/in-process-server';
import { waitFor } from '../../helpers/wait-for';

import type { KubeObject } from '../../../api/objects';

const KEY = Buffer.alloc(32, 0x41).toString('base64');
const MIGRATIONS = '/apis/storagemigration.k8s.io/v1alpha1/storageversionmigrations';
const JSON_TYPE = { 'content-type': 'application/json' };

/** Secrets stored as they are, or encrypted with aescbc (what was stored before still read). */
function writeSecretsConfig(encrypted: boolean): void {
  const providers = encrypted ? [{ aescbc: { keys: [{ name: 'key1', secret: KEY }] } }, IDENTITY] : [IDENTITY];
  writeEncryptionConfiguration(file, [{ resources: ['secrets'], providers }]);
}

interface Migration extends KubeObject {
  status?: {
    resourceVersion?: string;
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
  };
}

let etcd: EtcdServer;
let server: InProcessServer;
const file = join(mkdtempSync(join(tmpdir(), 'svm-')), 'encryption.yaml');

beforeAll(async () => {
  etcd = await startEtcd();
  writeSecretsConfig(false);
  server = await startInProcessServer([
    `--etcd-servers=${etcd.endpoints[0]}`,
    `--encryption-provider-config=${file}`,
    '--encryption-provider-config-automatic-reload',
    '--runtime-config=storagemigration.k8s.io/v1alpha1=true',
    '--feature-gates=StorageVersionMigrator=true',
  ]);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await etcd?.stop();
});

async function storedPrefix(name: string): Promise<string> {
  const raw = await openEtcdStore({ endpoints: etcd.endpoints });
  try {
    return (await raw.get(`/registry/secrets/default/${name}`)).kv!.value.subarray(0, 18).toString('latin1');
  } finally {
    await raw.close();
  }
}

async function migrate(
  name: string,
  resource: { group: string; version: string; resource: string },
): Promise<Migration> {
  const created = await server.request('POST', MIGRATIONS, {
    body: JSON.stringify({
      apiVersion: 'storagemigration.k8s.io/v1alpha1',
      kind: 'StorageVersionMigration',
      metadata: { name },
      spec: { resource },
    }),
    headers: JSON_TYPE,
  });
  expect(created.status).toBe(201);
  return waitFor(
    `${name} to end`,
    async () => {
      const migration = (await server.request('GET', `${MIGRATIONS}/${name}`)).json<Migration>();
      const ended = (migration.status?.conditions ?? []).some(
        (c) => ['Succeeded', 'Failed'].includes(c.type) && c.status === 'True',
      );
      return ended ? migration : undefined;
    },
    30_000,
  );
}

it('rewrites Secrets stored before encryption was configured, so etcd holds them encrypted', async () => {
  for (const name of ['one', 'two']) {
    const created = await server.request('POST', '/api/v1/namespaces/default/secrets', {
      body: JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name }, stringData: { password: name } }),
      headers: JSON_TYPE,
    });
    expect(created.status).toBe(201);
    expect(await storedPrefix(name)).toBe('k8s\u0000\n\f\n\u0002v1\u0012\u0006Secret'.slice(0, 18));
  }
  writeSecretsConfig(true);
  await waitFor(
    'the encrypting configuration',
    async () =>
      (await server.request('GET', '/metrics')).body.includes('automatic_reloads_total{status="success"')
        ? true
        : undefined,
    30_000,
  );

  const migration = await migrate('secrets-to-aescbc', { group: '', version: 'v1', resource: 'secrets' });
  expect(migration.status?.resourceVersion).toMatch(/^\d+$/);
  expect(migration.status?.conditions?.map(({ type, status, reason }) => [type, status, reason])).toEqual([
    ['Running', 'False', 'StorageVersionMigrationInProgress'],
    ['Succeeded', 'True', 'StorageVersionMigrationSucceeded'],
  ]);
  for (const name of ['one', 'two']) expect(await storedPrefix(name)).toBe('k8s:enc:aescbc:v1:');
  const read = (await server.request('GET', '/api/v1/namespaces/default/secrets/one')).json<{
    data: { password: string };
  }>();
  expect(Buffer.from(read.data.password, 'base64').toString()).toBe('one');
}, 60_000);

it('fails a migration of a resource no server serves', async () => {
  const migration = await migrate('nothing', { group: 'example.com', version: 'v1', resource: 'widgets' });
  expect(migration.status?.conditions).toMatchObject([
    {
      type: 'Failed',
      status: 'True',
      reason: 'StorageVersionMigrationFailed',
      message: 'resource does not exist in discovery',
    },
  ]);
});
