/**
 * KMS v1 envelope encryption (the KMSv1 gate on) against a plugin the test serves on a unix
 * socket: the stored value is `k8s:enc:kms:v1:<name>:`, the encrypted DEK's length in 2 bytes,
 * the encrypted DEK and the data sealed with AES-256-GCM under the DEK (the store key as
 * additional data), which the test opens by itself; a new DEK per write, decrypted DEKs kept in
 * an LRU cache of `cachesize`; CBC values of older servers read as stale; the plugin's Version
 * asked once before the first call and refused unless `v1beta1`; the per-provider health checks.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { Registry } from 'prom-client';
import { loadEncryptionConfiguration } from '../../../server/encryption/encryption-config';
import { buildTransformers } from '../../../server/encryption/encryption-providers';
import { kmsProviders, type KmsProviders } from '../../../server/encryption/kms-providers';
import type { ValueTransformer } from '../../../storage/transform/transformer';
import { IDENTITY, writeEncryptionConfiguration } from '../../helpers/encryption-config';
import { startInProcessServer, type InProcessServer } from '../../helpers/in-process-server';
import { startKmsPlugin, type TestKmsPlugin } from '../../helpers/kms-plugin';
import { startKmsV1Plugin, type TestKmsV1Plugin } from '../../helpers/kms-v1-plugin';

const PREFIX = 'k8s:enc:kms:v1:test-kms:';
const KEY = '/registry/secrets/default/one';
const CONTEXT = { key: KEY, resource: 'secrets' };

const dir = mkdtempSync(join(tmpdir(), 'encryption-kms-v1-'));
const SOCKET = join(dir, 'kms.sock');
let plugin: TestKmsV1Plugin;
beforeAll(async () => {
  plugin = await startKmsV1Plugin(SOCKET);
});
afterAll(async () => {
  await plugin?.stop();
  rmSync(dir, { recursive: true, force: true });
});

type KmsFields = Readonly<Record<string, string | number>>;

/** A file where Secrets are written by the KMS provider of `kms`, and read by it and identity. */
function configFile(kms: KmsFields): string {
  const file = join(dir, `encryption-${Math.random().toString(36).slice(2)}.yaml`);
  return writeEncryptionConfiguration(file, [{ resources: ['secrets'], providers: [{ kms }, IDENTITY] }]);
}

const opened: KmsProviders[] = [];
afterEach(() => {
  for (const kms of opened.splice(0)) kms.close();
});

function secretsTransformer(kms: KmsFields): { transformer: ValueTransformer; kms: KmsProviders; registry: Registry } {
  const registry = new Registry();
  const providers = kmsProviders({ registry, serverId: 'test', kmsV1Enabled: true, log: () => undefined });
  opened.push(providers);
  const transformers = buildTransformers(loadEncryptionConfiguration(configFile(kms), false), {
    record: () => undefined,
    kms: providers.provider,
  });
  return { transformer: transformers.transformerFor({ group: '', resource: 'secrets' }), kms: providers, registry };
}

const V1: KmsFields = { name: 'test-kms', endpoint: `unix://${SOCKET}` };

/** The test's own reading of a stored value: the plugin unwraps the DEK, AES-256-GCM opens the rest with the key as AAD. */
function openStored(value: Buffer, key: string): { dek: Buffer; plain: Buffer } {
  expect(value.subarray(0, PREFIX.length).toString()).toBe(PREFIX);
  const body = value.subarray(PREFIX.length);
  const length = body.readUInt16BE(0);
  const dek = plugin.unwrap(body.subarray(2, 2 + length));
  const sealed = body.subarray(2 + length);
  const decipher = createDecipheriv('aes-256-gcm', dek, sealed.subarray(0, 12));
  decipher.setAAD(Buffer.from(key));
  decipher.setAuthTag(sealed.subarray(sealed.length - 16));
  return { dek, plain: Buffer.concat([decipher.update(sealed.subarray(12, sealed.length - 16)), decipher.final()]) };
}

describe('the v1 envelope', () => {
  it("stores the reference's format: a new 32-byte DEK per write, sealed with AES-256-GCM under the store key", async () => {
    const { transformer } = secretsTransformer(V1);
    const encryptsBefore = plugin.calls.Encrypt;
    const first = await transformer.toStorage(Buffer.from('k8s\u0000first'), CONTEXT);
    const second = await transformer.toStorage(Buffer.from('k8s\u0000second'), CONTEXT);
    expect(plugin.calls.Encrypt).toBe(encryptsBefore + 2);
    const a = openStored(first, KEY);
    const b = openStored(second, KEY);
    expect(a.plain.toString()).toBe('k8s\u0000first');
    expect(b.plain.toString()).toBe('k8s\u0000second');
    expect(a.dek).toHaveLength(32);
    expect(a.dek.equals(b.dek)).toBe(false);
    expect(plugin.requestVersions.every((version) => version === 'v1beta1')).toBe(true);
  });

  it('reads its own writes from the DEK cache, and asks the plugin for a DEK it does not hold', async () => {
    const { transformer } = secretsTransformer(V1);
    const stored = await transformer.toStorage(Buffer.from('cached'), CONTEXT);
    const decryptsBefore = plugin.calls.Decrypt;
    expect(await transformer.fromStorage(stored, CONTEXT)).toEqual({ data: Buffer.from('cached'), stale: false });
    expect(plugin.calls.Decrypt).toBe(decryptsBefore);
    // Another server's providers (a new cache) ask once, then hold it.
    const other = secretsTransformer(V1).transformer;
    await other.fromStorage(stored, CONTEXT);
    await other.fromStorage(stored, CONTEXT);
    expect(plugin.calls.Decrypt).toBe(decryptsBefore + 1);
    // Under another key the value does not open: the key is authenticated.
    await expect(
      other.fromStorage(stored, { key: '/registry/secrets/default/two', resource: 'secrets' }),
    ).rejects.toThrow('[cipher: message authentication failed, ');
  });

  it('keeps the cachesize most recently used DEKs, and none when cachesize is negative', async () => {
    const { transformer } = secretsTransformer({ ...V1, cachesize: 2 });
    const values = [];
    for (const text of ['a', 'b', 'c']) values.push(await transformer.toStorage(Buffer.from(text), CONTEXT));
    let decrypts = plugin.calls.Decrypt;
    // b and c are held; a, the least recently used, was let go.
    await transformer.fromStorage(values[1], CONTEXT);
    await transformer.fromStorage(values[2], CONTEXT);
    expect(plugin.calls.Decrypt).toBe(decrypts);
    await transformer.fromStorage(values[0], CONTEXT);
    expect(plugin.calls.Decrypt).toBe(decrypts + 1);
    // Reading a made it the newest and let b go (c was used after b).
    await transformer.fromStorage(values[2], CONTEXT);
    expect(plugin.calls.Decrypt).toBe(decrypts + 1);
    await transformer.fromStorage(values[1], CONTEXT);
    expect(plugin.calls.Decrypt).toBe(decrypts + 2);

    const uncached = secretsTransformer({ ...V1, cachesize: -1 }).transformer;
    const stored = await uncached.toStorage(Buffer.from('x'), CONTEXT);
    decrypts = plugin.calls.Decrypt;
    await uncached.fromStorage(stored, CONTEXT);
    await uncached.fromStorage(stored, CONTEXT);
    expect(plugin.calls.Decrypt).toBe(decrypts + 2);
  });

  it('reads a value of a server before 1.25 (AES-CBC under the DEK) as stale', async () => {
    const { transformer } = secretsTransformer(V1);
    const dek = randomBytes(32);
    const iv = randomBytes(16);
    const cipher = createCipheriv('aes-256-cbc', dek, iv);
    const sealed = Buffer.concat([iv, cipher.update('old value'), cipher.final()]);
    // The plugin seals the DEK as it did for the old server.
    const encryptedDek = plugin.wrap(dek);
    const length = Buffer.alloc(2);
    length.writeUInt16BE(encryptedDek.length);
    const stored = Buffer.concat([Buffer.from(PREFIX), length, encryptedDek, sealed]);
    expect(await transformer.fromStorage(stored, CONTEXT)).toEqual({ data: Buffer.from('old value'), stale: true });
  });

  it("refuses a value too short for its DEK length with the reference's words", async () => {
    const { transformer } = secretsTransformer(V1);
    await expect(transformer.fromStorage(Buffer.from(`${PREFIX}\u0000\u0010abc`), CONTEXT)).rejects.toThrow(
      'invalid data encountered by envelope transformer: failed to read uint16 length prefixed data',
    );
  });
});

describe('the v1 plugin API', () => {
  it('asks Version once, before the first call, and refuses a plugin of another API version until it answers v1beta1', async () => {
    const versionsBefore = plugin.calls.Version;
    const { transformer } = secretsTransformer(V1);
    plugin.version = 'v2';
    try {
      await expect(transformer.toStorage(Buffer.from('x'), CONTEXT)).rejects.toThrow(
        'KMS provider api version v2 is not supported, only v1beta1 is supported now',
      );
    } finally {
      plugin.version = 'v1beta1';
    }
    await transformer.toStorage(Buffer.from('x'), CONTEXT);
    await transformer.toStorage(Buffer.from('y'), CONTEXT);
    expect(plugin.calls.Version).toBe(versionsBefore + 2);
  });

  it("fails a transformation with the plugin's own gRPC status", async () => {
    const { transformer } = secretsTransformer(V1);
    const stored = await transformer.toStorage(Buffer.from('x'), CONTEXT);
    plugin.failing = { code: grpc.status.PERMISSION_DENIED, details: 'key disabled' };
    try {
      await expect(transformer.toStorage(Buffer.from('x'), CONTEXT)).rejects.toThrow(
        'rpc error: code = PermissionDenied desc = key disabled',
      );
      await expect(secretsTransformer(V1).transformer.fromStorage(stored, CONTEXT)).rejects.toMatchObject({
        codeName: 'PermissionDenied',
      });
    } finally {
      plugin.failing = undefined;
    }
  });
});

describe('the v1 health checks', () => {
  it('probe with an Encrypt and a Decrypt, keep a failure 3 s (bare), and name each provider by its place', async () => {
    const { kms } = secretsTransformer(V1);
    expect(kms.checks.map((check) => check.name)).toEqual(['kms-provider-0']);
    expect(kms.usesV1).toBe(true);
    expect(kms.timeoutSumMs).toBe(6_000);
    const before = { ...plugin.calls };
    plugin.failing = { code: grpc.status.UNAVAILABLE, details: 'down' };
    try {
      await expect(kms.checks[0].check()).rejects.toThrow(
        'failed to perform encrypt section of the healthz check for KMS Provider test-kms, error: rpc error: code = Unavailable desc = down',
      );
      await expect(kms.check()).rejects.toThrow(/^kms-provider-0: rpc error: code = Unavailable desc = down$/);
    } finally {
      plugin.failing = undefined;
    }
    expect(plugin.calls.Encrypt).toBe(before.Encrypt + 1);

    const healthy = secretsTransformer(V1).kms;
    await healthy.checks[0].check();
    expect(plugin.calls.Encrypt).toBe(before.Encrypt + 2);
    expect(plugin.calls.Decrypt).toBe(before.Decrypt + 1);
  });

  it('logs that KMSv1 is deprecated, and refuses it with the gate off', () => {
    const logged: string[] = [];
    const on = kmsProviders({
      registry: new Registry(),
      serverId: 'test',
      kmsV1Enabled: true,
      log: (m) => logged.push(m),
    });
    opened.push(on);
    on.provider(loadEncryptionConfiguration(configFile(V1), false).resources[0].providers[0].kms!);
    expect(logged).toEqual([
      'KMSv1 is deprecated and will only receive security updates going forward. Use KMSv2 instead.',
    ]);
    const off = kmsProviders({ registry: new Registry(), serverId: 'test', kmsV1Enabled: false });
    expect(() =>
      off.provider(loadEncryptionConfiguration(configFile(V1), false).resources[0].providers[0].kms!),
    ).toThrow(
      'error while building transformers: KMSv1 is deprecated and will only receive security updates going forward. Use KMSv2 instead.  Set --feature-gates=KMSv1=true to use the deprecated KMSv1 feature.',
    );
  });
});

describe('a server with the KMSv1 gate on', () => {
  let server: InProcessServer;
  beforeAll(async () => {
    server = await startInProcessServer([
      `--encryption-provider-config=${configFile({ apiVersion: 'v1', ...V1 })}`,
      '--feature-gates=KMSv1=true',
    ]);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('stores Secrets in the v1 envelope and serves them', async () => {
    const created = await server.request('POST', '/api/v1/namespaces/default/secrets', {
      body: JSON.stringify({ metadata: { name: 'one' }, stringData: { token: 'abc' } }),
      headers: { 'content-type': 'application/json' },
    });
    expect(created.status).toBe(201);
    const read = await server.request('GET', '/api/v1/namespaces/default/secrets/one');
    expect(read.json<{ data: Record<string, string> }>().data.token).toBe(Buffer.from('abc').toString('base64'));
    const metrics = (await server.request('GET', '/metrics')).body;
    expect(metrics).toMatch(
      /apiserver_storage_transformation_operations_total\{resource="secrets",transformation_type="to_storage",transformer_prefix="k8s:enc:kms:v1:test-kms:",status="OK"\} 1/,
    );
    expect(metrics).toMatch(/apiserver_envelope_encryption_dek_cache_fill_percent 0.001/);
  });

  it('answers kms-provider-0 in /healthz and /readyz, not /livez, and no kms-providers', async () => {
    expect((await server.request('GET', '/healthz/kms-provider-0')).body).toBe('ok');
    const ready = (await server.request('GET', '/readyz?verbose')).body;
    expect(ready).toContain('[+]kms-provider-0 ok');
    expect(ready).not.toContain('kms-providers');
    expect((await server.request('GET', '/livez?verbose')).body).not.toContain('kms-provider');
  });
});

describe('a server with a KMS v1 and a KMS v2 provider', () => {
  let server: InProcessServer;
  let v2Plugin: TestKmsPlugin;
  beforeAll(async () => {
    v2Plugin = await startKmsPlugin(join(dir, 'v2.sock'), 'key-1');
    const file = writeEncryptionConfiguration(join(dir, 'mixed.yaml'), [
      { resources: ['secrets'], providers: [{ kms: V1 }] },
      {
        resources: ['configmaps'],
        providers: [{ kms: { apiVersion: 'v2', name: 'second', endpoint: `unix://${join(dir, 'v2.sock')}` } }],
      },
    ]);
    server = await startInProcessServer([`--encryption-provider-config=${file}`, '--feature-gates=KMSv1=true']);
  });
  afterAll(async () => {
    await server?.stop();
    await v2Plugin?.stop();
  });

  it('gives the v2 provider its own check too, numbered after the v1 one, as the reference does with v1 in use', async () => {
    const healthz = (await server.request('GET', '/healthz?verbose')).body;
    expect(healthz).toContain('[+]kms-provider-0 ok');
    expect(healthz).toContain('[+]kms-provider-1 ok');
    expect(healthz).not.toContain('kms-providers');
    expect((await server.request('GET', '/healthz/kms-provider-1')).body).toBe('ok');
  });
});
