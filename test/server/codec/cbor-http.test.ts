/**
 * CBOR over HTTP through the real resource handlers with `CBORServingAndStorage` on (and off):
 * a port-0 HTTP server with the built-in registry and a real SQLite store in a temp dir.
 */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { decodeCbor, decodeCborSequence, encodeCbor, SELF_DESCRIBED_CBOR } from '../../../server/codec/cbor';
import type { JsonObject } from '../../../server/codec/protobuf';
import { openTestStore, serveResourceApi, type ServedApi, type TestStore } from '../../helpers/in-process-api';

let testStore: TestStore;
const apis: ServedApi[] = [];
let port: number;
let portWithoutGate: number;

beforeAll(async () => {
  testStore = await openTestStore();
  for (const cbor of [true, false])
    apis.push(await serveResourceApi(testStore.storageFor, { representations: { cbor, compression: true } }));
  [port, portWithoutGate] = apis.map((api) => api.port);
});

afterAll(async () => {
  for (const api of apis) await api.close();
  await testStore.close();
});

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

function call(
  method: string,
  path: string,
  options: { body?: Buffer | string; headers?: Record<string, string>; port?: number } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port: options.port ?? port, method, path, headers: options.headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

const CBOR = 'application/cbor';
const CMS = '/api/v1/namespaces/default/configmaps';
const SECRETS = '/api/v1/namespaces/default/secrets';

describe('CBOR with CBORServingAndStorage', () => {
  test('create with a CBOR body and a CBOR answer, prefixed by the self-described tag', async () => {
    const body = encodeCbor({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1' }, data: { a: '1' } });
    const created = await call('POST', CMS, { body, headers: { 'content-type': CBOR, accept: CBOR } });
    expect(created.status).toBe(201);
    expect(created.headers['content-type']).toBe(CBOR);
    expect(created.body.subarray(0, 3)).toEqual(SELF_DESCRIBED_CBOR);
    expect(decodeCbor(created.body)).toMatchObject({
      kind: 'ConfigMap',
      metadata: { name: 'c1', namespace: 'default' },
      data: { a: '1' },
    });
  });

  test('a Go []byte field sent as a byte string tagged 22 is stored as base64', async () => {
    // {"metadata": {"name": "s1"}, "data": {"k": 22(h'fbff')}} with text-string keys, as other encoders write
    const body = Buffer.from([
      0xa2,
      0x68,
      ...Buffer.from('metadata'),
      0xa1,
      0x64,
      ...Buffer.from('name'),
      0x62,
      ...Buffer.from('s1'),
      0x64,
      ...Buffer.from('data'),
      0xa1,
      0x61,
      0x6b,
      0xd6,
      0x42,
      0xfb,
      0xff,
    ]);
    const created = await call('POST', SECRETS, {
      body,
      headers: { 'content-type': CBOR, accept: 'application/json' },
    });
    expect(created.status).toBe(201);
    expect(JSON.parse(created.body.toString()).data).toEqual({ k: '+/8=' });
  });

  test('duplicate map keys are a 400', async () => {
    // {"metadata": {"name": "d"}, "metadata": {"name": "e"}}
    const name = (value: string) => [0xa1, 0x44, ...Buffer.from('name'), 0x41, ...Buffer.from(value)];
    const body = Buffer.from([
      0xa2,
      0x48,
      ...Buffer.from('metadata'),
      ...name('d'),
      0x48,
      ...Buffer.from('metadata'),
      ...name('e'),
    ]);
    const answer = await call('POST', CMS, { body, headers: { 'content-type': CBOR, accept: 'application/json' } });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body.toString()).message).toContain(
      'cbor: found duplicate map key "metadata" at map element index 1',
    );
  });

  test('lists, metadata-only lists and tables in CBOR', async () => {
    const list = decodeCbor((await call('GET', CMS, { headers: { accept: CBOR } })).body) as JsonObject;
    expect(list).toMatchObject({ kind: 'ConfigMapList', apiVersion: 'v1', items: [{ metadata: { name: 'c1' } }] });
    const metadata = decodeCbor(
      (await call('GET', CMS, { headers: { accept: `${CBOR};as=PartialObjectMetadataList;g=meta.k8s.io;v=v1` } })).body,
    ) as JsonObject;
    expect(metadata).toMatchObject({
      kind: 'PartialObjectMetadataList',
      items: [{ kind: 'PartialObjectMetadata', metadata: { name: 'c1' } }],
    });
    const table = decodeCbor(
      (await call('GET', CMS, { headers: { accept: `${CBOR};as=Table;g=meta.k8s.io;v=v1` } })).body,
    ) as JsonObject;
    expect(table).toMatchObject({ kind: 'Table', rows: [{ cells: ['c1', 1, expect.any(String)] }] });
  });

  test('a watch is a CBOR sequence (application/cbor-seq)', async () => {
    const listed = decodeCbor((await call('GET', CMS, { headers: { accept: CBOR } })).body) as JsonObject;
    const resourceVersion = (listed.metadata as JsonObject).resourceVersion as string;
    const watching = call('GET', `${CMS}?watch=1&resourceVersion=${resourceVersion}&timeoutSeconds=1`, {
      headers: { accept: CBOR },
    });
    // No wait for the watch to open: it starts from the list's resourceVersion, so it replays what is written meanwhile.
    await call('POST', CMS, { body: encodeCbor({ metadata: { name: 'c2' } }), headers: { 'content-type': CBOR } });
    const answer = await watching;
    expect(answer.headers['content-type']).toBe('application/cbor-seq');
    const events = decodeCborSequence(answer.body) as JsonObject[];
    expect(events.map((event) => [event.type, ((event.object as JsonObject).metadata as JsonObject).name])).toEqual([
      ['ADDED', 'c2'],
    ]);
  });
});

describe('CBOR without the gate', () => {
  test('a CBOR body is a 415 and a CBOR-only Accept a 406', async () => {
    const body = encodeCbor({ metadata: { name: 'x' } });
    const unsupported = await call('POST', CMS, { body, headers: { 'content-type': CBOR }, port: portWithoutGate });
    expect(unsupported.status).toBe(415);
    const notAcceptable = await call('GET', CMS, { headers: { accept: CBOR }, port: portWithoutGate });
    expect(notAcceptable.status).toBe(406);
  });
});
