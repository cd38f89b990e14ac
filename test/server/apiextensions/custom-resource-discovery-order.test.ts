/**
 * A custom resource in discovery, legacy and aggregated, in the order kube-apiserver 1.34.4
 * lists it (its apiextensions discovery, not the built-in installer, which sorts): the verbs
 * `delete, deletecollection, get, list, patch, create, update, watch`, then the subresources
 * status and scale; while the definition is being deleted, only `delete, deletecollection, get,
 * list, watch`. (Observed on the reference with the same definition shape, 2026-12-05.)
 */
import { inProcessServerForSuite } from '../../helpers/in-process-server';
import { waitFor } from '../../helpers/wait-for';
import { widgetCRD } from './fixtures';

const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const WIDGETS = '/apis/example.com/v1/namespaces/default/widgets';
const SERVED_VERBS = ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'];
const TERMINATING_VERBS = ['delete', 'deletecollection', 'get', 'list', 'watch'];

interface Listed {
  readonly verbs: readonly string[];
  readonly subresources: readonly string[];
}

const server = inProcessServerForSuite();

beforeAll(async () => {
  const created = await server.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(widgetCRD()),
  });
  expect(created.status).toBe(201);
  await waitFor('the widgets to be served', async () =>
    (await server.request('GET', WIDGETS)).status === 200 ? true : undefined,
  );
}, 60_000);

/** The widgets' verbs and subresources as `/apis/example.com/v1` lists them. */
async function legacy(): Promise<Listed> {
  const answer = await server.request('GET', '/apis/example.com/v1');
  expect(answer.status).toBe(200);
  const resources = (JSON.parse(answer.body) as { resources: { name: string; verbs: string[] }[] }).resources;
  return {
    verbs: resources.find((resource) => resource.name === 'widgets')?.verbs ?? [],
    subresources: resources.filter((resource) => resource.name.startsWith('widgets/')).map((resource) => resource.name),
  };
}

/** The widgets' verbs and subresources as the aggregated `/apis` lists them. */
async function aggregated(): Promise<Listed> {
  const answer = await server.request('GET', '/apis', { headers: { accept: AGGREGATED } });
  expect(answer.status).toBe(200);
  type Resource = { resource: string; verbs: string[]; subresources?: { subresource: string }[] };
  const groups = (
    JSON.parse(answer.body) as { items: { metadata: { name: string }; versions: { resources: Resource[] }[] }[] }
  ).items;
  const widgets = groups
    .find((group) => group.metadata.name === 'example.com')
    ?.versions[0].resources.find((resource) => resource.resource === 'widgets');
  return {
    verbs: widgets?.verbs ?? [],
    subresources: (widgets?.subresources ?? []).map((subresource) => subresource.subresource),
  };
}

test('the served verbs in the reference’s order, then status and scale', async () => {
  expect(await legacy()).toEqual({ verbs: SERVED_VERBS, subresources: ['widgets/status', 'widgets/scale'] });
  expect(await aggregated()).toEqual({ verbs: SERVED_VERBS, subresources: ['status', 'scale'] });
});

test('while the definition is deleted, no create, update or patch is listed', async () => {
  const held = await server.request('POST', WIDGETS, {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'held', finalizers: ['example.com/hold'] },
      spec: { color: 'red' },
    }),
  });
  expect(held.status).toBe(201);
  const deleted = await server.request(
    'DELETE',
    '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com',
  );
  expect(deleted.status).toBe(200);
  await waitFor('the terminating verbs', async () =>
    (await legacy()).verbs.length === TERMINATING_VERBS.length ? true : undefined,
  );
  expect(await legacy()).toEqual({ verbs: TERMINATING_VERBS, subresources: ['widgets/status', 'widgets/scale'] });
  expect(await aggregated()).toEqual({ verbs: TERMINATING_VERBS, subresources: ['status', 'scale'] });
});
