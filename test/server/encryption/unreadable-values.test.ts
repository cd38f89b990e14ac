/**
 * Objects whose stored values cannot be read, answered as kube-apiserver 1.34.4 answers them,
 * with the feature gate AllowUnsafeMalformedObjectDeletion off and on. ConfigMaps are encrypted
 * with aescbc, aesgcm and secretbox under a key named `kept`; the test stores, beside a readable
 * ConfigMap of each namespace, a value under a key `gone` that the configuration no longer
 * holds, and bytes that are no object at all.
 *
 * unreadable-values.reference.json holds the reference's answers to GET, LIST, a paged LIST and
 * WATCH (from now, from 0, open when such a value is written, and open when it is deleted: by
 * hand with the gate off, by the forced delete with it on), and to writes of such an object (put,
 * merge patch, apply, delete), for the encrypted ones,
 * recorded with the reference and capstan on one etcd under this very configuration and
 * `--watch-cache-sizes=configmaps#0`: capstan must answer byte for byte the same. (With its watch
 * cache, the reference's cache of the resource stops at the unreadable event and goes on
 * serving its older state, then answers 429 while it cannot list again: not reproduced.) For
 * the undecodable bytes, the decoder's own words differ (Go's protobuf library against
 * capstan's); the rest of the answer has the reference's form.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEtcdStore } from '../../../storage/etcd/etcd-store';
import type { RevisionedStore } from '../../../storage/store';
import { IDENTITY, writeEncryptionConfiguration } from '../../helpers/encryption-config';
import { startEtcd, type EtcdServer } from '../../helpers/etcd';
import { startInProcessServer, type InProcessServer } from '../../helpers/in-process-server';
import type { HttpResult } from '../../helpers/server';
import { openWatchStream } from '../../cluster/watch-client';
import reference from './unreadable-values.reference.json';

const KEY = Buffer.alloc(32, 0x41).toString('base64');
const PROVIDERS = ['aescbc', 'aesgcm', 'secretbox'] as const;
const dir = mkdtempSync(join(tmpdir(), 'unreadable-values-'));
const CONFIG = writeEncryptionConfiguration(join(dir, 'encryption.yaml'), [
  {
    resources: ['configmaps'],
    providers: [
      { aescbc: { keys: [{ name: 'kept', secret: KEY }] } },
      { aesgcm: { keys: [{ name: 'kept', secret: KEY }] } },
      { secretbox: { keys: [{ name: 'kept', secret: KEY }] } },
      IDENTITY,
    ],
  },
]);

/** What each namespace's `broken` ConfigMap holds: a value sealed under a key the configuration lacks, or no object. */
const BROKEN: Record<(typeof PROVIDERS)[number] | 'undecodable', Buffer> = {
  aescbc: Buffer.concat([Buffer.from('k8s:enc:aescbc:v1:gone:'), Buffer.alloc(48, 7)]),
  aesgcm: Buffer.concat([Buffer.from('k8s:enc:aesgcm:v1:gone:'), Buffer.alloc(48, 7)]),
  secretbox: Buffer.concat([Buffer.from('k8s:enc:secretbox:v1:gone:'), Buffer.alloc(48, 7)]),
  // The protobuf envelope with a field of wire type 6, which does not exist.
  undecodable: Buffer.from('k8s\u0000\n\u0002v1\u0012\tConfigMap\u001a\u0005\u0010garbage'),
};
const CAPSTAN_DECODER_ERROR = 'unable to decode protobuf envelope: invalid wire type 6 at offset 3';

let etcd: EtcdServer;
let raw: RevisionedStore;
beforeAll(async () => {
  etcd = await startEtcd();
  raw = await openEtcdStore({ endpoints: etcd.endpoints });
});
afterAll(async () => {
  await raw?.close();
  await etcd?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const json = { 'content-type': 'application/json' };
const configMaps = (namespace: string) => `/api/v1/namespaces/ns-${namespace}/configmaps`;

/** The events of a watch until the server ends it (a watch still open after 5 s fails the test). */
async function eventsUntilTheEnd(
  server: InProcessServer,
  path: string,
): Promise<Array<{ type: string; object: unknown }>> {
  const events: Array<{ type: string; object: unknown }> = [];
  const stream = openWatchStream({
    url: server.url,
    credentials: server.credentials,
    path,
    onEvent: (event) => events.push({ type: event.type, object: event.object }),
  });
  const timeout = new Promise<'open'>((resolve) => setTimeout(() => resolve('open'), 5_000).unref());
  const ending = await Promise.race([stream.ended, timeout]);
  stream.close();
  expect(ending).toEqual({ how: 'end', status: 200 });
  return events;
}

/** Status and body as the reference's recording keeps them: the body parsed, its fields in the order sent. */
function answerOf(result: HttpResult): { status: number; body: unknown } {
  return { status: result.status, body: JSON.parse(result.body) };
}

describe.each([
  { gate: 'off', recorded: reference.gateOff },
  { gate: 'on', recorded: reference.gateOn },
])('AllowUnsafeMalformedObjectDeletion $gate', ({ gate, recorded }) => {
  let server: InProcessServer;
  const brokenRevision: Record<string, number> = {};
  beforeAll(async () => {
    server = await startInProcessServer([
      `--etcd-servers=${etcd.endpoints.join(',')}`,
      `--encryption-provider-config=${CONFIG}`,
      `--feature-gates=AllowUnsafeMalformedObjectDeletion=${gate === 'on'}`,
      // Watches served by the store, as the reference's answers were recorded (see the file comment).
      '--watch-cache-sizes=configmaps#0',
    ]);
    for (const [namespace, value] of Object.entries(BROKEN)) {
      const created = await server.request('POST', '/api/v1/namespaces', {
        body: JSON.stringify({ metadata: { name: `ns-${namespace}` } }),
        headers: json,
      });
      expect([201, 409]).toContain(created.status);
      await server.request('POST', configMaps(namespace), {
        body: JSON.stringify({ metadata: { name: 'fine' } }),
        headers: json,
      });
      const key = `/registry/configmaps/ns-${namespace}/broken`;
      const existing = (await raw.get(key)).kv;
      const written = existing ? await raw.update(key, value, existing.modRevision) : await raw.create(key, value);
      brokenRevision[namespace] = written.revision;
    }
  }, 60_000);
  afterAll(() => server?.stop());

  test.each(PROVIDERS)(
    'a %s value whose key is gone: GET, LIST and a paged LIST answer as the reference',
    async (provider) => {
      const answers = {
        get: answerOf(await server.request('GET', `${configMaps(provider)}/broken`)),
        list: answerOf(await server.request('GET', configMaps(provider))),
        listLimit: answerOf(await server.request('GET', `${configMaps(provider)}?limit=1`)),
      };
      const { get, list, listLimit } = recorded[provider];
      expect(JSON.stringify(answers)).toBe(JSON.stringify({ get, list, listLimit }));
    },
  );

  test.each(PROVIDERS)(
    'a %s value whose key is gone: a watch from now or from 0 sends its error and ends, as the reference',
    async (provider) => {
      const watch = await eventsUntilTheEnd(server, `${configMaps(provider)}?watch=1`);
      const watch0 = await eventsUntilTheEnd(server, `${configMaps(provider)}?watch=1&resourceVersion=0`);
      const { watch: recordedWatch, watch0: recordedWatch0 } = recorded[provider];
      expect(JSON.stringify({ watch, watch0 })).toBe(JSON.stringify({ watch: recordedWatch, watch0: recordedWatch0 }));
    },
  );

  it('a watch open when a value it cannot open is written sends its error and ends, as the reference', async () => {
    const path = configMaps('live');
    const listed = answerOf(await server.request('GET', path)).body as { metadata: { resourceVersion: string } };
    const key = '/registry/configmaps/ns-live/broken';
    const events = eventsUntilTheEnd(server, `${path}?watch=1&resourceVersion=${listed.metadata.resourceVersion}`);
    // Written once the watch has started: a value under a key the configuration lacks.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const written = await raw.create(key, BROKEN.aesgcm);
    try {
      expect(JSON.stringify(await events)).toBe(JSON.stringify(recorded.liveWatch));
    } finally {
      await raw.delete(key, written.revision);
    }
  });

  it('a watch open when an unreadable value is deleted sends its error and ends, as the reference', async () => {
    const path = configMaps('deleted');
    const key = '/registry/configmaps/ns-deleted/broken';
    const written = await raw.create(key, BROKEN.aescbc);
    const events = eventsUntilTheEnd(server, `${path}?watch=1&resourceVersion=${written.revision}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
    if (gate === 'on') {
      // The forced delete the gate allows, as an operator removes what no key opens any more.
      const body = JSON.stringify({ ignoreStoreReadErrorWithClusterBreakingPotential: true });
      const deleted = await server.request('DELETE', `${path}/broken`, {
        body,
        headers: { ...json, 'content-length': String(Buffer.byteLength(body)) },
      });
      expect(JSON.stringify(answerOf(deleted))).toBe(JSON.stringify(reference.gateOn.forceDelete));
    } else {
      await raw.delete(key, written.revision);
    }
    expect(JSON.stringify(await events)).toBe(JSON.stringify(recorded.deletedWatch));
  });

  it('a put, a merge patch, an apply and a delete of an aescbc value whose key is gone answer as the reference', async () => {
    // The namespace the reference's answers were recorded in, which a delete's answer names.
    const namespace = `w-cbc-${gate === 'on'}`;
    const path = `/api/v1/namespaces/${namespace}/configmaps/broken`;
    const key = `/registry/configmaps/${namespace}/broken`;
    const written = await raw.create(key, BROKEN.aescbc);
    const data = { metadata: { name: 'broken' }, data: { a: 'b' } };
    try {
      const answers = {
        put: answerOf(await server.request('PUT', path, { body: JSON.stringify(data), headers: json })),
        patch: answerOf(
          await server.request('PATCH', path, {
            body: JSON.stringify({ data: data.data }),
            headers: { 'content-type': 'application/merge-patch+json' },
          }),
        ),
        apply: answerOf(
          await server.request('PATCH', `${path}?fieldManager=t`, {
            body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', ...data }),
            headers: { 'content-type': 'application/apply-patch+yaml' },
          }),
        ),
        delete: answerOf(await server.request('DELETE', path)),
      };
      expect(JSON.stringify(answers)).toBe(JSON.stringify(recorded.writes));
    } finally {
      await raw.delete(key, written.revision);
    }
  });

  it('a list of every namespace answers with the first unreadable key, or with all of them', async () => {
    const list = answerOf(await server.request('GET', '/api/v1/configmaps'));
    if (gate === 'off') {
      // The first key in the store's order: the reference's list stops there.
      expect(list).toEqual(recorded.aescbc.list);
      return;
    }
    const body = list.body as { reason: string; details: { causes: Array<{ field: string }> } };
    expect(list.status).toBe(500);
    expect(body.reason).toBe('StorageReadError');
    expect(body.details.causes.map((cause) => cause.field)).toEqual(
      ['aescbc', 'aesgcm', 'secretbox', 'undecodable']
        .sort()
        .map((namespace) => `/registry/configmaps/ns-${namespace}/broken`),
    );
  });

  it("bytes that are no object: the reference's answer in the decoder's words", async () => {
    const get = answerOf(await server.request('GET', `${configMaps('undecodable')}/broken`));
    const list = answerOf(await server.request('GET', configMaps('undecodable')));
    // A watch decodes with the bare codec whatever the gate, and wraps its error as an InternalError.
    expect(await eventsUntilTheEnd(server, `${configMaps('undecodable')}?watch=1`)).toEqual([
      {
        type: 'ERROR',
        object: expect.objectContaining({
          code: 500,
          reason: 'InternalError',
          message: `Internal error occurred: ${CAPSTAN_DECODER_ERROR}`,
        }),
      },
    ]);
    if (gate === 'off') {
      // A decoder's error is no API error: a 500 with its words and nothing else.
      const bare = {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: CAPSTAN_DECODER_ERROR,
      };
      expect(get).toEqual({ status: 500, body: expect.objectContaining({ ...bare, code: 500 }) });
      expect(get.body).not.toHaveProperty('details');
      expect(list).toEqual(get);
      return;
    }
    const storageError = (key: string) =>
      `StorageError: corrupt object, Code: 7, Key: ${key}, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=${brokenRevision.undecodable}: ${CAPSTAN_DECODER_ERROR}`;
    // A single object is named by its key below the etcd prefix, a list's by the whole key.
    const single = storageError('/configmaps/ns-undecodable/broken');
    expect(get).toEqual({
      status: 500,
      body: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: `Internal error occurred: ${single}`,
        reason: 'InternalError',
        details: { causes: [{ message: single }] },
        code: 500,
      },
    });
    const whole = '/registry/configmaps/ns-undecodable/broken';
    expect(list.body).toMatchObject({
      reason: 'StorageReadError',
      details: {
        name: 'list',
        kind: 'configmaps',
        causes: [{ reason: 'UnexpectedServerResponse', message: storageError(whole), field: whole }],
      },
    });
  });
});
