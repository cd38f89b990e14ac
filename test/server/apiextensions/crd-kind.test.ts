/**
 * CustomResourceDefinitions as a built-in kind over HTTP (in-process, real SQLite): created with
 * their defaults and first status, rejected with the reference's messages when invalid.
 */
import { openTestStore, serveResourceApi, type ServedApi, type TestStore } from '../../helpers/in-process-api';
import { widgetCRD } from './fixtures';

let testStore: TestStore;
let api: ServedApi;
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

beforeAll(async () => {
  testStore = await openTestStore();
  api = await serveResourceApi(testStore.storageFor);
});

afterAll(async () => {
  await api.close();
  await testStore.close();
});

// JSON from the server under test
async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(api.base + path, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

test('a CRD is created with its defaults, generation 1 and its storage version recorded', async () => {
  const crd = widgetCRD();
  delete crd.spec.names.singular;
  const created = await call('POST', CRDS, crd);
  expect(created.status).toBe(201);
  expect(created.body.spec.names).toMatchObject({ singular: 'widget', listKind: 'WidgetList' });
  expect(created.body.spec.conversion).toEqual({ strategy: 'None' });
  expect(created.body.metadata.generation).toBe(1);
  // As in the reference, the cleanup finalizer comes with the first deletion only.
  expect(created.body.metadata.finalizers).toBeUndefined();
  // No conditions yet: Go writes the nil list as null.
  expect(created.body.status).toEqual({
    conditions: null,
    acceptedNames: { plural: '', kind: '' },
    storedVersions: ['v1'],
  });
  // The schema's nested JSONSchemaProps survive decoding unchanged.
  expect(created.body.spec.versions[0].schema).toEqual(crd.spec.versions[0].schema);
  const read = await call('GET', `${CRDS}/widgets.example.com`);
  expect(read.body.spec.versions[0].additionalPrinterColumns).toHaveLength(3);
});

test('an invalid CRD is rejected with the reference messages', async () => {
  const crd = widgetCRD({ group: 'example', scope: 'Galaxy' });
  crd.metadata.name = 'gadgets.example';
  crd.spec.versions.push({ ...crd.spec.versions[0], name: 'V2' });
  const schema = {
    type: 'object',
    properties: { spec: { type: 'array' }, odd: { properties: { x: { type: 'string' } } } },
  };
  crd.spec.versions[1] = {
    ...crd.spec.versions[1],
    schema: { openAPIV3Schema: schema },
    subresources: undefined,
    selectableFields: undefined,
  };
  const rejected = await call('POST', CRDS, crd);
  expect(rejected.status).toBe(422);
  const causes = rejected.body.details.causes.map(
    (cause: { field: string; message: string }) => `${cause.field}: ${cause.message}`,
  );
  expect(causes).toEqual(
    expect.arrayContaining([
      'metadata.name: Invalid value: "gadgets.example": must be spec.names.plural+"."+spec.group',
      'spec.group: Invalid value: "example": should be a domain with at least one dot',
      'spec.scope: Unsupported value: "Galaxy": supported values: "Cluster", "Namespaced"',
      expect.stringMatching(
        /^spec\.versions\[1\]\.name: Invalid value: "V2": a DNS-1035 label must consist of lower case/,
      ),
      'spec.versions[1].schema.openAPIV3Schema.properties[spec].items: Required value: must be specified',
      'spec.versions[1].schema.openAPIV3Schema.properties[odd].type: Required value: must not be empty for specified object fields',
    ]),
  );
  // The versions list prints as Go's struct dump there; its end is what a reader needs.
  expect(
    causes.some(
      (text: string) =>
        text.startsWith('spec.versions: ') && text.endsWith('must have exactly one version marked as storage version'),
    ),
  ).toBe(true);
});

test('group and plural may not change', async () => {
  const current = await call('GET', `${CRDS}/widgets.example.com`);
  const changed = {
    ...current.body,
    spec: { ...current.body.spec, names: { ...current.body.spec.names, plural: 'gizmos' } },
  };
  const rejected = await call('PUT', `${CRDS}/widgets.example.com`, changed);
  expect(rejected.status).toBe(422);
  expect(rejected.body.message).toContain('spec.names.plural: Invalid value: "gizmos": field is immutable');
});

test('defaults must be valid for their field and hold no unknown fields', async () => {
  const crd = widgetCRD();
  crd.metadata.name = 'gizmos.example.com';
  crd.spec.names = { plural: 'gizmos', kind: 'Gizmo' };
  const spec = crd.spec.versions[0].schema!.openAPIV3Schema!.properties!.spec;
  spec.properties = {
    ...spec.properties,
    replicas: { type: 'integer', default: 'many' },
    size: { type: 'object', properties: { a: { type: 'string' } }, default: { a: 'x', b: 'y' } },
  };
  const rejected = await call('POST', CRDS, crd);
  expect(rejected.status).toBe(422);
  const causes = rejected.body.details.causes.map(
    (cause: { field: string; message: string }) => `${cause.field}: ${cause.message}`,
  );
  expect(causes).toEqual([
    // One version: the reference reports its schema as the CRD's top-level one, and the default as JSON.
    'spec.validation.openAPIV3Schema.properties[spec].properties[replicas].default: Invalid value: "string":  in body must be of type integer: "string"',
    'spec.validation.openAPIV3Schema.properties[spec].properties[size].default: Invalid value: {"a":"x","b":"y"}: must not have unknown fields',
  ]);
});
