/**
 * KMS v2 envelope encryption against a plugin the test serves on a unix socket: the stored
 * envelope (an EncryptedObject after `k8s:enc:kms:v2:<name>:`) opens with the plugin's key
 * alone, DEKs are generated here and cached, a key ID rotation seen through Status makes new
 * writes use a new DEK and old values stale (a no-op update rewrites them), the health checks
 * and metrics report it; and what the reference kube-apiserver stored through the same plugin
 * opens with capstan's provider.
 */
import { PROTOBUF_MAGIC } from '../../../server/codec/protobuf-envelope';
import { createDecipheriv, createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { openEtcdStore } from '../../../storage/etcd/etcd-store';
import { openSqliteStore } from '../../../storage/sqlite/sqlite-store';
import { loadEncryptionConfiguration } from '../../../server/encryption/encryption-config';
import { buildTransformers } from '../../../server/encryption/encryption-providers';
import { kmsProviders } from '../../../server/encryption/kms-providers';
import { IDENTITY, writeEncryptionConfiguration } from '../../helpers/encryption-config';
import { startEtcd } from '../../helpers/etcd';
import { inProcessServerForSuite } from '../../helpers/in-process-server';
import { waitFor } from '../../helpers/wait-for';
import { ANNOTATION, messageType, startKmsPlugin, type TestKmsPlugin } from '../../helpers/kms-plugin';
import { buildReferenceApiserver, startReferenceApiserver } from '../../helpers/reference-apiserver';

/** The reference binary is built from its Go module when the cache lacks it. */
const BUILD_TIMEOUT_MS = 40 * 60_000;

const PREFIX = 'k8s:enc:kms:v2:test-kms:';
const dir = mkdtempSync(join(tmpdir(), 'encryption-kms-'));
const CONFIG = writeEncryptionConfiguration(join(dir, 'encryption.yaml'), [
  {
    resources: ['secrets'],
    providers: [
      { kms: { apiVersion: 'v2', name: 'test-kms', endpoint: `unix://${join(dir, 'kms.sock')}`, timeout: '3s' } },
      IDENTITY,
    ],
  },
]);

interface StoredEnvelope {
  encryptedData: Buffer;
  keyID: string;
  encryptedDEKSource: Buffer;
  annotations: Record<string, Buffer>;
  encryptedDEKSourceType: number;
}

function envelopeOf(value: Buffer): StoredEnvelope {
  expect(value.subarray(0, PREFIX.length).toString()).toBe(PREFIX);
  const type = messageType('EncryptedObject');
  return type.toObject(type.decode(value.subarray(PREFIX.length)), { defaults: true }) as StoredEnvelope;
}

/** The test's own opening of a stored value: the plugin unwraps the seed, HKDF-Expand-SHA256 with the stored info, AES-256-GCM with the key as AAD. */
function openEnvelope(envelope: StoredEnvelope, plugin: TestKmsPlugin, key: string): Buffer {
  expect(envelope.encryptedDEKSourceType).toBe(1);
  const seed = plugin.unwrap(envelope.encryptedDEKSource, envelope.keyID);
  const info = envelope.encryptedData.subarray(0, 32);
  const dataKey = createHmac('sha256', seed).update(info).update(Buffer.of(1)).digest();
  const sealed = envelope.encryptedData.subarray(32);
  const decipher = createDecipheriv('aes-256-gcm', dataKey, sealed.subarray(0, 12));
  decipher.setAAD(Buffer.from(key));
  decipher.setAuthTag(sealed.subarray(sealed.length - 16));
  return Buffer.concat([decipher.update(sealed.subarray(12, sealed.length - 16)), decipher.final()]);
}

let plugin: TestKmsPlugin;
beforeAll(async () => {
  plugin = await startKmsPlugin(join(dir, 'kms.sock'), 'key-1');
});
afterAll(async () => {
  await plugin?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('KMS v2 on SQLite', () => {
  const rawValue = async (key: string) => {
    const store = await openSqliteStore({ path: join(server.dataDir, 'capstan.db') });
    try {
      return (await store.get(key)).kv!.value;
    } finally {
      await store.close();
    }
  };
  const createSecret = async (name: string) => {
    const created = await server.request('POST', '/api/v1/namespaces/default/secrets', {
      body: JSON.stringify({ metadata: { name }, stringData: { token: name } }),
      headers: { 'content-type': 'application/json' },
    });
    expect(created.status).toBe(201);
  };

  const server = inProcessServerForSuite([`--encryption-provider-config=${CONFIG}`]);

  beforeAll(async () => {
    // Writes wait for the plugin's first healthy Status, which gives the first DEK.
    await waitFor('the KMS plugin to be healthy', async () =>
      (await server.request('GET', '/healthz/kms-providers')).status === 200 ? true : undefined,
    );
  });
  it("stores an EncryptedObject that opens with the plugin's key, and reads it back", async () => {
    await createSecret('first');
    const key = '/registry/secrets/default/first';
    const envelope = envelopeOf(await rawValue(key));
    expect(envelope.keyID).toBe('key-1');
    expect(envelope.annotations[ANNOTATION].toString()).toBe('key-1');
    // The plaintext is the Secret as stored unencrypted: the protobuf envelope, its data bytes in it.
    const plain = openEnvelope(envelope, plugin, key);
    expect(plain.subarray(0, PROTOBUF_MAGIC.length)).toEqual(PROTOBUF_MAGIC);
    expect(plain.includes(Buffer.from('token'))).toBe(true);
    expect(plain.includes(Buffer.from('first'))).toBe(true);
    const read = await server.request('GET', '/api/v1/namespaces/default/secrets/first');
    expect(read.json<{ data: Record<string, string> }>().data.token).toBe(Buffer.from('first').toString('base64'));
  });

  it('generates one DEK per key ID and asks the plugin nothing to read its own writes', async () => {
    const encryptsBefore = plugin.calls.Encrypt;
    const decryptsBefore = plugin.calls.Decrypt;
    for (const name of ['second', 'third']) await createSecret(name);
    const list = await server.request('GET', '/api/v1/namespaces/default/secrets');
    expect(list.json<{ items: unknown[] }>().items).toHaveLength(3);
    expect(plugin.calls.Encrypt).toBe(encryptsBefore);
    expect(plugin.calls.Decrypt).toBe(decryptsBefore);
    const seeds = new Set(
      await Promise.all(
        ['first', 'second'].map(async (name) =>
          envelopeOf(await rawValue(`/registry/secrets/default/${name}`)).encryptedDEKSource.toString('hex'),
        ),
      ),
    );
    expect(seeds.size).toBe(1);
  });

  it('answers the kms-providers health check in /healthz and /readyz, not /livez', async () => {
    expect((await server.request('GET', '/healthz/kms-providers')).body).toBe('ok');
    expect((await server.request('GET', '/readyz?verbose')).body).toContain('[+]kms-providers ok');
    expect((await server.request('GET', '/livez?verbose')).body).not.toContain('kms-providers');
  });

  it('follows a key ID rotation: new writes under the new key, old values rewritten by a no-op update', async () => {
    plugin.rotate('key-2');
    // The Status probe's healthy answer is kept 20 s, as in the reference; then it sees key-2.
    await waitFor(
      'the provider to see the new key ID',
      async () => {
        await server.request('GET', '/healthz/kms-providers');
        await createSecret(`probe-${Date.now()}`);
        const names = (await server.request('GET', '/api/v1/namespaces/default/secrets'))
          .json<{ items: Array<{ metadata: { name: string } }> }>()
          .items.map((item) => item.metadata.name);
        const newest = names
          .filter((name) => name.startsWith('probe-'))
          .sort()
          .at(-1)!;
        return envelopeOf(await rawValue(`/registry/secrets/default/${newest}`)).keyID === 'key-2' ? true : undefined;
      },
      45_000,
      2_000,
    );
    // A no-op update (kubectl replace of what was read) rewrites a stale value under the new key.
    const first = (await server.request('GET', '/api/v1/namespaces/default/secrets/first')).body;
    const rewritten = await server.request('PUT', '/api/v1/namespaces/default/secrets/first', {
      body: first,
      headers: { 'content-type': 'application/json' },
    });
    expect(rewritten.status).toBe(200);
    expect(envelopeOf(await rawValue('/registry/secrets/default/first')).keyID).toBe('key-2');
    const metrics = (await server.request('GET', '/metrics')).body;
    expect(metrics).toMatch(
      /apiserver_envelope_encryption_key_id_hash_total\{transformation_type="to_storage",provider_name="test-kms",key_id_hash="sha256:[0-9a-f]{64}",apiserver_id_hash="sha256:[0-9a-f]{64}"\} \d+/,
    );
    expect(metrics).toMatch(
      /apiserver_storage_transformation_operations_total\{resource="secrets",transformation_type="to_storage",transformer_prefix="k8s:enc:kms:v2:test-kms:",status="OK"\} \d+/,
    );
    expect(metrics).toMatch(
      /apiserver_envelope_encryption_kms_operations_latency_seconds_count\{provider_name="test-kms",method_name="\/v2.KeyManagementService\/Encrypt",grpc_status_code="OK"\} \d+/,
    );
  }, 60_000);
});

describe('KMS v2 against the reference kube-apiserver', () => {
  beforeAll(() => buildReferenceApiserver(BUILD_TIMEOUT_MS), BUILD_TIMEOUT_MS);
  it("opens with capstan's provider what the reference stored through the same plugin", async () => {
    const etcd = await startEtcd();
    const raw = await openEtcdStore({ endpoints: etcd.endpoints });
    const reference = await startReferenceApiserver({
      etcdServers: [etcd.endpoints[0]],
      flags: [`--encryption-provider-config=${CONFIG}`],
    }).catch(async (error) => {
      await raw.close();
      await etcd.stop();
      throw error;
    });
    const kms = kmsProviders({ registry: new Registry(), serverId: 'test', kmsV1Enabled: false, log: () => undefined });
    try {
      const created = await reference.request('POST', '/api/v1/namespaces/default/secrets', {
        body: JSON.stringify({ metadata: { name: 'from-reference' }, stringData: { token: 'abc' } }),
        headers: { 'content-type': 'application/json' },
      });
      expect(created.status).toBe(201);
      const key = '/registry/secrets/default/from-reference';
      const value = (await raw.get(key)).kv!.value;
      const envelope = envelopeOf(value);
      expect(envelope.keyID).toBe(plugin.keyId);
      // The test's own opening agrees with the reference's format...
      expect(openEnvelope(envelope, plugin, key).subarray(0, 4).toString('latin1')).toBe('k8s\u0000');
      // ...and so does capstan's provider, which asks the plugin to unwrap the reference's DEK.
      const transformers = buildTransformers(loadEncryptionConfiguration(CONFIG, false), {
        record: () => undefined,
        kms: kms.provider,
      });
      await kms.primed();
      const decryptsBefore = plugin.calls.Decrypt;
      const { data } = await transformers
        .transformerFor({ group: '', resource: 'secrets' })
        .fromStorage(value, { key, resource: 'secrets' });
      expect(data.subarray(0, 4).toString('latin1')).toBe('k8s\u0000');
      expect(data.includes(Buffer.from('from-reference'))).toBe(true);
      expect(plugin.calls.Decrypt).toBe(decryptsBefore + 1);
      // The same key as authenticated data: under another key the value does not open.
      await expect(
        transformers
          .transformerFor({ group: '', resource: 'secrets' })
          .fromStorage(value, { key: '/registry/secrets/default/other', resource: 'secrets' }),
      ).rejects.toThrow('cipher: message authentication failed');
    } finally {
      kms.close();
      await reference.stop();
      await raw.close();
      await etcd.stop();
    }
  }, 120_000);
});
