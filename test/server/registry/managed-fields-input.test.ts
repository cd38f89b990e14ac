/**
 * managedFields a client sends that do not decode (a FieldsV1 that is not a tree of objects, an
 * entry without its operation, apiVersion or fieldsType) are not taken: the write keeps the
 * stored entries and records itself, as kube-apiserver 1.34.4 answered the same requests
 * (asked 2026-12-03: each of these creates, updates and merge patches was 201 or 200 with only
 * the writer's entry). Before, such a FieldsV1 sent the server into endless recursion: a 500.
 */
import { inProcessServerForSuite } from '../../helpers/in-process-server';

jest.setTimeout(60_000);

const server = inProcessServerForSuite();

const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';
const JSON_TYPE = { 'content-type': 'application/json' };
const entry = (fieldsV1: unknown) => ({
  manager: 'm',
  operation: 'Update',
  apiVersion: 'v1',
  fieldsType: 'FieldsV1',
  fieldsV1,
});
const WRITER = [
  {
    manager: 'unknown',
    operation: 'Update',
    apiVersion: 'v1',
    time: expect.any(String),
    fieldsType: 'FieldsV1',
    fieldsV1: { 'f:data': { '.': {}, 'f:a': {} } },
  },
];

const malformed: Record<string, unknown> = {
  'a string FieldsV1 without the rest of its entry': [{ fieldsV1: 'x' }],
  'a string FieldsV1': [entry('x')],
  'a number FieldsV1': [entry(5)],
  'a list FieldsV1': [entry([])],
  'a string inside the tree': [entry({ 'f:data': 'x' })],
  'a number deep in the tree': [entry({ 'f:data': { 'f:a': 5 } })],
  'a key without its colon': [entry({ 'f:data': { fa: {} } })],
  'a list item key that is not JSON': [entry({ 'f:data': { 'k:{name': {} } })],
  'an operation of neither kind': [{ ...entry({}), operation: 'Patch' }],
  'no fieldsType': [{ ...entry({}), fieldsType: undefined }],
};

describe.each(Object.entries(malformed))('%s', (name, managedFields) => {
  const object = (suffix: string) => ({
    metadata: { name: `${slug(name)}-${suffix}`, managedFields },
    data: { a: '2' },
  });
  const body = (value: unknown) => ({ body: JSON.stringify(value), headers: JSON_TYPE });

  it('is not taken by a create, an update or a merge patch', async () => {
    const created = await server.request('POST', CONFIGMAPS, body(object('create')));
    expect(created.status).toBe(201);
    expect(created.json<{ metadata: { managedFields: unknown } }>().metadata.managedFields).toEqual(WRITER);

    const target = `${slug(name)}-update`;
    expect(
      (await server.request('POST', CONFIGMAPS, body({ metadata: { name: target }, data: { a: '1' } }))).status,
    ).toBe(201);
    const updated = await server.request('PUT', `${CONFIGMAPS}/${target}`, body(object('update')));
    expect(updated.status).toBe(200);
    expect(updated.json<{ metadata: { managedFields: unknown } }>().metadata.managedFields).toEqual(WRITER);

    const patched = await server.request('PATCH', `${CONFIGMAPS}/${target}`, {
      body: JSON.stringify({ metadata: { managedFields } }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(patched.status).toBe(200);
    expect(patched.json<{ metadata: { managedFields: unknown } }>().metadata.managedFields).toEqual(WRITER);
  });
});

it('a FieldsV1 that decodes replaces the stored entries, nulls read as empty nodes, keys of unknown kinds dropped', async () => {
  const kept = { metadata: { name: 'kept' }, data: { a: '1' } };
  expect((await server.request('POST', CONFIGMAPS, { body: JSON.stringify(kept), headers: JSON_TYPE })).status).toBe(
    201,
  );
  // An update that changes nothing else: the entries it sends are all there is.
  const updated = await server.request('PUT', `${CONFIGMAPS}/kept`, {
    body: JSON.stringify({
      ...kept,
      metadata: { ...kept.metadata, managedFields: [entry({ 'f:data': { 'f:a': null, 'x:later': {}, '.': 5 } })] },
    }),
    headers: JSON_TYPE,
  });
  expect(updated.status).toBe(200);
  expect(updated.json<{ metadata: { managedFields: unknown } }>().metadata.managedFields).toEqual([
    entry({ 'f:data': { '.': {}, 'f:a': {} } }),
  ]);
});

function slug(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 40);
}
