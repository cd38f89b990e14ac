/**
 * A list written with shared item encodings (SharedItemEncodings): in compact JSON and in
 * protobuf, each item's encoding is kept with the object it was served from and written again by
 * the next list without encoding the item; every other form (pretty JSON, YAML,
 * PartialObjectMetadataList, tables) encodes the items as before and keeps nothing. Written by
 * writeList to a real HTTP response.
 */
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeList, type Endpoint, type SharedItemEncodings } from '../../../server/responsewriters/respond';
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

/** The body of a list of `items` written with `shared`, asked for with `accept` (and `?pretty` when given). */
async function listBody(
  items: readonly KubeObject[],
  shared: SharedItemEncodings | undefined,
  accept: string,
  path = '/',
): Promise<Buffer> {
  answer = (req, res) => writeList({ req, res, endpoint: ENDPOINT, head: HEAD, items, ...(shared ? { shared } : {}) });
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

test.each([
  ['pretty JSON', 'application/json', '/?pretty=true'],
  ['YAML', 'application/yaml', '/'],
  ['PartialObjectMetadataList', 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1', '/'],
  [
    'PartialObjectMetadataList in protobuf',
    'application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1',
    '/',
  ],
  ['Table', 'application/json;as=Table;g=meta.k8s.io;v=v1', '/'],
])('%s neither uses nor keeps item encodings', async (_form, accept, path) => {
  const sources = [configMap('alpha', 'one')];
  const shared = keptNothing(sources);
  shared.texts.set(sources[0], '{"kept":true}');
  shared.messages.set(sources[0], Buffer.from('kept'));
  const fresh = keptNothing(sources);

  const body = (await listBody(sources, shared, accept, path)).toString('latin1');
  expect(body).not.toContain('kept');
  expect(body).toContain('alpha');
  expect((await listBody(sources, fresh, accept, path)).toString('latin1')).toBe(body);
  expect(fresh.texts.has(sources[0]) || fresh.messages.has(sources[0])).toBe(false);
});
