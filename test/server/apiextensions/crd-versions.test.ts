/**
 * Each served version of a CRD with its own subresources, selectable fields and printer columns,
 * as kube-apiserver 1.34 serves them: v1 has status and selects on spec.a; v2 has scale and
 * selects on spec.b (in-process, real SQLite).
 */
import { customResourceType } from '../../../server/apiextensions/custom-resource-type';
import type { JSONSchemaProps } from '../../../server/apiextensions/crd-types';
import { servedSubresources } from '../../../server/discovery/subresources';
import { type ServedApi, serveTypesOnTestStore } from '../../helpers/in-process-api';
import { widgetCRD } from './fixtures';

const schema: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' }, r: { type: 'integer' } } },
    status: { type: 'object', properties: { s: { type: 'string' }, r: { type: 'integer' } } },
  },
};

const crd = widgetCRD({
  versions: [
    {
      name: 'v1',
      served: true,
      storage: true,
      schema: { openAPIV3Schema: schema },
      subresources: { status: {} },
      selectableFields: [{ jsonPath: '.spec.a' }],
      additionalPrinterColumns: [{ name: 'A', type: 'string', jsonPath: '.spec.a' }],
    },
    {
      name: 'v2',
      served: true,
      storage: false,
      schema: { openAPIV3Schema: schema },
      subresources: { scale: { specReplicasPath: '.spec.r', statusReplicasPath: '.status.r' } },
      selectableFields: [{ jsonPath: '.spec.b' }],
      additionalPrinterColumns: [{ name: 'B', type: 'string', jsonPath: '.spec.b' }],
    },
  ],
});
const type = customResourceType(crd);
let api: ServedApi;
const path = (version: string, rest = '') => `/apis/example.com/${version}/namespaces/default/widgets${rest}`;

beforeAll(async () => {
  api = await serveTypesOnTestStore([type]);
  const created = await call('POST', path('v1'), {
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name: 'w1' },
    spec: { a: 'x', b: 'y', r: 1 },
    status: { s: 'set', r: 2 },
  });
  expect(created.status).toBe(201);
});

afterAll(() => api.close());

// JSON from the server under test
async function call(
  method: string,
  target: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any }> {
  const response = await fetch(api.base + target, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

test("discovery lists each version's own subresources", () => {
  expect(servedSubresources(type, { group: 'example.com', version: 'v1' }).map((s) => s.name)).toEqual(['status']);
  expect(servedSubresources(type, { group: 'example.com', version: 'v2' }).map((s) => s.name)).toEqual(['scale']);
});

test('status is a subresource in v1 only: v1 drops it on create, v2 has no status endpoint but a scale one', async () => {
  expect((await call('GET', path('v1', '/w1'))).body.status).toBeUndefined();
  expect((await call('GET', path('v1', '/w1/status'))).status).toBe(200);
  expect((await call('GET', path('v2', '/w1/status'))).status).toBe(404);
  expect((await call('GET', path('v1', '/w1/scale'))).status).toBe(404);
  const scale = await call('GET', path('v2', '/w1/scale'));
  expect(scale).toMatchObject({ status: 200, body: { kind: 'Scale', spec: { replicas: 1 } } });
});

test('in v2, where status is no subresource, an update of the object writes its status', async () => {
  const current = (await call('GET', path('v2', '/w1'))).body;
  const updated = await call('PUT', path('v2', '/w1'), { ...current, status: { s: 'by-v2' } });
  expect(updated).toMatchObject({ status: 200, body: { status: { s: 'by-v2' } } });
  const again = (await call('GET', path('v1', '/w1'))).body;
  const ignored = await call('PUT', path('v1', '/w1'), { ...again, status: { s: 'by-v1' } });
  expect(ignored).toMatchObject({ status: 200, body: { status: { s: 'by-v2' } } });
});

test("each version selects on its own fields, with the reference's refusal for the others", async () => {
  expect((await call('GET', path('v1', '?fieldSelector=spec.a=x'))).body.items).toHaveLength(1);
  expect((await call('GET', path('v2', '?fieldSelector=spec.b=y'))).body.items).toHaveLength(1);
  expect(await call('GET', path('v2', '?fieldSelector=spec.a=x'))).toMatchObject({
    status: 400,
    body: { message: 'field label not supported: spec.a' },
  });
  expect(await call('GET', path('v1', '?fieldSelector=spec.b=y'))).toMatchObject({
    status: 400,
    body: { message: 'field label not supported: spec.b' },
  });
});

test('each version prints its own columns', async () => {
  const table = async (version: string) =>
    (
      await call('GET', path(version), undefined, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' })
    ).body.columnDefinitions.map((c: { name: string }) => c.name);
  expect(await table('v1')).toEqual(['Name', 'A']);
  expect(await table('v2')).toEqual(['Name', 'B']);
});
