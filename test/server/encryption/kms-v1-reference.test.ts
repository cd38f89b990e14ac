/**
 * KMS v1 on one etcd shared by the reference kube-apiserver 1.34 and capstan, both with the
 * KMSv1 gate on and the same EncryptionConfiguration, their plugins served by the test: what
 * either stores, the other reads; the stored value is the reference's envelope, which the test
 * opens by itself; a rotation (a new provider first, the old one second) still reads the old
 * values and writes under the new; the health checks answer alike, one per provider and, with
 * automatic reload, the one `kms-providers`; the envelope's metrics have the same series; a
 * plugin that is down fails reads, writes and health checks with the same answers from both;
 * and the gate decides the start alike.
 */
import { createDecipheriv } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEtcdStore } from '../../../storage/etcd/etcd-store';
import type { RevisionedStore } from '../../../storage/store';
import * as grpc from '@grpc/grpc-js';
import { IDENTITY, writeEncryptionConfiguration, type EncryptionProvider } from '../../helpers/encryption-config';
import { startEtcd, type EtcdServer } from '../../helpers/etcd';
import { startInProcessServer, type InProcessServer } from '../../helpers/in-process-server';
import { startKmsV1Plugin, type TestKmsV1Plugin } from '../../helpers/kms-v1-plugin';
import {
  buildReferenceApiserver,
  startReferenceApiserver,
  type ReferenceApiserver,
} from '../../helpers/reference-apiserver';
import type { HttpResult } from '../../helpers/server';
import { retryUntil } from '../../helpers/wait-for';

jest.setTimeout(240_000);
/** The reference binary is built from its Go module when the cache lacks it. */
const BUILD_TIMEOUT_MS = 40 * 60_000;
beforeAll(() => buildReferenceApiserver(BUILD_TIMEOUT_MS), BUILD_TIMEOUT_MS);

const GATE_ON = '--feature-gates=KMSv1=true';
const dir = mkdtempSync(join(tmpdir(), 'kms-v1-reference-'));
const socket = (name: string) => join(dir, `${name}.sock`);

/** The flag for a file where Secrets are written by the first of `providers`, and read by every one and identity. */
function configFile(name: string, providers: EncryptionProvider[]): string {
  const rules = [{ resources: ['secrets'], providers: [...providers, IDENTITY] }];
  return `--encryption-provider-config=${writeEncryptionConfiguration(join(dir, `${name}.yaml`), rules)}`;
}

const kms = (name: string, extra: Record<string, string | number> = {}): EncryptionProvider => ({
  kms: { apiVersion: 'v1', name, endpoint: `unix://${socket(name)}`, ...extra },
});
const OLD = configFile('old', [kms('old')]);
const ROTATED = configFile('rotated', [kms('new'), kms('old')]);
/** No DEK cache and no watch cache, so every read asks the plugin; a short timeout, so a plugin away fails soon. */
const UNCACHED = configFile('uncached', [kms('down', { cachesize: -1, timeout: '1s' })]);
const NO_SECRETS_CACHE = '--watch-cache-sizes=secrets#0';

let etcd: EtcdServer;
let raw: RevisionedStore;
const plugins: Record<string, TestKmsV1Plugin> = {};
beforeAll(async () => {
  etcd = await startEtcd();
  raw = await openEtcdStore({ endpoints: etcd.endpoints });
  for (const name of ['old', 'new', 'down']) plugins[name] = await startKmsV1Plugin(socket(name));
});
afterAll(async () => {
  await Promise.all(Object.values(plugins).map((plugin) => plugin.stop()));
  await raw?.close();
  await etcd?.stop();
  rmSync(dir, { recursive: true, force: true });
});

interface Servers {
  reference: ReferenceApiserver;
  capstan: InProcessServer;
}

/** Both servers on the etcd with the same flags; the reference first, so capstan finds its bootstrap objects. */
async function startBoth(flags: string[]): Promise<Servers> {
  const reference = await startReferenceApiserver({ etcdServers: etcd.endpoints, flags: [...flags, GATE_ON] });
  try {
    const capstan = await startInProcessServer([`--etcd-servers=${etcd.endpoints.join(',')}`, ...flags, GATE_ON]);
    return { reference, capstan };
  } catch (error) {
    await reference.stop();
    throw error;
  }
}

async function stopBoth(servers: Servers | undefined): Promise<void> {
  await servers?.capstan.stop();
  await servers?.reference.stop();
}

type Server = Servers[keyof Servers];

async function createSecret(server: Server, name: string): Promise<HttpResult> {
  return server.request('POST', '/api/v1/namespaces/default/secrets', {
    body: JSON.stringify({ metadata: { name }, stringData: { token: name } }),
    headers: { 'content-type': 'application/json' },
  });
}

async function tokenOf(server: Server, name: string): Promise<string> {
  const read = await server.request('GET', `/api/v1/namespaces/default/secrets/${name}`);
  expect(read.status).toBe(200);
  return Buffer.from(read.json<{ data: { token: string } }>().data.token, 'base64').toString();
}

async function stored(name: string): Promise<Buffer> {
  return (await raw.get(`/registry/secrets/default/${name}`)).kv!.value;
}

/** The test's own opening of a stored value: the plugin unwraps the DEK, AES-256-GCM opens the rest with the key as AAD. */
function openStored(value: Buffer, provider: string, name: string): Buffer {
  const prefix = `k8s:enc:kms:v1:${provider}:`;
  expect(value.subarray(0, prefix.length).toString()).toBe(prefix);
  const body = value.subarray(prefix.length);
  const length = body.readUInt16BE(0);
  const dek = plugins[provider].unwrap(body.subarray(2, 2 + length));
  const sealed = body.subarray(2 + length);
  const decipher = createDecipheriv('aes-256-gcm', dek, sealed.subarray(0, 12));
  decipher.setAAD(Buffer.from(`/registry/secrets/default/${name}`));
  decipher.setAuthTag(sealed.subarray(sealed.length - 16));
  return Buffer.concat([decipher.update(sealed.subarray(12, sealed.length - 16)), decipher.final()]);
}

describe('one provider', () => {
  let servers: Servers | undefined;
  const capstanLog: string[] = [];
  beforeAll(async () => {
    const errors = jest.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
      capstanLog.push(args.join(' '));
    });
    try {
      servers = await startBoth([OLD]);
    } finally {
      errors.mockRestore();
    }
  });
  afterAll(() => stopBoth(servers));

  it('a Secret written by either is read by the other, stored in the envelope the test opens', async () => {
    const { reference, capstan } = servers!;
    expect((await createSecret(reference, 'from-reference')).status).toBe(201);
    expect((await createSecret(capstan, 'from-capstan')).status).toBe(201);
    for (const server of [reference, capstan]) {
      expect(await tokenOf(server, 'from-reference')).toBe('from-reference');
      expect(await tokenOf(server, 'from-capstan')).toBe('from-capstan');
    }
    for (const name of ['from-reference', 'from-capstan']) {
      const plain = openStored(await stored(name), 'old', name);
      expect(plain.subarray(0, 4).toString('latin1')).toBe('k8s\u0000');
      expect(plain.includes(Buffer.from(name))).toBe(true);
    }
  });

  it('both answer kms-provider-0 in /healthz and /readyz, none in /livez', async () => {
    const { reference, capstan } = servers!;
    for (const path of [
      '/healthz/kms-provider-0',
      '/readyz/kms-provider-0',
      '/healthz/kms-providers',
      '/livez/kms-provider-0',
    ]) {
      const [a, b] = await Promise.all([reference.request('GET', path), capstan.request('GET', path)]);
      expect({ status: b.status, body: b.body }).toEqual({ status: a.status, body: a.body });
    }
    for (const path of ['/healthz?verbose', '/readyz?verbose', '/livez?verbose']) {
      const [a, b] = await Promise.all([reference.request('GET', path), capstan.request('GET', path)]);
      const kmsLines = (body: string) => body.split('\n').filter((line) => line.includes('kms'));
      expect(kmsLines(b.body)).toEqual(kmsLines(a.body));
    }
  });

  it("both show the v1 envelope's metrics", async () => {
    const { reference, capstan } = servers!;
    // The series (names and labels) of the envelope and of its transformations; the counts differ.
    const series = (body: string) =>
      body
        .split('\n')
        .filter((line) => /^apiserver_envelope_encryption_dek_cache|transformer_prefix="k8s:enc:kms:v1:/.test(line))
        .map((line) => line.replace(/ [^ ]+$/, ''))
        // Label order and number format are the exposition's, not the series': Go sorts `le`
        // last and writes 1e-05, prom-client puts it first and writes 0.00001.
        .map((line) =>
          line
            .replace(/le="([^"]+)"/, (_all, bound: string) => `le="${bound === '+Inf' ? bound : Number(bound)}"`)
            .replace(
              /\{(.*)\}/,
              (_all, labels: string) =>
                `{${labels
                  .split(/,(?=\w+=")/)
                  .sort()
                  .join(',')}}`,
            ),
        )
        .sort();
    const [a, b] = await Promise.all([reference.request('GET', '/metrics'), capstan.request('GET', '/metrics')]);
    expect(series(a.body)).toContain('apiserver_envelope_encryption_dek_cache_fill_percent');
    expect(series(b.body)).toEqual(series(a.body));
  });

  it('both log that KMSv1 is deprecated', () => {
    const deprecated = 'KMSv1 is deprecated and will only receive security updates going forward. Use KMSv2 instead.';
    expect(servers!.reference.output()).toContain(`"${deprecated}"`);
    expect(capstanLog).toContain(deprecated);
  });
});

describe('a rotation: the new provider first, the old one second', () => {
  let servers: Servers | undefined;
  beforeAll(async () => {
    servers = await startBoth([ROTATED]);
  });
  afterAll(async () => {
    // A Secret the next configuration cannot read would keep the reference unready (its informers list Secrets).
    for (const name of ['from-reference', 'from-capstan', 'rotated-reference', 'rotated-capstan'])
      await servers?.capstan.request('DELETE', `/api/v1/namespaces/default/secrets/${name}`);
    await stopBoth(servers);
  });

  it('reads the old values, writes new ones under the new provider, and rewrites an old one on a no-op update', async () => {
    const { reference, capstan } = servers!;
    for (const server of [reference, capstan]) {
      expect(await tokenOf(server, 'from-reference')).toBe('from-reference');
      expect(await tokenOf(server, 'from-capstan')).toBe('from-capstan');
    }
    expect((await createSecret(reference, 'rotated-reference')).status).toBe(201);
    expect((await createSecret(capstan, 'rotated-capstan')).status).toBe(201);
    for (const name of ['rotated-reference', 'rotated-capstan']) {
      expect(openStored(await stored(name), 'new', name).includes(Buffer.from(name))).toBe(true);
      for (const server of [reference, capstan]) expect(await tokenOf(server, name)).toBe(name);
    }
    for (const [server, name] of [
      [reference, 'from-capstan'],
      [capstan, 'from-reference'],
    ] as const) {
      const read = await server.request('GET', `/api/v1/namespaces/default/secrets/${name}`);
      const written = await server.request('PUT', `/api/v1/namespaces/default/secrets/${name}`, {
        body: read.body,
        headers: { 'content-type': 'application/json' },
      });
      expect(written.status).toBe(200);
      expect(openStored(await stored(name), 'new', name).includes(Buffer.from(name))).toBe(true);
    }
  });

  it('names each provider check by its place', async () => {
    const { reference, capstan } = servers!;
    for (const path of ['/healthz/kms-provider-0', '/healthz/kms-provider-1', '/healthz/kms-provider-2']) {
      const [a, b] = await Promise.all([reference.request('GET', path), capstan.request('GET', path)]);
      expect({ status: b.status, body: b.body }).toEqual({ status: a.status, body: a.body });
    }
  });
});

describe('with automatic reload', () => {
  let servers: Servers | undefined;
  beforeAll(async () => {
    servers = await startBoth([ROTATED, '--encryption-provider-config-automatic-reload']);
  });
  afterAll(() => stopBoth(servers));

  it('both answer one kms-providers check, naming the failing provider', async () => {
    const { reference, capstan } = servers!;
    for (const path of ['/healthz/kms-providers', '/readyz/kms-providers', '/healthz/kms-provider-0']) {
      const [a, b] = await Promise.all([reference.request('GET', path), capstan.request('GET', path)]);
      expect({ status: b.status, body: b.body }).toEqual({ status: a.status, body: a.body });
    }
    plugins.old.failing = { code: grpc.status.UNAVAILABLE, details: 'key unavailable' };
    try {
      // A healthy answer is kept 20 s.
      const failing = (server: Server) =>
        retryUntil(
          () => server.request('GET', '/healthz/kms-providers'),
          (answer) => answer.status !== 200,
          30_000,
          1_000,
        );
      const [a, b] = await Promise.all([failing(reference), failing(capstan)]);
      expect(a.body).toBe(
        'internal server error: kms-provider-1: failed to perform encrypt section of the healthz check for KMS Provider old, error: rpc error: code = Unavailable desc = key unavailable\n',
      );
      expect({ status: b.status, body: b.body }).toEqual({ status: a.status, body: a.body });
    } finally {
      plugins.old.failing = undefined;
    }
  });
});

describe('a plugin that is down', () => {
  let servers: Servers | undefined;
  beforeAll(async () => {
    servers = await startBoth([UNCACHED, NO_SECRETS_CACHE]);
  });
  afterAll(() => stopBoth(servers));

  it('fails writes, reads and the health check alike on both', async () => {
    const { reference, capstan } = servers!;
    expect((await createSecret(reference, 'down-reference')).status).toBe(201);
    expect((await createSecret(capstan, 'down-capstan')).status).toBe(201);
    await plugins.down.stop();
    const answers = async (server: Server) => ({
      write: await createSecret(server, 'never'),
      read: await server.request('GET', '/api/v1/namespaces/default/secrets/down-reference'),
      health: await retryUntil(
        () => server.request('GET', '/healthz/kms-provider-0'),
        (answer) => answer.status !== 200,
        30_000,
        1_000,
      ),
    });
    const [a, b] = [await answers(reference), await answers(capstan)];
    // The plugin's socket is gone: grpc-go's words for the dial, after the 1 s timeout.
    const unreachable = `rpc error: code = DeadlineExceeded desc = latest balancer error: connection error: desc = "transport: Error while dialing: dial unix ${socket('down')}: connect: no such file or directory"`;
    expect(a.write.json()).toMatchObject({
      reason: 'InternalError',
      message: `Internal error occurred: ${unreachable}`,
    });
    expect({ status: b.write.status, body: b.write.json() }).toEqual({ status: a.write.status, body: a.write.json() });
    expect({ status: b.health.status, body: b.health.body }).toEqual({ status: a.health.status, body: a.health.body });
    expect(a.health.body).toBe(
      `internal server error: failed to perform encrypt section of the healthz check for KMS Provider down, error: ${unreachable}\n`,
    );
    // A read fails alike, with the plugin's error as the reference's storage.InternalError.
    expect(a.read.json()).toMatchObject({
      code: 500,
      reason: 'InternalError',
      message: `Internal error occurred: ${unreachable}`,
    });
    expect({ status: b.read.status, body: b.read.json() }).toEqual({ status: a.read.status, body: a.read.json() });
  });
});

describe('the gate', () => {
  it('off: both refuse to start with the same words', async () => {
    const refusal =
      'error while building transformers: KMSv1 is deprecated and will only receive security updates going forward. Use KMSv2 instead.  Set --feature-gates=KMSv1=true to use the deprecated KMSv1 feature.';
    for (const gate of [[], ['--feature-gates=KMSv1=false']]) {
      await expect(startReferenceApiserver({ etcdServers: etcd.endpoints, flags: [OLD, ...gate] })).rejects.toThrow(
        `"command failed" err="${refusal}"`,
      );
      await expect(startInProcessServer([`--etcd-servers=${etcd.endpoints.join(',')}`, OLD, ...gate])).rejects.toThrow(
        refusal,
      );
    }
  });
});
