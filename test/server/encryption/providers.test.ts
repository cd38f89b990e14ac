/**
 * Encryption at rest with the static providers (aescbc, aesgcm, secretbox, identity), byte for
 * byte as the reference kube-apiserver 1.34:
 * - what capstan stores, on etcd and on SQLite, carries the reference's envelope and opens with
 *   a decryption written here from the format alone (node:crypto, NaCl);
 * - what the reference stored opens with capstan's transformers (its protobuf `k8s\0` value);
 * - what capstan stored, put where the reference reads it, is served by the reference.
 */
import { PROTOBUF_MAGIC } from '../../../server/codec/protobuf-envelope';
import { createDecipheriv } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEtcdStore } from '../../../storage/etcd/etcd-store';
import { openSqliteStore } from '../../../storage/sqlite/sqlite-store';
import type { RevisionedStore } from '../../../storage/store';
import { loadEncryptionConfiguration } from '../../../server/encryption/encryption-config';
import { buildTransformers } from '../../../server/encryption/encryption-providers';
import { IDENTITY, writeEncryptionConfiguration } from '../../helpers/encryption-config';
import { startEtcd, type EtcdServer } from '../../helpers/etcd';
import { startInProcessServer, type InProcessServer } from '../../helpers/in-process-server';
import { buildReferenceApiserver, startReferenceApiserver } from '../../helpers/reference-apiserver';

/** The reference binary is built from its Go module when the cache lacks it. */
const BUILD_TIMEOUT_MS = 40 * 60_000;

// tweetnacl is CommonJS without a default export; the test opens boxes with it, apart from capstan's code.
const nacl = require('tweetnacl') as {
  secretbox: { open(box: Uint8Array, nonce: Uint8Array, key: Uint8Array): Uint8Array | null };
};

const AES_KEY = Buffer.alloc(32, 0x11);
const GCM_KEY = Buffer.alloc(16, 0x22);
const BOX_KEY = Buffer.alloc(32, 0x33);

const dir = mkdtempSync(join(tmpdir(), 'encryption-providers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** secrets: aescbc, configmaps: aesgcm, limitranges: secretbox, serviceaccounts: identity first; anything else unnamed. */
const CBC = { aescbc: { keys: [{ name: 'cbc1', secret: AES_KEY.toString('base64') }] } };
const CONFIG = writeEncryptionConfiguration(join(dir, 'encryption.yaml'), [
  { resources: ['secrets'], providers: [CBC, IDENTITY] },
  {
    resources: ['configmaps'],
    providers: [{ aesgcm: { keys: [{ name: 'gcm1', secret: GCM_KEY.toString('base64') }] } }],
  },
  {
    resources: ['limitranges'],
    providers: [{ secretbox: { keys: [{ name: 'box1', secret: BOX_KEY.toString('base64') }] } }],
  },
  { resources: ['serviceaccounts'], providers: [IDENTITY, CBC] },
]);

interface Sample {
  readonly resource: string;
  readonly path: string;
  readonly body: (name: string) => object;
  readonly prefix: string;
  /** The test's own decryption of what follows the prefix, from the format alone. */
  readonly open: (sealed: Buffer, key: string) => Buffer;
}

function openCbc(sealed: Buffer): Buffer {
  const decipher = createDecipheriv('aes-256-cbc', AES_KEY, sealed.subarray(0, 16));
  return Buffer.concat([decipher.update(sealed.subarray(16)), decipher.final()]);
}

function openGcm(sealed: Buffer, key: string): Buffer {
  const decipher = createDecipheriv('aes-128-gcm', GCM_KEY, sealed.subarray(0, 12));
  decipher.setAAD(Buffer.from(key));
  decipher.setAuthTag(sealed.subarray(sealed.length - 16));
  return Buffer.concat([decipher.update(sealed.subarray(12, sealed.length - 16)), decipher.final()]);
}

function openBox(sealed: Buffer): Buffer {
  const opened = nacl.secretbox.open(sealed.subarray(24), sealed.subarray(0, 24), BOX_KEY);
  if (opened === null) throw new Error('the box does not open');
  return Buffer.from(opened);
}

const SAMPLES: readonly Sample[] = [
  {
    resource: 'secrets',
    path: '/api/v1/namespaces/default/secrets',
    body: (name) => ({ metadata: { name }, stringData: { password: 'hunter2' } }),
    prefix: 'k8s:enc:aescbc:v1:cbc1:',
    open: openCbc,
  },
  {
    resource: 'configmaps',
    path: '/api/v1/namespaces/default/configmaps',
    body: (name) => ({ metadata: { name }, data: { colour: 'teal' } }),
    prefix: 'k8s:enc:aesgcm:v1:gcm1:',
    open: openGcm,
  },
  {
    resource: 'limitranges',
    path: '/api/v1/namespaces/default/limitranges',
    body: (name) => ({ metadata: { name }, spec: { limits: [{ type: 'Container', max: { cpu: '2' } }] } }),
    prefix: 'k8s:enc:secretbox:v1:box1:',
    open: openBox,
  },
];

/** The stored bytes of `key`: `store` reads the backend directly, under the server. */
async function rawValue(store: RevisionedStore | (() => Promise<RevisionedStore>), key: string): Promise<Buffer> {
  const opened = typeof store === 'function' ? await store() : store;
  const { kv } = await opened.get(key).finally(() => (opened === store ? undefined : opened.close()));
  if (kv === undefined) throw new Error(`${key} is not stored`);
  return kv.value;
}

async function expectCapstanEnvelopes(
  server: InProcessServer,
  raw: RevisionedStore | (() => Promise<RevisionedStore>),
): Promise<void> {
  for (const sample of SAMPLES) {
    const name = `capstan-${sample.resource}`;
    expect(
      (
        await server.request('POST', sample.path, {
          body: JSON.stringify(sample.body(name)),
          headers: { 'content-type': 'application/json' },
        })
      ).status,
    ).toBe(201);
    const key = `/registry/${sample.resource}/default/${name}`;
    const value = await rawValue(raw, key);
    expect(value.subarray(0, sample.prefix.length).toString()).toBe(sample.prefix);
    // The plaintext is the value as stored unencrypted: the protobuf envelope, the name in it.
    const plain = sample.open(value.subarray(sample.prefix.length), key);
    expect(plain.subarray(0, PROTOBUF_MAGIC.length)).toEqual(PROTOBUF_MAGIC);
    expect(plain.includes(Buffer.from(name))).toBe(true);
    // And capstan reads it back.
    const read = await server.request('GET', `${sample.path}/${name}`);
    expect(read.status).toBe(200);
    expect(read.json<{ metadata: { name: string } }>().metadata.name).toBe(name);
  }
  // identity first: written plain; a resource the configuration does not name: plain too.
  expect(
    (
      await server.request('POST', '/api/v1/namespaces/default/serviceaccounts', {
        body: JSON.stringify({ metadata: { name: 'plain-sa' } }),
        headers: { 'content-type': 'application/json' },
      })
    ).status,
  ).toBe(201);
  for (const key of ['/registry/serviceaccounts/default/plain-sa', '/registry/namespaces/default']) {
    expect((await rawValue(raw, key)).subarray(0, PROTOBUF_MAGIC.length)).toEqual(PROTOBUF_MAGIC);
  }
}

describe('static providers on SQLite', () => {
  let server: InProcessServer;
  // Opened for each read: a SQLite store reads the revision it knows of, which another connection's writes do not advance.
  const raw = () => openSqliteStore({ path: join(server.dataDir, 'capstan.db') });
  beforeAll(async () => {
    server = await startInProcessServer([`--encryption-provider-config=${CONFIG}`]);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("stores each provider's envelope, which opens with the key alone", async () => {
    await expectCapstanEnvelopes(server, raw);
  });

  it('lists and watches the decrypted objects', async () => {
    const list = await server.request('GET', '/api/v1/namespaces/default/secrets');
    expect(list.json<{ items: Array<{ data: Record<string, string> }> }>().items[0].data.password).toBe(
      Buffer.from('hunter2').toString('base64'),
    );
    const watch = await server.request('GET', '/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=1');
    expect(watch.body).toContain('"colour":"teal"');
  });
});

describe('static providers on etcd, against the reference kube-apiserver', () => {
  beforeAll(() => buildReferenceApiserver(BUILD_TIMEOUT_MS), BUILD_TIMEOUT_MS);
  let referenceEtcd: EtcdServer;
  let capstanEtcd: EtcdServer;
  let referenceRaw: RevisionedStore;
  let capstanRaw: RevisionedStore;
  let server: InProcessServer;

  beforeAll(async () => {
    [referenceEtcd, capstanEtcd] = await Promise.all([startEtcd(), startEtcd()]);
    [referenceRaw, capstanRaw] = await Promise.all([
      openEtcdStore({ endpoints: referenceEtcd.endpoints }),
      openEtcdStore({ endpoints: capstanEtcd.endpoints }),
    ]);
    server = await startInProcessServer([
      `--encryption-provider-config=${CONFIG}`,
      `--etcd-servers=${capstanEtcd.endpoints[0]}`,
    ]);
  }, 90_000);
  afterAll(async () => {
    await server?.stop();
    await Promise.all([referenceRaw?.close(), capstanRaw?.close()]);
    await Promise.all([referenceEtcd?.stop(), capstanEtcd?.stop()]);
  });

  it("stores each provider's envelope on etcd, which opens with the key alone", async () => {
    await expectCapstanEnvelopes(server, capstanRaw);
  });

  it('opens what the reference stored, and the reference serves what capstan stored', async () => {
    const reference = await startReferenceApiserver({
      etcdServers: [referenceEtcd.endpoints[0]],
      flags: [`--encryption-provider-config=${CONFIG}`],
    });
    try {
      const transformers = buildTransformers(loadEncryptionConfiguration(CONFIG, false), {
        record: () => undefined,
        kms: () => {
          throw new Error('no kms');
        },
      });
      for (const sample of SAMPLES) {
        const name = `reference-${sample.resource}`;
        expect(
          (
            await reference.request('POST', sample.path, {
              body: JSON.stringify(sample.body(name)),
              headers: { 'content-type': 'application/json' },
            })
          ).status,
        ).toBe(201);
        const key = `/registry/${sample.resource}/default/${name}`;
        const value = await rawValue(referenceRaw, key);
        expect(value.subarray(0, sample.prefix.length).toString()).toBe(sample.prefix);
        const { data, stale } = await transformers
          .transformerFor({ group: '', resource: sample.resource })
          .fromStorage(value, { key, resource: sample.resource });
        expect(stale).toBe(false);
        // The reference's protobuf envelope, carrying the object's name.
        expect(data.subarray(0, 4).toString('latin1')).toBe('k8s\u0000');
        expect(data.includes(Buffer.from(name))).toBe(true);

        // capstan's value, put under the same key of the reference's etcd (the key is the
        // authenticated data of aesgcm), is read by the reference.
        const capstanName = `capstan-${sample.resource}`;
        const capstanKey = `/registry/${sample.resource}/default/${capstanName}`;
        await referenceRaw.create(capstanKey, await rawValue(capstanRaw, capstanKey));
        const served = await reference.request('GET', `${sample.path}/${capstanName}`);
        expect(served.status).toBe(200);
        expect(served.json<{ metadata: { name: string } }>().metadata.name).toBe(capstanName);
      }
      const secret = await reference.request('GET', '/api/v1/namespaces/default/secrets/capstan-secrets');
      expect(secret.json<{ data: Record<string, string> }>().data.password).toBe(
        Buffer.from('hunter2').toString('base64'),
      );
    } finally {
      await reference.stop();
    }
  }, 120_000);
});
