/**
 * Defaults added to a CRD's schema after its objects were written show on reads (get, list,
 * watch) without rewriting storage, by the storage version's schema only, as kube-apiserver 1.34
 * answers (a whole in-process replica).
 */
import { inProcessServerForSuite } from '../../helpers/in-process-server';
import { waitUntil } from '../../helpers/wait-for';

const server = inProcessServerForSuite();

// JSON from the server under test
async function call(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any; text: string }> {
  const answer = await server.request(
    method,
    path,
    body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } },
  );
  return {
    status: answer.status,
    body: answer.status === 200 || answer.status === 201 ? answer.json() : undefined,
    text: answer.body,
  };
}

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

function crd(defaults: { v1?: string; v2?: string }) {
  const schema = (a?: string, b?: string) => ({
    openAPIV3Schema: {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            a: { type: 'string', ...(a ? { default: a } : {}) },
            b: { type: 'string', ...(b ? { default: b } : {}) },
          },
        },
      },
    },
  });
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'dfs.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'dfs', kind: 'Df' },
      versions: [
        { name: 'v1', served: true, storage: true, schema: schema(defaults.v1) },
        { name: 'v2', served: true, storage: false, schema: schema(undefined, defaults.v2) },
      ],
    },
  };
}

test('a default added later shows on get, list and watch in every version; storage keeps what was written', async () => {
  expect((await call('POST', CRDS, crd({}))).status).toBe(201);
  const v1 = '/apis/example.com/v1/namespaces/default/dfs';
  const v2 = '/apis/example.com/v2/namespaces/default/dfs';
  await waitUntil('dfs are served', async () => (await call('GET', v1)).status === 200, 10_000, 50);
  const created = await call('POST', v1, {
    apiVersion: 'example.com/v1',
    kind: 'Df',
    metadata: { name: 'd1' },
    spec: {},
  });
  expect(created.status).toBe(201);
  expect(created.body.spec).toEqual({});

  const current = (await call('GET', `${CRDS}/dfs.example.com`)).body;
  expect(
    (await call('PUT', `${CRDS}/dfs.example.com`, { ...crd({ v1: 'A1', v2: 'B2' }), metadata: current.metadata }))
      .status,
  ).toBe(200);
  await waitUntil(
    'the new schema is served',
    async () => (await call('GET', `${v1}/d1`)).body?.spec?.a === 'A1',
    10_000,
    50,
  );

  // The storage version's default, in both versions; the default only v2 declares is not filled.
  for (const base of [v1, v2]) {
    const one = (await call('GET', `${base}/d1`)).body;
    expect(one.spec).toEqual({ a: 'A1' });
    expect(one.metadata.resourceVersion).toBe(created.body.metadata.resourceVersion);
    expect((await call('GET', base)).body.items.map((item: { spec: unknown }) => item.spec)).toEqual([{ a: 'A1' }]);
    const watched = await call('GET', `${base}?watch=1&timeoutSeconds=1`);
    expect(JSON.parse(watched.text.split('\n')[0]).object.spec).toEqual({ a: 'A1' });
  }
});
