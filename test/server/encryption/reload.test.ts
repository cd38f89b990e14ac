/**
 * `--encryption-provider-config-automatic-reload` and what it makes possible, on SQLite and on
 * etcd:
 * - key rotation as the reference documents it: add the new key first and reload, rewrite
 *   every Secret (a no-op update), then drop the old key: every Secret still reads;
 * - a file the server refuses is counted as a failed reload and the old configuration stays;
 * - a Secret whose key is gone is answered as the reference answers (a 500 naming the corrupt
 *   object, a list failing with every unreadable key), and the unsafe force-delete removes it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEtcdStore } from '../../../storage/etcd/etcd-store';
import { openSqliteStore } from '../../../storage/sqlite/sqlite-store';
import type { RevisionedStore } from '../../../storage/store';
import {
  encryptionConfiguration,
  IDENTITY,
  type EncryptionKey,
  type EncryptionProvider,
} from '../../helpers/encryption-config';
import { startEtcd, type EtcdServer } from '../../helpers/etcd';
import { startInProcessServer, type InProcessServer } from '../../helpers/in-process-server';
import { waitFor } from '../../helpers/wait-for';

const OLD_KEY = Buffer.alloc(32, 0x41).toString('base64');
const NEW_KEY = Buffer.alloc(32, 0x42).toString('base64');
const OTHER_KEY = Buffer.alloc(32, 0x43).toString('base64');

/** Secrets written with the first of `keys` by one AES provider, read with every key and identity. */
function config(keys: readonly EncryptionKey[], provider: 'aescbc' | 'aesgcm' = 'aescbc'): string {
  const aes: EncryptionProvider = provider === 'aescbc' ? { aescbc: { keys } } : { aesgcm: { keys } };
  return encryptionConfiguration([{ resources: ['secrets'], providers: [aes, IDENTITY] }]);
}

interface Backend {
  readonly name: string;
  start(): Promise<{
    flags: string[];
    raw: (server: InProcessServer) => Promise<RevisionedStore>;
    stop(): Promise<void>;
  }>;
}

const BACKENDS: readonly Backend[] = [
  {
    name: 'SQLite',
    start: async () => ({
      flags: [],
      raw: (server) => openSqliteStore({ path: join(server.dataDir, 'capstan.db') }),
      stop: async () => undefined,
    }),
  },
  {
    name: 'etcd',
    start: async () => {
      const etcd: EtcdServer = await startEtcd();
      return {
        flags: [`--etcd-servers=${etcd.endpoints[0]}`],
        raw: () => openEtcdStore({ endpoints: etcd.endpoints }),
        stop: () => etcd.stop(),
      };
    },
  },
];

describe.each(BACKENDS)('automatic reload on $name', (backend) => {
  const dir = mkdtempSync(join(tmpdir(), 'encryption-reload-'));
  const file = join(dir, 'encryption.yaml');
  let started: Awaited<ReturnType<Backend['start']>>;
  let server: InProcessServer;

  const secretsPath = '/api/v1/namespaces/default/secrets';
  const json = { 'content-type': 'application/json' };
  const storedPrefix = async (name: string) => {
    const raw = await started.raw(server);
    try {
      return (await raw.get(`/registry/secrets/default/${name}`)).kv!.value.subarray(0, 32).toString('latin1');
    } finally {
      await raw.close();
    }
  };
  const reloads = async (status: 'success' | 'failure') => {
    const metrics = (await server.request('GET', '/metrics')).body;
    const match = new RegExp(
      `apiserver_encryption_config_controller_automatic_reloads_total\\{status="${status}",apiserver_id_hash="sha256:[0-9a-f]{64}"\\} (\\d+)`,
    ).exec(metrics);
    return match === null ? 0 : Number(match[1]);
  };
  const reloadTo = async (text: string, status: 'success' | 'failure' = 'success') => {
    const before = await reloads(status);
    writeFileSync(file, text);
    await waitFor(`a ${status}ful reload`, async () => ((await reloads(status)) > before ? true : undefined), 30_000);
  };

  beforeAll(async () => {
    started = await backend.start();
    writeFileSync(file, config([{ name: 'old', secret: OLD_KEY }]));
    server = await startInProcessServer([
      `--encryption-provider-config=${file}`,
      '--encryption-provider-config-automatic-reload',
      '--feature-gates=AllowUnsafeMalformedObjectDeletion=true',
      // Lists read the store itself, where an undecryptable value is met (a cache holds what it decrypted before).
      '--watch-cache-sizes=secrets#0',
      ...started.flags,
    ]);
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await started?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('rotates a key: add it first, rewrite every Secret, then drop the old one', async () => {
    for (const name of ['a', 'b', 'c']) {
      expect(
        (
          await server.request('POST', secretsPath, {
            body: JSON.stringify({ metadata: { name }, stringData: { value: name } }),
            headers: json,
          })
        ).status,
      ).toBe(201);
      expect(await storedPrefix(name)).toMatch(/^k8s:enc:aescbc:v1:old:/);
    }
    expect((await server.request('GET', '/readyz?verbose')).body).toContain('[+]kms-providers ok');

    await reloadTo(
      config([
        { name: 'new', secret: NEW_KEY },
        { name: 'old', secret: OLD_KEY },
      ]),
    );
    // kubectl get secrets -o json | kubectl replace -f -: each unchanged Secret is written again, under the new key.
    const list = (await server.request('GET', secretsPath)).json<{ items: Array<{ metadata: { name: string } }> }>();
    for (const item of list.items) {
      expect(
        (
          await server.request('PUT', `${secretsPath}/${item.metadata.name}`, {
            body: JSON.stringify(item),
            headers: json,
          })
        ).status,
      ).toBe(200);
      expect(await storedPrefix(item.metadata.name)).toMatch(/^k8s:enc:aescbc:v1:new:/);
    }
    // Written again, but unchanged: a second no-op update writes nothing.
    const again = (await server.request('GET', `${secretsPath}/a`)).json<{ metadata: { resourceVersion: string } }>();
    const replaced = (
      await server.request('PUT', `${secretsPath}/a`, { body: JSON.stringify(again), headers: json })
    ).json<{ metadata: { resourceVersion: string } }>();
    expect(replaced.metadata.resourceVersion).toBe(again.metadata.resourceVersion);

    await reloadTo(config([{ name: 'new', secret: NEW_KEY }]));
    for (const name of ['a', 'b', 'c']) {
      const read = await server.request('GET', `${secretsPath}/${name}`);
      expect(read.json<{ data: Record<string, string> }>().data.value).toBe(Buffer.from(name).toString('base64'));
    }
    expect((await server.request('GET', '/metrics')).body).toMatch(
      /apiserver_encryption_config_controller_last_config_info\{apiserver_id_hash="sha256:[0-9a-f]{64}",hash="sha256:[0-9a-f]{64}"\} 1/,
    );
  }, 90_000);

  it('keeps the configuration in effect when the file is refused', async () => {
    await reloadTo(encryptionConfiguration([]), 'failure');
    expect(
      (
        await server.request('POST', secretsPath, {
          body: JSON.stringify({ metadata: { name: 'after-bad-file' } }),
          headers: json,
        })
      ).status,
    ).toBe(201);
    expect(await storedPrefix('after-bad-file')).toMatch(/^k8s:enc:aescbc:v1:new:/);
  }, 60_000);

  it('answers a Secret whose key is gone as the reference, and force-deletes it', async () => {
    await reloadTo(config([{ name: 'gcm', secret: NEW_KEY }], 'aesgcm'));
    for (const name of ['lost-1', 'lost-2']) {
      expect(
        (await server.request('POST', secretsPath, { body: JSON.stringify({ metadata: { name } }), headers: json }))
          .status,
      ).toBe(201);
    }
    // Same key name, another secret: nothing written under it opens any more.
    await reloadTo(config([{ name: 'gcm', secret: OTHER_KEY }], 'aesgcm'));

    const read = await server.request('GET', `${secretsPath}/lost-1`);
    expect(read.status).toBe(500);
    // The object is named by its key below the etcd prefix, as the reference's registry names it.
    const cause =
      'StorageError: corrupt object, Code: 7, Key: /secrets/default/lost-1, ResourceVersion: 0, AdditionalErrorMsg: data from the storage is not transformable revision=0: cipher: message authentication failed';
    expect(read.json()).toMatchObject({
      reason: 'InternalError',
      message: `Internal error occurred: ${cause}`,
      details: { causes: [{ message: cause }] },
    });

    const list = await server.request('GET', secretsPath);
    expect(list.status).toBe(500);
    expect(list.json()).toMatchObject({
      reason: 'StorageReadError',
      message: 'failed to read one or more secrets from the storage',
    });
    // The aescbc Secrets of the earlier tests are as unreadable under an aesgcm-only configuration.
    expect(list.json<{ details: { causes: Array<{ field: string }> } }>().details.causes.map((c) => c.field)).toEqual(
      expect.arrayContaining(['/registry/secrets/default/lost-1', '/registry/secrets/default/lost-2']),
    );

    const forced = await server.request('DELETE', `${secretsPath}/lost-1`, {
      body: JSON.stringify({ ignoreStoreReadErrorWithClusterBreakingPotential: true }),
      headers: json,
    });
    expect(forced.status).toBe(200);
    expect(forced.json()).toMatchObject({
      kind: 'Status',
      status: 'Success',
      details: { name: 'lost-1', kind: 'Secret' },
    });
    expect((await server.request('GET', `${secretsPath}/lost-1`)).status).toBe(404);
    const metrics = (await server.request('GET', '/metrics')).body;
    expect(metrics).toMatch(
      /apiserver_storage_transformation_operations_total\{resource="secrets",transformation_type="from_storage",transformer_prefix="gcm:",status="unknown-non-grpc"\} \d+/,
    );
  }, 90_000);
});
