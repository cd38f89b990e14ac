/**
 * Representations over HTTP through the real resource handlers: a port-0 HTTP server with the
 * built-in registry and a real SQLite store in a temp dir. Each negotiation edge is a named case.
 */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { parse as parseYaml } from 'yaml';
import { decodeObject, decodeWatchEvent, encodeEnvelope } from '../../../server/codec/protobuf-envelope';
import type { JsonObject } from '../../../server/codec/protobuf';
import { openTestStore, serveResourceApi, type ServedApi, type TestStore } from '../../helpers/in-process-api';

let testStore: TestStore;
let api: ServedApi;
let port: number;

beforeAll(async () => {
  testStore = await openTestStore();
  api = await serveResourceApi(testStore.storageFor);
  port = api.port;
});

afterAll(async () => {
  await api.close();
  await testStore.close();
});

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** Raw HTTP (fetch would gunzip and hide Content-Encoding). */
function call(
  method: string,
  path: string,
  options: { body?: Buffer | string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, method, path, headers: { 'user-agent': 'codec-test/v1.0', ...options.headers } },
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

function json(answer: Answer): JsonObject {
  return JSON.parse(answer.body.toString('utf8')) as JsonObject;
}

const PODS = '/api/v1/namespaces/default/pods';
const CMS = '/api/v1/namespaces/default/configmaps';
const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const TABLE =
  'application/json;as=Table;v=v1;g=meta.k8s.io, application/json;as=Table;v=v1beta1;g=meta.k8s.io, application/json';

const pod: JsonObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web-0', labels: { app: 'web' } },
  spec: { containers: [{ name: 'web', image: 'nginx:1.27', ports: [{ containerPort: 80 }] }] },
};

describe('protobuf over HTTP', () => {
  test('create with a protobuf body and a protobuf answer; get in protobuf', async () => {
    const created = await call('POST', PODS, {
      body: encodeEnvelope(pod),
      headers: { 'content-type': PROTOBUF, accept: `${PROTOBUF}, application/json` },
    });
    expect(created.status).toBe(201);
    expect(created.headers['content-type']).toBe(PROTOBUF);
    const object = decodeObject(created.body);
    expect(object).toMatchObject({ kind: 'Pod', metadata: { name: 'web-0', namespace: 'default' } });
    const got = await call('GET', `${PODS}/web-0`, { headers: { accept: PROTOBUF } });
    expect(decodeObject(got.body)).toEqual(object);
  });

  test('a Status error is protobuf for a protobuf client', async () => {
    const missing = await call('GET', `${PODS}/nope`, { headers: { accept: PROTOBUF } });
    expect(missing.status).toBe(404);
    expect(missing.headers['content-type']).toBe(PROTOBUF);
    expect(decodeObject(missing.body)).toMatchObject({
      kind: 'Status',
      code: 404,
      reason: 'NotFound',
      message: 'pods "nope" not found',
    });
  });

  test('a list in protobuf', async () => {
    const listed = await call('GET', PODS, { headers: { accept: PROTOBUF } });
    const list = decodeObject(listed.body);
    expect(list).toMatchObject({ kind: 'PodList', apiVersion: 'v1' });
    expect((list.items as JsonObject[]).map((item) => (item.metadata as JsonObject).name)).toEqual(['web-0']);
  });

  test('metadata-only list in protobuf', async () => {
    const listed = await call('GET', PODS, {
      headers: { accept: `${PROTOBUF};as=PartialObjectMetadataList;g=meta.k8s.io;v=v1, application/json` },
    });
    const list = decodeObject(listed.body);
    expect(list).toMatchObject({
      kind: 'PartialObjectMetadataList',
      apiVersion: 'meta.k8s.io/v1',
      items: [{ metadata: { name: 'web-0' } }],
    });
    expect((list.items as JsonObject[])[0].spec).toBeUndefined();
  });
});

describe('lists written item by item', () => {
  /** Five config maps of 30 KB: the list is written in several pieces. */
  beforeAll(async () => {
    for (let index = 0; index < 5; index++) {
      const created = await call('POST', CMS, {
        body: JSON.stringify({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `big-${index}` },
          data: { blob: `${index}`.repeat(30_000) },
        }),
        headers: { 'content-type': 'application/json' },
      });
      expect(created.status).toBe(201);
    }
  });

  test('a JSON list is the compact JSON of the whole list', async () => {
    const text = (await call('GET', CMS, { headers: { accept: 'application/json' } })).body.toString('utf8');
    const list = JSON.parse(text) as JsonObject;
    expect(text).toBe(`${JSON.stringify(list)}\n`);
    expect(
      (list.items as JsonObject[]).filter((item) => String((item.metadata as JsonObject).name).startsWith('big-')),
    ).toHaveLength(5);
  });

  test("a JSON table of a list is the compact JSON of the whole table, rows in the list's order", async () => {
    const text = (await call('GET', `${CMS}?includeObject=Object`, { headers: { accept: TABLE } })).body.toString(
      'utf8',
    );
    const table = JSON.parse(text) as JsonObject;
    expect(text).toBe(`${JSON.stringify(table)}\n`);
    expect(Object.keys(table)).toEqual(['kind', 'apiVersion', 'metadata', 'columnDefinitions', 'rows']);
    const list = json(await call('GET', CMS, { headers: { accept: 'application/json' } }));
    // A row's object is whole; the list's items carry no apiVersion and kind (as the reference's).
    const items = (list.items as JsonObject[]).map((item) => ({ apiVersion: 'v1', kind: 'ConfigMap', ...item }));
    expect((table.rows as JsonObject[]).map((row) => row.object)).toEqual(items);
  });

  test('a pretty table is written whole, pretty, without a final newline (as Go indents)', async () => {
    const text = (await call('GET', `${CMS}?pretty=true`, { headers: { accept: TABLE } })).body.toString('utf8');
    expect(text).toBe(JSON.stringify(JSON.parse(text), null, 2));
  });
});

describe('tables', () => {
  test('kubectl get pods: the reference columns and a PartialObjectMetadata per row', async () => {
    const answer = await call('GET', PODS, { headers: { accept: TABLE } });
    const table = json(answer);
    expect(table.kind).toBe('Table');
    expect((table.columnDefinitions as JsonObject[]).map((column) => column.name)).toEqual([
      'Name',
      'Ready',
      'Status',
      'Restarts',
      'Age',
      'IP',
      'Node',
      'Nominated Node',
      'Readiness Gates',
    ]);
    const row = (table.rows as JsonObject[])[0];
    expect((row.cells as unknown[]).slice(0, 4)).toEqual(['web-0', '0/1', 'Pending', '0']);
    expect(row.object).toMatchObject({
      kind: 'PartialObjectMetadata',
      apiVersion: 'meta.k8s.io/v1',
      metadata: { name: 'web-0' },
    });
    expect((table.metadata as JsonObject).resourceVersion).toMatch(/^\d+$/);
  });

  test('includeObject=None and Object', async () => {
    const none = json(await call('GET', `${PODS}?includeObject=None`, { headers: { accept: TABLE } }));
    expect((none.rows as JsonObject[])[0].object).toBeNull();
    const whole = json(await call('GET', `${PODS}/web-0?includeObject=Object`, { headers: { accept: TABLE } }));
    expect((whole.rows as JsonObject[])[0].object).toMatchObject({ kind: 'Pod', spec: {} });
  });

  test('a kind without a printer gets Name and Created At', async () => {
    await call('POST', '/api/v1/namespaces/default/limitranges', {
      body: JSON.stringify({
        apiVersion: 'v1',
        kind: 'LimitRange',
        metadata: { name: 'limits' },
        spec: { limits: [{ type: 'Container', default: { cpu: '100m' } }] },
      }),
      headers: { 'content-type': 'application/json' },
    });
    const table = json(await call('GET', '/api/v1/namespaces/default/limitranges', { headers: { accept: TABLE } }));
    expect(table.columnDefinitions).toEqual([
      expect.objectContaining({ name: 'Name', type: 'string', format: 'name', priority: 0 }),
      expect.objectContaining({ name: 'Created At', type: 'date', priority: 0 }),
    ]);
  });

  test('a Table in protobuf only → 406', async () => {
    const answer = await call('GET', PODS, { headers: { accept: `${PROTOBUF};as=Table;v=v1;g=meta.k8s.io` } });
    expect(answer.status).toBe(406);
    expect(json(answer).message).toBe(
      'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf',
    );
  });

  test('a watch streams one-row tables, column definitions in the first event only (null after, as the reference writes them)', async () => {
    const listed = json(await call('GET', CMS, {}));
    const resourceVersion = (listed.metadata as JsonObject).resourceVersion as string;
    const watching = call('GET', `${CMS}?watch=1&resourceVersion=${resourceVersion}&timeoutSeconds=1`, {
      headers: { accept: TABLE },
    });
    // No wait for the watch to open: it starts from the list's resourceVersion, so it replays what is written meanwhile.
    for (const name of ['w1', 'w2']) {
      await call('POST', CMS, {
        body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: '1' } }),
        headers: { 'content-type': 'application/json' },
      });
    }
    const events = (await watching).body
      .toString('utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; object: JsonObject });
    expect(events.map((event) => [event.type, ((event.object.rows as JsonObject[])[0].cells as unknown[])[0]])).toEqual(
      [
        ['ADDED', 'w1'],
        ['ADDED', 'w2'],
      ],
    );
    expect(events[0].object.columnDefinitions).toBeDefined();
    expect(Object.keys(events[1].object)).toEqual(['kind', 'apiVersion', 'metadata', 'columnDefinitions', 'rows']);
    expect(events[1].object.columnDefinitions).toBeNull();
  });

  test('a watch-list as tables sends the initial rows, then a one-row bookmark whose object carries the initial-events-end annotation', async () => {
    for (const name of ['l1', 'l2']) {
      await call('POST', CMS, {
        body: JSON.stringify({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name, labels: { watchlist: 'table' } },
        }),
        headers: { 'content-type': 'application/json' },
      });
    }
    // includeObject=None: the reference still gives the end bookmark's row its metadata, for the annotation.
    const query =
      'watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&labelSelector=watchlist%3Dtable&includeObject=None&timeoutSeconds=1';
    const answer = await call('GET', `${CMS}?${query}`, { headers: { accept: TABLE } });
    const events = answer.body
      .toString('utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; object: JsonObject });
    const rows = (event: { object: JsonObject }) => event.object.rows as JsonObject[];
    expect(events.map((event) => [event.type, rows(event).length])).toEqual([
      ['ADDED', 1],
      ['ADDED', 1],
      ['BOOKMARK', 1],
    ]);
    expect(rows(events[0]).map((row) => (row.cells as unknown[])[0])).toEqual(['l1']);
    expect(rows(events[0])[0].object).toBeNull();
    const bookmarkObject = rows(events[2])[0].object as JsonObject;
    expect(bookmarkObject.kind).toBe('PartialObjectMetadata');
    expect((bookmarkObject.metadata as JsonObject).annotations).toEqual({ 'k8s.io/initial-events-end': 'true' });
  });
});

describe('negotiation edges', () => {
  test('unknown type → 406 in JSON', async () => {
    const answer = await call('GET', PODS, { headers: { accept: 'text/html' } });
    expect(answer.status).toBe(406);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(json(answer)).toMatchObject({ kind: 'Status', code: 406, reason: 'NotAcceptable' });
  });

  test('a 406 comes before a write', async () => {
    const answer = await call('POST', CMS, {
      body: JSON.stringify({ metadata: { name: 'never' } }),
      headers: { 'content-type': 'application/json', accept: 'text/html' },
    });
    expect(answer.status).toBe(406);
    expect((await call('GET', `${CMS}/never`)).status).toBe(404);
  });

  test('an unknown body type → 415', async () => {
    const answer = await call('POST', CMS, { body: 'x', headers: { 'content-type': 'text/plain' } });
    expect(answer.status).toBe(415);
    expect(json(answer).message).toBe(
      'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf',
    );
  });

  test('YAML answers', async () => {
    const answer = await call('GET', `${PODS}/web-0`, { headers: { accept: 'application/yaml' } });
    expect(answer.headers['content-type']).toBe('application/yaml');
    expect(parseYaml(answer.body.toString('utf8'))).toMatchObject({ kind: 'Pod', metadata: { name: 'web-0' } });
  });

  test('pretty=true indents JSON', async () => {
    const answer = await call('GET', `${PODS}/web-0?pretty=true`);
    expect(answer.body.toString('utf8')).toContain('\n  "kind": "Pod"');
  });

  test('metadata of a list asked as a single PartialObjectMetadata → 406', async () => {
    const answer = await call('GET', PODS, {
      headers: { accept: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1' },
    });
    expect(answer.status).toBe(406);
    expect(json(answer).message).toBe(
      'you requested PartialObjectMetadata, but the requested object is a list (*core.PodList)',
    );
  });
});

describe('compression and streaming', () => {
  beforeAll(async () => {
    const data = { blob: 'x'.repeat(20_000) };
    for (let index = 0; index < 10; index++) {
      await call('POST', CMS, {
        body: JSON.stringify({ metadata: { name: `big-${index}` }, data }),
        headers: { 'content-type': 'application/json' },
      });
    }
  });

  test('a list above 128 KiB is gzipped when asked, and decodes to the same list', async () => {
    const zipped = await call('GET', CMS, { headers: { 'accept-encoding': 'gzip' } });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    const plain = await call('GET', CMS);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(gunzipSync(zipped.body).toString('utf8'))).toEqual(json(plain));
    expect((json(plain).items as JsonObject[]).length).toBeGreaterThanOrEqual(10);
  });

  test('a small answer is not compressed', async () => {
    const answer = await call('GET', `${PODS}/web-0`, { headers: { 'accept-encoding': 'gzip' } });
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(answer.headers['content-length']).toBe(String(answer.body.length));
  });

  test('a protobuf watch sends length-prefixed WatchEvents carrying enveloped objects', async () => {
    const listed = json(await call('GET', PODS));
    const resourceVersion = (listed.metadata as JsonObject).resourceVersion as string;
    const watching = call('GET', `${PODS}?watch=1&resourceVersion=${resourceVersion}&timeoutSeconds=1`, {
      headers: { accept: `${PROTOBUF};stream=watch, application/json` },
    });
    // No wait for the watch to open: it starts from the list's resourceVersion, so it replays what is written meanwhile.
    await call('POST', PODS, {
      body: JSON.stringify({ ...pod, metadata: { name: 'web-1' } }),
      headers: { 'content-type': 'application/json' },
    });
    const answer = await watching;
    expect(answer.headers['content-type']).toBe(`${PROTOBUF};stream=watch`);
    const length = answer.body.readUInt32BE(0);
    const event = decodeWatchEvent(answer.body.subarray(4, 4 + length));
    expect(event.type).toBe('ADDED');
    expect(decodeObject(event.object)).toMatchObject({ kind: 'Pod', metadata: { name: 'web-1' } });
  });
});
