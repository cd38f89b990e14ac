/**
 * A list written with shared item texts (SharedItemTexts): in compact JSON, each item's text is
 * kept with the object it was served from and written again by the next list without encoding
 * the item; every other form (pretty JSON, YAML, protobuf, PartialObjectMetadataList, tables)
 * encodes the items as before and keeps nothing. Written by writeList to a real HTTP response.
 */
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeList, type Endpoint, type SharedItemTexts } from '../../../server/responsewriters/respond';
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

/** The body of a list of `items` written with `shared`, asked for with `accept` (and `?pretty` when given). */
async function listBody(
  items: readonly KubeObject[],
  shared: SharedItemTexts | undefined,
  accept: string,
  path = '/',
): Promise<string> {
  answer = (req, res) => writeList({ req, res, endpoint: ENDPOINT, head: HEAD, items, ...(shared ? { shared } : {}) });
  const { port } = server.address() as AddressInfo;
  return new Promise<string>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { accept } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve(Buffer.concat(chunks).toString('latin1')));
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
  const shared: SharedItemTexts = { sources, texts: new WeakMap() };

  const first = await listBody(served(), shared, 'application/json');
  expect(first).toBe(await listBody(served(), undefined, 'application/json'));
  expect(JSON.parse(first)).toEqual({ ...HEAD, items: sources.map(({ apiVersion: _a, kind: _k, ...item }) => item) });
  expect(sources.map((source) => shared.texts.get(source))).toEqual([
    '{"metadata":{"name":"a","namespace":"default","resourceVersion":"5"},"data":{"value":"one"}}',
    '{"metadata":{"name":"b","namespace":"default","resourceVersion":"5"},"data":{"value":"two"}}',
  ]);

  // A kept text is what the next list writes for its source, not the item encoded again.
  shared.texts.set(sources[1], '{"kept":true}');
  const second = JSON.parse(await listBody(served(), shared, 'application/json')) as { items: unknown[] };
  expect(second.items).toEqual([{ metadata: sources[0].metadata, data: { value: 'one' } }, { kept: true }]);
});

test.each([
  ['pretty JSON', 'application/json', '/?pretty=true'],
  ['YAML', 'application/yaml', '/'],
  ['protobuf', 'application/vnd.kubernetes.protobuf', '/'],
  ['PartialObjectMetadataList', 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1', '/'],
  ['Table', 'application/json;as=Table;g=meta.k8s.io;v=v1', '/'],
])('%s neither uses nor keeps item texts', async (_form, accept, path) => {
  const sources = [configMap('alpha', 'one')];
  const shared: SharedItemTexts = { sources, texts: new WeakMap() };
  shared.texts.set(sources[0], '{"kept":true}');
  const fresh = new WeakMap<object, string>();

  const body = await listBody(sources, shared, accept, path);
  expect(body).not.toContain('kept');
  expect(body).toContain('alpha');
  expect(await listBody(sources, { sources, texts: fresh }, accept, path)).toBe(body);
  expect(fresh.has(sources[0])).toBe(false);
});
