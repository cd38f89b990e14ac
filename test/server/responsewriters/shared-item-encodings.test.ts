/**
 * Answers written with kept encodings. A list (SharedItemEncodings), in compact JSON and in
 * protobuf, keeps each item's encoding with the object it was served from and writes it again in
 * the next list without encoding the item; a GET's object (KeptObjectEncoding) the same for the
 * whole answer. Every other form (pretty JSON, YAML, PartialObjectMetadata(List), tables)
 * encodes as before and keeps nothing. Written by writeList and writeObject to a real HTTP
 * response.
 */
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  writeList,
  writeObject,
  type Endpoint,
  type ItemEncodings,
  type KeptObjectEncoding,
  type SharedItemEncodings,
} from '../../../server/responsewriters/respond';
import { decodeObject } from '../../../server/codec/protobuf-envelope';
import type { KubeObject } from '../../../api/objects';

const ENDPOINT: Endpoint = { resource: { group: '', resource: 'configmaps' }, protobuf: true, table: true };
const HEAD = { apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '7' } };

function configMap(name: string, value: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'default', resourceVersion: '5' },
    data: { value },
  } as KubeObject;
}

let server: Server;
let answer: (req: IncomingMessage, res: ServerResponse) => Promise<void>;

beforeAll(async () => {
  server = createServer((req, res) => {
    answer(req, res).catch((error: unknown) => res.destroy(error as Error));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Kept encodings of none of the items yet. */
function keptNothing(sources: readonly object[]): SharedItemEncodings {
  return { sources, texts: new WeakMap(), messages: new WeakMap() };
}

/** The body `write` answers a request with `accept` (and `?pretty` when given in `path`). */
async function answered(
  write: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  accept: string,
  path: string,
): Promise<Buffer> {
  answer = write;
  const { port } = server.address() as AddressInfo;
  return new Promise<Buffer>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { accept } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve(Buffer.concat(chunks)));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** The body of a list of `items` written with `shared`. */
function listBody(
  items: readonly KubeObject[],
  shared: SharedItemEncodings | undefined,
  accept: string,
  path = '/',
): Promise<Buffer> {
  return answered(
    (req, res) => writeList({ req, res, endpoint: ENDPOINT, head: HEAD, items, ...(shared ? { shared } : {}) }),
    accept,
    path,
  );
}

/** The body of a GET's answer of `object` written with `kept`. */
function objectBody(
  object: KubeObject,
  kept: KeptObjectEncoding | undefined,
  accept: string,
  path = '/',
): Promise<Buffer> {
  return answered((req, res) => writeObject({ req, res, endpoint: ENDPOINT, code: 200, object, kept }), accept, path);
}

test('compact JSON keeps each item text with its source, and the next list writes the kept text', async () => {
  const sources = [configMap('a', 'one'), configMap('b', 'two')];
  // The items as served: new objects made from the sources, as a handler serves them each time.
  const served = () => sources.map((source) => ({ ...source }));
  const shared = keptNothing(sources);

  const first = await listBody(served(), shared, 'application/json');
  expect(first).toEqual(await listBody(served(), undefined, 'application/json'));
  expect(JSON.parse(first.toString())).toEqual({
    ...HEAD,
    items: sources.map(({ apiVersion: _a, kind: _k, ...item }) => item),
  });
  expect(sources.map((source) => shared.texts.get(source))).toEqual([
    '{"metadata":{"name":"a","namespace":"default","resourceVersion":"5"},"data":{"value":"one"}}',
    '{"metadata":{"name":"b","namespace":"default","resourceVersion":"5"},"data":{"value":"two"}}',
  ]);
  expect(shared.messages.has(sources[0])).toBe(false);

  // A kept text is what the next list writes for its source, not the item encoded again.
  shared.texts.set(sources[1], '{"kept":true}');
  const second = JSON.parse((await listBody(served(), shared, 'application/json')).toString()) as { items: unknown[] };
  expect(second.items).toEqual([{ metadata: sources[0].metadata, data: { value: 'one' } }, { kept: true }]);
});

test('protobuf keeps each item body with its source, and the next list writes the kept body', async () => {
  const protobuf = 'application/vnd.kubernetes.protobuf';
  const sources = [configMap('a', 'one'), configMap('b', 'two')];
  const served = () => sources.map((source) => ({ ...source }));
  const shared = keptNothing(sources);
  const itemsOf = (body: Buffer) => (decodeObject(body) as { items: unknown[] }).items;

  const first = await listBody(served(), shared, protobuf);
  expect(first).toEqual(await listBody(served(), undefined, protobuf));
  expect(itemsOf(first)).toEqual(sources.map(({ apiVersion: _a, kind: _k, ...item }) => item));
  expect(sources.every((source) => shared.messages.has(source))).toBe(true);
  // Each kept body holds memory of its own, not a slice of Node's shared buffer pool.
  expect(sources.map((source) => shared.messages.get(source)!.buffer.byteLength)).toEqual(
    sources.map((source) => shared.messages.get(source)!.length),
  );
  expect(shared.texts.has(sources[0])).toBe(false);

  // The body kept for another ConfigMap, kept for the second source, is what the next list writes.
  const other = configMap('c', 'three');
  const kept = keptNothing([other]);
  await listBody([other], kept, protobuf);
  shared.messages.set(sources[1], kept.messages.get(other)!);
  expect(itemsOf(await listBody(served(), shared, protobuf))).toEqual([
    { metadata: sources[0].metadata, data: { value: 'one' } },
    { metadata: other.metadata, data: { value: 'three' } },
  ]);
});

/** Kept encodings of a GET's object, none yet. */
function keptNothingFor(source: object): KeptObjectEncoding {
  return { source, texts: new WeakMap(), messages: new WeakMap() };
}

test.each([
  ['compact JSON', 'application/json', 'texts'],
  ['protobuf', 'application/vnd.kubernetes.protobuf', 'messages'],
] as const)('%s keeps a GET answer with its source, and the next GET writes it', async (_form, accept, map) => {
  const source = configMap('a', 'one');
  const kept = keptNothingFor(source);

  const first = await objectBody({ ...source }, kept, accept);
  expect(first).toEqual(await objectBody({ ...source }, undefined, accept));
  expect(kept[map].has(source)).toBe(true);
  if (map === 'messages') expect(kept.messages.get(source)!.buffer.byteLength).toBe(kept.messages.get(source)!.length);
  expect(kept[map === 'texts' ? 'messages' : 'texts'].has(source)).toBe(false);

  // What is kept for the source is what the next answer writes, whatever object is served.
  expect(await objectBody(configMap('a', 'changed'), kept, accept)).toEqual(first);
  // Another source is encoded and kept on its own.
  const other = configMap('b', 'two');
  const answered = await objectBody(other, { ...kept, source: other }, accept);
  expect(answered).toEqual(await objectBody(other, undefined, accept));
  expect(answered).not.toEqual(first);
});

/** How a test answers with one object and the encodings kept for it: as a list of it, or as a GET of it. */
type Writer = (source: KubeObject, kept: ItemEncodings, accept: string, path: string) => Promise<Buffer>;
const aList: Writer = (source, kept, accept, path) => listBody([source], { sources: [source], ...kept }, accept, path);
const aGet: Writer = (source, kept, accept, path) => objectBody(source, { source, ...kept }, accept, path);
const TABLE = 'application/json;as=Table;g=meta.k8s.io;v=v1';
const METADATA = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1';
const METADATA_LIST = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';
const PROTOBUF_METADATA = 'application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1';
const PROTOBUF_METADATA_LIST = 'application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';
const KEEPING_NOTHING: ReadonlyArray<readonly [string, Writer, string, string]> = [
  ['a list in pretty JSON', aList, 'application/json', '/?pretty=true'],
  ['a list in YAML', aList, 'application/yaml', '/'],
  ['PartialObjectMetadataList', aList, METADATA_LIST, '/'],
  ['PartialObjectMetadataList in protobuf', aList, PROTOBUF_METADATA_LIST, '/'],
  ['a list as a Table', aList, TABLE, '/'],
  ['a GET in pretty JSON', aGet, 'application/json', '/?pretty=true'],
  ['a GET in YAML', aGet, 'application/yaml', '/'],
  ['PartialObjectMetadata', aGet, METADATA, '/'],
  ['PartialObjectMetadata in protobuf', aGet, PROTOBUF_METADATA, '/'],
  ['a GET as a Table', aGet, TABLE, '/'],
];

test.each(KEEPING_NOTHING)('%s neither uses nor keeps an encoding', async (_form, write, accept, path) => {
  const source = configMap('alpha', 'one');
  const kept: ItemEncodings = { texts: new WeakMap(), messages: new WeakMap() };
  kept.texts.set(source, '{"kept":true}');
  kept.messages.set(source, Buffer.from('kept'));
  const fresh: ItemEncodings = { texts: new WeakMap(), messages: new WeakMap() };

  const body = (await write(source, kept, accept, path)).toString('latin1');
  expect(body).not.toContain('kept');
  expect(body).toContain('alpha');
  expect((await write(source, fresh, accept, path)).toString('latin1')).toBe(body);
  expect(fresh.texts.has(source) || fresh.messages.has(source)).toBe(false);
});
