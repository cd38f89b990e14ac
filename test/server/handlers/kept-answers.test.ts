/**
 * Lists and GETs of a whole in-process replica whose answers' encodings are kept from one answer
 * to the next (see SharedItemEncodings and KeptObjectEncoding): every answer shows each object as
 * it is now, in JSON and in protobuf; each listed item its own object, also when a field selector
 * of the served version leaves items out (the kept encodings then go with the items that remain,
 * not with those at the same place in the store's answer); and each served version of a custom
 * resource answers a GET as itself.
 */
import { inProcessServerForSuite } from '../../helpers/in-process-server';
import { waitUntil } from '../../helpers/wait-for';
import { requestJson } from '../../helpers/server';
import { decodeObject } from '../../../server/codec/protobuf-envelope';
import { sizedVersion, widgetCRD } from '../apiextensions/fixtures';

const server = inProcessServerForSuite();

function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  return requestJson(server, method, path, body);
}

/** The items of a list as `name=value` pairs of the given field. */
async function listed(path: string, field: (item: any) => string): Promise<string[]> {
  const answer = await call('GET', path);
  expect(answer.status).toBe(200);
  return (answer.body.items as any[]).map((item) => `${item.metadata.name}=${field(item)}`);
}

test('a ConfigMap changed since the last list is listed as it is now', async () => {
  const path = '/api/v1/namespaces/default/configmaps';
  for (const name of ['one', 'two'])
    expect((await call('POST', path, { metadata: { name }, data: { value: `${name}-first` } })).status).toBe(201);
  const value = (item: any) => item.data.value;
  expect(await listed(path, value)).toEqual(['one=one-first', 'two=two-first']);
  expect(await listed(path, value)).toEqual(['one=one-first', 'two=two-first']);

  const two = (await call('GET', `${path}/two`)).body;
  expect((await call('PUT', `${path}/two`, { ...two, data: { value: 'two-second' } })).status).toBe(200);
  expect(await listed(path, value)).toEqual(['one=one-first', 'two=two-second']);
  expect(await listed(`${path}?resourceVersion=0`, value)).toEqual(['one=one-first', 'two=two-second']);
});

test('a ConfigMap changed since the last protobuf list is listed as it is now', async () => {
  const path = '/api/v1/namespaces/kube-public/configmaps';
  const listedInProtobuf = async () => {
    const answer = await server.request('GET', path, { headers: { accept: 'application/vnd.kubernetes.protobuf' } });
    expect(answer.status).toBe(200);
    const items = (decodeObject(answer.bytes) as { items: any[] }).items;
    return items.filter((item) => item.metadata.name === 'three').map((item) => item.data.value);
  };
  expect((await call('POST', path, { metadata: { name: 'three' }, data: { value: 'first' } })).status).toBe(201);
  expect(await listedInProtobuf()).toEqual(['first']);
  expect(await listedInProtobuf()).toEqual(['first']);

  const three = (await call('GET', `${path}/three`)).body;
  expect((await call('PUT', `${path}/three`, { ...three, data: { value: 'second' } })).status).toBe(200);
  expect(await listedInProtobuf()).toEqual(['second']);
});

test("a served version's field selector keeps each listed item with its own object", async () => {
  // Only v2 selects by size, so its selector is checked on each object as served.
  const crd = widgetCRD({ versions: [sizedVersion('v1', 'string', true), sizedVersion('v2', 'string', false, true)] });
  expect((await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status).toBe(201);
  const v1 = '/apis/example.com/v1/namespaces/default/widgets';
  const v2 = '/apis/example.com/v2/namespaces/default/widgets';
  await waitUntil('widgets are served', async () => (await call('GET', v2)).status === 200, 10_000, 50);
  for (const [name, size] of [
    ['a', 'small'],
    ['b', 'large'],
    ['c', 'small'],
  ]) {
    const widget = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name }, spec: { size } };
    expect((await call('POST', v1, widget)).status).toBe(201);
  }
  const size = (item: any) => `${item.apiVersion}:${item.spec.size}`;

  expect(await listed(`${v2}?fieldSelector=spec.size%3Dlarge`, size)).toEqual(['b=example.com/v2:large']);
  expect(await listed(v2, size)).toEqual([
    'a=example.com/v2:small',
    'b=example.com/v2:large',
    'c=example.com/v2:small',
  ]);
  expect(await listed(`${v2}?fieldSelector=spec.size%3Dsmall`, size)).toEqual([
    'a=example.com/v2:small',
    'c=example.com/v2:small',
  ]);
  expect(await listed(v1, size)).toEqual([
    'a=example.com/v1:small',
    'b=example.com/v1:large',
    'c=example.com/v1:small',
  ]);
});

async function valueInJson(path: string): Promise<string> {
  const answer = await call('GET', path);
  expect(answer.status).toBe(200);
  return answer.body.data.value;
}

async function valueInProtobuf(path: string): Promise<string> {
  const answer = await server.request('GET', path, { headers: { accept: 'application/vnd.kubernetes.protobuf' } });
  expect(answer.status).toBe(200);
  return (decodeObject(answer.bytes) as any).data.value;
}

test('a ConfigMap changed since the last GET is answered as it is now', async () => {
  const path = '/api/v1/namespaces/default/configmaps/kept';
  const created = await call('POST', '/api/v1/namespaces/default/configmaps', {
    metadata: { name: 'kept' },
    data: { value: 'first' },
  });
  expect(created.status).toBe(201);
  for (const read of [valueInJson, valueInProtobuf]) {
    expect(await read(path)).toBe('first');
    expect(await read(path)).toBe('first');
  }

  const current = (await call('GET', path)).body;
  expect((await call('PUT', path, { ...current, data: { value: 'second' } })).status).toBe(200);
  for (const read of [valueInJson, valueInProtobuf]) {
    expect(await read(path)).toBe('second');
    expect(await read(`${path}?resourceVersion=0`)).toBe('second');
  }
});

test('each served version of a custom resource answers a GET as itself', async () => {
  const crd = widgetCRD({ versions: [sizedVersion('v1', 'string', true), sizedVersion('v2', 'string', false)] });
  // Not the widgets of the list test above: gadgets, whose two versions are served alike.
  crd.metadata.name = 'gadgets.example.com';
  crd.spec.names = { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' };
  expect((await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status).toBe(201);
  const v1 = '/apis/example.com/v1/namespaces/default/gadgets';
  const v2 = '/apis/example.com/v2/namespaces/default/gadgets';
  await waitUntil('gadgets are served', async () => (await call('GET', v2)).status === 200, 10_000, 50);
  const gadget = { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'w' }, spec: { size: 'small' } };
  expect((await call('POST', v1, gadget)).status).toBe(201);

  for (let round = 0; round < 2; round++) {
    expect((await call('GET', `${v1}/w`)).body.apiVersion).toBe('example.com/v1');
    expect((await call('GET', `${v2}/w`)).body.apiVersion).toBe('example.com/v2');
  }
});
