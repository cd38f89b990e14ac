/**
 * A CRD with two versions converted by a webhook the test serves over HTTPS, on a whole
 * in-process replica: objects written in one version are stored in the storage version and
 * read back in either, round-tripping through the webhook (by URL, or by Service through the
 * Service's EndpointSlice, stored directly: its address is loopback); YAML is served, protobuf is not. A field selector of the version served
 * judges the objects as converted, in lists, watches and deletecollection.
 */
import { startInProcessServer, type InProcessServer } from '../../helpers/in-process-server';
import {
  endpointSliceOf,
  SERVICE_DNS_NAME,
  startConversionWebhook,
  type ConversionWebhook,
} from './conversion-webhook-server';
import { waitUntil } from '../../helpers/wait-for';
import { requestJson } from '../../helpers/server';
import { sizedVersion } from './fixtures';

let server: InProcessServer;
let webhook: ConversionWebhook;

beforeAll(async () => {
  // By Service, the webhook is reached at its EndpointSlice's address: the test's host routes no cluster IP.
  [server, webhook] = await Promise.all([
    startInProcessServer(['--enable-aggregator-routing=true']),
    startConversionWebhook(),
  ]);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await webhook?.close();
});

// JSON from the server under test
function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  return requestJson(server, method, path, body);
}

test('objects round-trip between versions through the conversion webhook', async () => {
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'gadgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'gadgets', kind: 'Gadget' },
      versions: [sizedVersion('v1', 'string', true), sizedVersion('v2', 'integer', false)],
      conversion: {
        strategy: 'Webhook',
        webhook: { clientConfig: { url: webhook.url, caBundle: webhook.caBundle }, conversionReviewVersions: ['v1'] },
      },
    },
  };
  expect((await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status).toBe(201);
  await waitUntil('v2 is served', async () => (await call('GET', '/apis/example.com/v2')).status === 200, 10_000, 50);

  const v1 = '/apis/example.com/v1/namespaces/default/gadgets';
  const v2 = '/apis/example.com/v2/namespaces/default/gadgets';
  expect(
    (
      await call('POST', v1, {
        apiVersion: 'example.com/v1',
        kind: 'Gadget',
        metadata: { name: 'a' },
        spec: { size: '3' },
      })
    ).status,
  ).toBe(201);
  const before = webhook.reviews;
  const asV2 = await call('GET', `${v2}/a`);
  expect(asV2.body).toMatchObject({
    apiVersion: 'example.com/v2',
    kind: 'Gadget',
    spec: { size: 3 },
    metadata: { name: 'a', labels: { converted: 'yes' } },
  });
  expect(webhook.reviews).toBeGreaterThan(before);

  // Written in v2, stored in v1, read back in both.
  const created = await call('POST', v2, {
    apiVersion: 'example.com/v2',
    kind: 'Gadget',
    metadata: { name: 'b' },
    spec: { size: 5 },
  });
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({ apiVersion: 'example.com/v2', spec: { size: 5 } });
  expect((await call('GET', `${v1}/b`)).body.spec).toEqual({ size: '5' });
  const list = await call('GET', v2);
  expect(list.body.items.map((item: { spec: { size: number } }) => item.spec.size)).toEqual([3, 5]);

  // Custom resources have JSON, YAML and CBOR forms, but no protobuf one.
  const yaml = await server.request('GET', `${v2}/a`, { headers: { accept: 'application/yaml' } });
  expect(yaml.status).toBe(200);
  expect(yaml.body).toContain('apiVersion: example.com/v2\n');
  const protobuf = await server.request('GET', `${v2}/a`, {
    headers: { accept: 'application/vnd.kubernetes.protobuf' },
  });
  expect(protobuf.status).toBe(406);

  // A webhook that fails makes reads in the other version fail with its message.
  webhook.misbehave = 'failure';
  const failed = await call('GET', `${v2}/a`);
  expect(failed.status).toBe(500);
  expect(failed.body.message).toContain(
    'conversion webhook for example.com/v1, Kind=Gadget failed: cannot convert this one',
  );
  webhook.misbehave = 'none';
});

test("a conversion webhook given by Service round-trips through the Service's EndpointSlice", async () => {
  const [name, namespace] = SERVICE_DNS_NAME.split('.');
  const port = Number(new URL(webhook.url).port);
  expect(
    (await call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }))
      .status,
  ).toBe(201);
  const service = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name },
    spec: { ports: [{ name: 'https', port: 443, targetPort: port }] },
  };
  expect((await call('POST', `/api/v1/namespaces/${namespace}/services`, service)).status).toBe(201);
  // Straight to storage, as the EndpointSlice controller's write would land for a pod at the
  // webhook's address: the API takes no loopback address in an EndpointSlice.
  const slices = server.plane.registry.find({ group: 'discovery.k8s.io', version: 'v1' }, 'endpointslices')!;
  await server.plane.storageFor(slices).create({ namespace, name }, endpointSliceOf(name, namespace, port));
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'doodads.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'doodads', kind: 'Doodad' },
      versions: [sizedVersion('v1', 'string', true), sizedVersion('v2', 'integer', false)],
      conversion: {
        strategy: 'Webhook',
        webhook: {
          clientConfig: { service: { namespace, name, path: '/convert' }, caBundle: webhook.caBundle },
          conversionReviewVersions: ['v1'],
        },
      },
    },
  };
  expect((await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status).toBe(201);
  const v1 = '/apis/example.com/v1/namespaces/default/doodads';
  const v2 = '/apis/example.com/v2/namespaces/default/doodads';
  await waitUntil('doodads are served in v2', async () => (await call('GET', v2)).status === 200, 10_000, 50);
  expect(
    (
      await call('POST', v2, {
        apiVersion: 'example.com/v2',
        kind: 'Doodad',
        metadata: { name: 'd' },
        spec: { size: 7 },
      })
    ).status,
  ).toBe(201);
  expect((await call('GET', `${v1}/d`)).body.spec).toEqual({ size: '7' });
  expect((await call('GET', `${v2}/d`)).body).toMatchObject({
    apiVersion: 'example.com/v2',
    spec: { size: 7 },
    metadata: { labels: { converted: 'yes' } },
  });
});

test('a field selector of the served version judges objects as converted: list, watch and deletecollection', async () => {
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'sprockets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'sprockets', kind: 'Sprocket' },
      versions: [sizedVersion('v1', 'string', true, true), sizedVersion('v2', 'integer', false, true)],
      conversion: {
        strategy: 'Webhook',
        webhook: { clientConfig: { url: webhook.url, caBundle: webhook.caBundle }, conversionReviewVersions: ['v1'] },
      },
    },
  };
  expect((await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status).toBe(201);
  const v1 = '/apis/example.com/v1/namespaces/default/sprockets';
  const v2 = '/apis/example.com/v2/namespaces/default/sprockets';
  await waitUntil('sprockets are served in v2', async () => (await call('GET', v2)).status === 200, 10_000, 50);
  // Stored in v1 as strings; v2 converts them to numbers, so "03" and "3" are both 3 there.
  for (const [name, size] of [
    ['a', '03'],
    ['b', '3'],
    ['c', '4'],
  ]) {
    expect(
      (await call('POST', v1, { apiVersion: 'example.com/v1', kind: 'Sprocket', metadata: { name }, spec: { size } }))
        .status,
    ).toBe(201);
  }
  const names = (list: { items: { metadata: { name: string } }[] }) => list.items.map((item) => item.metadata.name);
  const listed = await call('GET', `${v2}?fieldSelector=spec.size%3D3`);
  expect(names(listed.body)).toEqual(['a', 'b']);
  expect(names((await call('GET', `${v1}?fieldSelector=spec.size%3D3`)).body)).toEqual(['b']);

  // a leaves the selection, c enters it: a watch from the list's revision sees both changes.
  const patch = (name: string, size: string) =>
    server.request('PATCH', `${v1}/${name}`, {
      body: JSON.stringify({ spec: { size } }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
  expect((await patch('a', '04')).status).toBe(200);
  expect((await patch('c', '003')).status).toBe(200);
  const watched = await server.request(
    'GET',
    `${v2}?watch=1&fieldSelector=spec.size%3D3&resourceVersion=${listed.body.metadata.resourceVersion}&timeoutSeconds=1`,
  );
  const events = watched.body
    .split('\n')
    .filter((line) => line !== '')
    .map(
      (line) =>
        JSON.parse(line) as {
          type: string;
          object: { apiVersion: string; metadata: { name: string }; spec: { size: number } };
        },
    );
  expect(
    events.map((event) => [event.type, event.object.metadata.name, event.object.apiVersion, event.object.spec.size]),
  ).toEqual([
    ['DELETED', 'a', 'example.com/v2', 3],
    ['ADDED', 'c', 'example.com/v2', 3],
  ]);

  const deleted = await call('DELETE', `${v2}?fieldSelector=spec.size%3D3`);
  expect(deleted.status).toBe(200);
  expect(names(deleted.body)).toEqual(['b', 'c']);
  expect(names((await call('GET', v1)).body)).toEqual(['a']);
});
