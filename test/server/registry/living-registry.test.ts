/**
 * The registry changes while serving: a resource type added to a running replica is in
 * discovery (both forms) and OpenAPI v3 within a second, kubectl creates, lists and watches its
 * objects, its own schema, printer and handler slots are used, and once removed its endpoints
 * are 404 and its watches end. A whole replica runs in this process (real HTTPS, chain, SQLite,
 * watch caches) so that the test can reach its registry; kubectl 1.33 talks to it.
 */
import { spawn } from 'node:child_process';
import type { Request } from 'express';
import { decodeObjectBody } from '../../../server/handlers/object-body';
import { writeResponse, type HandlerScope, type ResourceHandler } from '../../../server/handlers/scope';
import { objectKeyOf } from '../../../server/registry/store/scope';
import { buildStrategy } from '../../../server/registry/strategy';
import type { ResourceType } from '../../../server/registry/types';
import type { KubeObject } from '../../../api/objects';
import { parseWriteOptions, queryOf } from '../../../server/request/query';
import { column, NAME_COLUMN, record } from '../../../server/table/columns';
import { inProcessServerForSuite } from '../../helpers/in-process-server';
import { KUBECTL, kubectlConnection } from '../../helpers/server';
import { waitFor } from '../../helpers/wait-for';

import type { GroupVersion } from '../../../api/identity';
const GROUP = 'example.capstan.dev';
const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
const WIDGET_DEFINITION = 'dev.capstan.example.v1.Widget';
const REVIEW_DEFINITION = 'dev.capstan.example.v1.WidgetReview';
const STAMP_DEFINITION = 'dev.capstan.example.v1.Stamp';

const objectSchema = (kind: string, properties: Record<string, object>, version = 'v1') => ({
  type: 'object',
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { $ref: `#/definitions/${META}.ObjectMeta` },
    ...properties,
  },
  'x-kubernetes-group-version-kind': [{ group: GROUP, version, kind }],
});

/** A create handler that decodes the body by the type's schema and answers with it, storing nothing. */
function reviewCreate(scope: HandlerScope): ResourceHandler {
  return async ({ req, res }) => {
    const { object } = await decodeObjectBody(scope, req as Request, parseWriteOptions(queryOf(req), 'CreateOptions'));
    const size = Number(record(object.spec).size ?? 0);
    await writeResponse(scope, res, 201, { ...object, status: { allowed: size <= 10 } });
  };
}

/** `widgets/<name>/stamp`: reads the widget from the same storage the generic handlers use. */
function stampCreate(scope: HandlerScope): ResourceHandler {
  return async ({ info, res }) => {
    const widget = await scope.storage.get(objectKeyOf(scope, info));
    res.status(201).json({
      apiVersion: `${GROUP}/v1`,
      kind: 'Stamp',
      metadata: { name: info.name },
      widgetUID: widget.metadata.uid,
    });
  };
}

const widgets: ResourceType = {
  group: GROUP,
  resource: 'widgets',
  singular: 'widget',
  kind: 'Widget',
  listKind: 'WidgetList',
  namespaced: true,
  versions: [
    {
      version: 'v1',
      definition: WIDGET_DEFINITION,
      printer: {
        columns: [NAME_COLUMN, column('Size', 'integer', 'How big the widget is.')],
        print: (object) => ({ cells: [object.metadata.name, record(object.spec).size ?? 0] }),
      },
    },
  ],
  storageVersion: 'v1',
  storagePrefix: `${GROUP}/widgets`,
  shortNames: ['wd'],
  categories: [],
  verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
  subresources: {},
  nameRule: 'dns-subdomain',
  selectableFields: {},
  strategy: buildStrategy({ namespaced: true, nameRule: 'dns-subdomain', hasStatus: false }),
  protobuf: false,
  definitions: {
    [WIDGET_DEFINITION]: objectSchema('Widget', {
      spec: { type: 'object', properties: { size: { type: 'integer', format: 'int64' } } },
    }),
    'dev.capstan.example.v1.WidgetList': {
      type: 'object',
      properties: {
        apiVersion: { type: 'string' },
        kind: { type: 'string' },
        metadata: { $ref: `#/definitions/${META}.ListMeta` },
        items: { type: 'array', items: { $ref: `#/definitions/${WIDGET_DEFINITION}` } },
      },
    },
    [STAMP_DEFINITION]: objectSchema('Stamp', { widgetUID: { type: 'string' } }),
  },
  handlers: {
    subresources: {
      stamp: {
        kind: { group: GROUP, version: 'v1', kind: 'Stamp' },
        definition: STAMP_DEFINITION,
        handlers: { create: stampCreate },
      },
    },
  },
};

const widgetReviews: ResourceType = {
  ...widgets,
  resource: 'widgetreviews',
  singular: 'widgetreview',
  kind: 'WidgetReview',
  listKind: 'WidgetReviewList',
  namespaced: false,
  versions: [{ version: 'v1', definition: REVIEW_DEFINITION }],
  storagePrefix: `${GROUP}/widgetreviews`,
  shortNames: [],
  verbs: ['create'],
  strategy: buildStrategy({ namespaced: false, nameRule: 'dns-subdomain', hasStatus: false }),
  virtual: true,
  definitions: {
    [REVIEW_DEFINITION]: objectSchema('WidgetReview', {
      spec: { type: 'object', properties: { size: { type: 'integer', format: 'int64' } } },
      status: { type: 'object', properties: { allowed: { type: 'boolean' } } },
    }),
  },
  handlers: { verbs: { create: reviewCreate } },
};

const AGGREGATED_V2 = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const WIDGETS_PATH = `/apis/${GROUP}/v1/namespaces/default/widgets`;

/** Polls `check` every 20 ms until it returns a value, for at most `ms`; returns what it returned and when. */
async function within<T>(ms: number, check: () => Promise<T | undefined>): Promise<{ value: T; elapsedMs: number }> {
  const started = Date.now();
  const value = await waitFor(`a change within ${ms} ms`, check, ms, 20);
  return { value, elapsedMs: Date.now() - started };
}

interface AggregatedList {
  items: {
    metadata: { name: string };
    versions: {
      version: string;
      resources: { resource: string; verbs: string[]; subresources?: { subresource: string; verbs: string[] }[] }[];
    }[];
  }[];
}

describe('a resource type added and removed while serving', () => {
  const server = inProcessServerForSuite([], 30_000);

  test('is served, discovered, described, used by kubectl, and gone after removal', async () => {
    expect((await server.request('GET', WIDGETS_PATH)).status).toBe(404);
    const etagBefore = (await server.request('GET', '/apis', { headers: { accept: AGGREGATED_V2 } })).headers.etag;

    server.plane.registry.add(widgets);
    server.plane.registry.add(widgetReviews);

    // Discovery, legacy form.
    const legacy = await within(1_000, async () => {
      const groups = (await server.request('GET', '/apis')).json<{ groups: { name: string }[] }>();
      return groups.groups.some((group) => group.name === GROUP) ? groups : undefined;
    });
    expect(legacy.elapsedMs).toBeLessThan(1_000);
    const resources = (await server.request('GET', `/apis/${GROUP}/v1`)).json<{
      resources: { name: string; kind: string; verbs: string[] }[];
    }>();
    expect(resources.resources).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          name: 'widgets',
          kind: 'Widget',
          verbs: expect.arrayContaining(['create', 'list', 'watch']),
        }),
        expect.objectContaining({ name: 'widgets/stamp', kind: 'Stamp', verbs: ['create'] }),
        expect.objectContaining({ name: 'widgetreviews', kind: 'WidgetReview', verbs: ['create'] }),
      ]),
    );

    // Discovery, aggregated v2 form: a new document, so a new ETag.
    const aggregated = await server.request('GET', '/apis', { headers: { accept: AGGREGATED_V2 } });
    expect(aggregated.headers.etag).not.toBe(etagBefore);
    const group = aggregated.json<AggregatedList>().items.find((item) => item.metadata.name === GROUP);
    const widgetResource = group?.versions[0].resources.find((resource) => resource.resource === 'widgets');
    expect(widgetResource?.subresources).toEqual([
      expect.objectContaining({ subresource: 'stamp', verbs: ['create'] }),
    ]);

    // OpenAPI v3: listed in the root, with the type's own schema.
    const root = (await server.request('GET', '/openapi/v3')).json<{
      paths: Record<string, { serverRelativeURL: string }>;
    }>();
    const entry = root.paths[`apis/${GROUP}/v1`];
    expect(entry).toBeDefined();
    const document = (await server.request('GET', entry.serverRelativeURL)).json<{
      paths: Record<
        string,
        Record<string, { operationId?: string; responses?: Record<string, { content?: Record<string, unknown> }> }>
      >;
      components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
    }>();
    expect(document.components.schemas[WIDGET_DEFINITION].properties?.spec).toEqual({
      type: 'object',
      properties: { size: { type: 'integer', format: 'int64' } },
    });
    expect(document.components.schemas[`${META}.ObjectMeta`]).toBeDefined();
    expect(
      document.paths[`${WIDGETS_PATH.replace('/default/', '/{namespace}/')}/{name}/stamp`]?.post?.operationId,
    ).toBe('createExampleCapstanDevV1NamespacedWidgetStamp');
    expect(document.paths[`/apis/${GROUP}/v1/widgetreviews`]?.post?.operationId).toBe(
      'createExampleCapstanDevV1WidgetReview',
    );
    // OpenAPI v2 too, in JSON and in the protobuf form kubectl reads.
    const v2 = (await server.request('GET', '/openapi/v2', { headers: { accept: 'application/json' } })).json<{
      definitions: Record<string, unknown>;
    }>();
    expect(v2.definitions[WIDGET_DEFINITION]).toBeDefined();
    const v2Protobuf = await server.request('GET', '/openapi/v2', {
      headers: { accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' },
    });
    expect(v2Protobuf.status).toBe(200);
    // No protobuf form, none offered.
    expect(
      Object.keys(
        document.paths[`${WIDGETS_PATH.replace('/default/', '/{namespace}/')}/{name}`]?.get?.responses?.['200']
          ?.content ?? {},
      ),
    ).toEqual(['application/json', 'application/yaml']);

    // kubectl: a watch first, then create and list.
    const watch = spawn(
      KUBECTL,
      [...kubectlConnection(server.kubeconfig), 'get', 'widgets', '-n', 'default', '--watch', '-o', 'name'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let watched = '';
    let watchErrors = '';
    watch.stdout.on('data', (chunk: Buffer) => (watched += chunk.toString('utf8')));
    watch.stderr.on('data', (chunk: Buffer) => (watchErrors += chunk.toString('utf8')));
    const watchExit = new Promise<number | null>((resolve) => watch.once('exit', (code) => resolve(code)));
    try {
      const created = await server.kubectl(['create', '-n', 'default', '-f', '-'], {
        input: JSON.stringify({
          apiVersion: `${GROUP}/v1`,
          kind: 'Widget',
          metadata: { name: 'first' },
          spec: { size: 3 },
        }),
      });
      expect(created).toMatchObject({ code: 0, stdout: `widget.${GROUP}/first created\n` });
      const listed = await server.kubectl(['get', 'wd', '-n', 'default']);
      expect(listed.code).toBe(0);
      expect(listed.stdout.split('\n')[0]).toMatch(/^NAME\s+SIZE$/);
      expect(listed.stdout).toMatch(/first\s+3/);
      await within(5_000, async () => (watched.includes(`widget.${GROUP}/first`) ? true : undefined));

      // The type's schema decodes bodies: an unknown field is refused when asked to be strict.
      const strict = await server.request('POST', `${WIDGETS_PATH}?fieldValidation=Strict`, {
        body: JSON.stringify({
          apiVersion: `${GROUP}/v1`,
          kind: 'Widget',
          metadata: { name: 'second' },
          spec: { size: 1, colour: 'red' },
        }),
        headers: { 'content-type': 'application/json' },
      });
      expect(strict.status).toBe(400);
      expect(strict.json<{ message: string }>().message).toContain('unknown field "spec.colour"');

      // No protobuf form: 406 for a protobuf answer, 415 for a protobuf body.
      expect(
        (await server.request('GET', WIDGETS_PATH, { headers: { accept: 'application/vnd.kubernetes.protobuf' } }))
          .status,
      ).toBe(406);
      const protobufBody = await server.request('POST', WIDGETS_PATH, {
        body: Buffer.from([0x6b, 0x38, 0x73, 0x00]),
        headers: { 'content-type': 'application/vnd.kubernetes.protobuf' },
      });
      expect(protobufBody.status).toBe(415);

      // The extra handler slots: a subresource and a create-only review.
      const stamp = await server.request('POST', `${WIDGETS_PATH}/first/stamp`, {
        body: '{}',
        headers: { 'content-type': 'application/json' },
      });
      expect(stamp.status).toBe(201);
      const firstUid = (await server.request('GET', `${WIDGETS_PATH}/first`)).json<{ metadata: { uid: string } }>()
        .metadata.uid;
      expect(stamp.json<{ widgetUID: string }>().widgetUID).toBe(firstUid);
      const review = await server.request('POST', `/apis/${GROUP}/v1/widgetreviews`, {
        body: JSON.stringify({ apiVersion: `${GROUP}/v1`, kind: 'WidgetReview', spec: { size: 11 } }),
        headers: { 'content-type': 'application/json' },
      });
      expect(review.status).toBe(201);
      expect(review.json<{ status: { allowed: boolean } }>().status).toEqual({ allowed: false });
      expect((await server.request('GET', `/apis/${GROUP}/v1/widgetreviews`)).status).toBe(405);

      // Removal: 404 at once, the watch ends, and discovery and OpenAPI forget the group.
      server.plane.registry.remove({ group: GROUP, resource: 'widgets' });
      server.plane.registry.remove({ group: GROUP, resource: 'widgetreviews' });
      expect((await server.request('GET', WIDGETS_PATH)).status).toBe(404);
      expect((await server.request('GET', `${WIDGETS_PATH}/first`)).status).toBe(404);
      expect((await server.request('POST', `/apis/${GROUP}/v1/widgetreviews`, { body: '{}' })).status).toBe(404);
      let exited = false;
      void watchExit.then(() => (exited = true));
      await within(5_000, async () => (exited ? true : undefined)).catch(() => {
        throw new Error(`kubectl watch did not end: ${watchErrors}`);
      });
      const gone = await within(1_000, async () => {
        const groups = (await server.request('GET', '/apis')).json<{ groups: { name: string }[] }>();
        return groups.groups.some((g) => g.name === GROUP) ? undefined : true;
      });
      expect(gone.value).toBe(true);
      expect((await server.request('GET', `/openapi/v3/apis/${GROUP}/v1`)).status).toBe(404);
      expect((await server.request('GET', `/apis/${GROUP}/v1`)).status).toBe(404);
    } finally {
      watch.kill();
    }
  }, 60_000);

  test('a conversion that answers later (as a webhook does) serves every version', async () => {
    // Stored as v2 `spec.length`; v1 calls it `spec.size`. The conversion answers on a later turn.
    const conversions: string[] = [];
    const convert = async (object: KubeObject, to: GroupVersion): Promise<KubeObject> => {
      await new Promise((resolve) => setImmediate(resolve));
      const from = String(object.apiVersion).split('/')[1];
      if (from === to.version) return object;
      conversions.push(`${from}->${to.version}`);
      const spec = record(object.spec);
      const converted = to.version === 'v1' ? { size: spec.length } : { length: spec.size };
      return { ...object, apiVersion: `${GROUP}/${to.version}`, spec: converted };
    };
    const gadgetSchema = (version: string, field: string) =>
      objectSchema(
        'Gadget',
        { spec: { type: 'object', properties: { [field]: { type: 'integer', format: 'int64' } } } },
        version,
      );
    const gadgets: ResourceType = {
      ...widgets,
      resource: 'gadgets',
      singular: 'gadget',
      kind: 'Gadget',
      listKind: 'GadgetList',
      versions: [
        { version: 'v2', definition: 'dev.capstan.example.v2.Gadget' },
        { version: 'v1', definition: 'dev.capstan.example.v1.Gadget' },
      ],
      storageVersion: 'v2',
      storagePrefix: `${GROUP}/gadgets`,
      shortNames: [],
      definitions: {
        'dev.capstan.example.v2.Gadget': gadgetSchema('v2', 'length'),
        'dev.capstan.example.v1.Gadget': gadgetSchema('v1', 'size'),
      },
      handlers: undefined,
      convert,
    };
    server.plane.registry.add(gadgets);
    try {
      const v1 = `/apis/${GROUP}/v1/namespaces/default/gadgets`;
      const v2 = `/apis/${GROUP}/v2/namespaces/default/gadgets`;
      const created = await server.request('POST', `${v1}?fieldValidation=Strict`, {
        body: JSON.stringify({ apiVersion: `${GROUP}/v1`, kind: 'Gadget', metadata: { name: 'g' }, spec: { size: 7 } }),
        headers: { 'content-type': 'application/json' },
      });
      expect(created.status).toBe(201);
      expect(created.json<KubeObject>()).toMatchObject({ apiVersion: `${GROUP}/v1`, spec: { size: 7 } });
      expect((await server.request('GET', `${v2}/g`)).json<KubeObject>()).toMatchObject({
        apiVersion: `${GROUP}/v2`,
        spec: { length: 7 },
      });
      const listed = (await server.request('GET', v1)).json<{ items: KubeObject[] }>();
      expect(listed.items).toEqual([expect.objectContaining({ apiVersion: `${GROUP}/v1`, spec: { size: 7 } })]);
      const updated = await server.request('PATCH', `${v1}/g`, {
        body: JSON.stringify({ spec: { size: 8 } }),
        headers: { 'content-type': 'application/merge-patch+json' },
      });
      expect(updated.json<KubeObject>()).toMatchObject({ spec: { size: 8 } });
      expect((await server.request('GET', `${v2}/g`)).json<KubeObject>()).toMatchObject({ spec: { length: 8 } });

      const events = (await server.request('GET', `${v1}?watch=true&resourceVersion=0&timeoutSeconds=1`)).body
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { object: KubeObject });
      expect(events.map((event) => event.object.spec)).toEqual([{ size: 8 }]);
      expect(conversions).toEqual(expect.arrayContaining(['v1->v2', 'v2->v1']));
    } finally {
      server.plane.registry.remove({ group: GROUP, resource: 'gadgets' });
    }
  }, 30_000);

  test('the controllers follow: garbage collection and namespace deletion reach a type added later', async () => {
    const things: ResourceType = {
      ...widgets,
      resource: 'things',
      singular: 'thing',
      kind: 'Thing',
      listKind: 'ThingList',
      versions: [{ version: 'v1', definition: 'dev.capstan.example.v1.Thing' }],
      storagePrefix: `${GROUP}/things`,
      shortNames: [],
      definitions: { 'dev.capstan.example.v1.Thing': objectSchema('Thing', {}) },
      handlers: undefined,
    };
    server.plane.registry.add(things);
    const json = { 'content-type': 'application/json' };
    const post = async (path: string, object: object) => {
      const response = await server.request('POST', path, { body: JSON.stringify(object), headers: json });
      expect(response.status).toBe(201);
      return response.json<KubeObject>();
    };
    try {
      await post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'living' } });
      const thingsPath = `/apis/${GROUP}/v1/namespaces/living/things`;
      const owner = await post(thingsPath, { apiVersion: `${GROUP}/v1`, kind: 'Thing', metadata: { name: 'owner' } });
      await post(thingsPath, { apiVersion: `${GROUP}/v1`, kind: 'Thing', metadata: { name: 'bystander' } });
      await post('/api/v1/namespaces/living/configmaps', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name: 'dependent',
          ownerReferences: [{ apiVersion: `${GROUP}/v1`, kind: 'Thing', name: 'owner', uid: owner.metadata.uid }],
        },
      });
      // The collector must know the owner (its informer started with the type): the dependent stays.
      // Nothing may happen here, so there is no condition to wait for: the collector is given a
      // moment in which a wrong deletion would show.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect((await server.request('GET', '/api/v1/namespaces/living/configmaps/dependent')).status).toBe(200);

      expect((await server.request('DELETE', `${thingsPath}/owner`)).status).toBe(200);
      await within(10_000, async () =>
        (await server.request('GET', '/api/v1/namespaces/living/configmaps/dependent')).status === 404
          ? true
          : undefined,
      );

      expect((await server.request('DELETE', '/api/v1/namespaces/living')).status).toBe(200);
      await within(10_000, async () =>
        (await server.request('GET', '/api/v1/namespaces/living')).status === 404 ? true : undefined,
      );
      expect((await server.request('GET', `${thingsPath}/bystander`)).status).toBe(404);
    } finally {
      server.plane.registry.remove({ group: GROUP, resource: 'things' });
    }
  }, 30_000);

  test('a built-in kind takes a handler in the same slots by being replaced', async () => {
    const { registry } = server.plane;
    const configmaps = registry.find({ group: '', version: 'v1' }, 'configmaps') as ResourceType;
    // `configmaps/<name>/keys` answers the sorted keys of the ConfigMap's data.
    const keys =
      (scope: HandlerScope): ResourceHandler =>
      async ({ info, res }) => {
        const object = await scope.storage.get(objectKeyOf(scope, info));
        res.status(200).json({ keys: Object.keys(record(object.data)).sort() });
      };
    const json = { 'content-type': 'application/json' };
    const created = await server.request('POST', '/api/v1/namespaces/default/configmaps', {
      body: JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'slots' },
        data: { b: '2', a: '1' },
      }),
      headers: json,
    });
    expect(created.status).toBe(201);
    expect((await server.request('GET', '/api/v1/namespaces/default/configmaps/slots/keys')).status).toBe(404);

    registry.add({
      ...configmaps,
      handlers: {
        subresources: {
          keys: {
            kind: { group: '', version: 'v1', kind: 'ConfigMap' },
            definition: configmaps.versions[0].definition,
            handlers: { get: keys },
          },
        },
      },
    });
    try {
      const answer = await server.request('GET', '/api/v1/namespaces/default/configmaps/slots/keys');
      expect(answer.status).toBe(200);
      expect(answer.json()).toEqual({ keys: ['a', 'b'] });
      const core = (await server.request('GET', '/api/v1')).json<{ resources: { name: string; verbs: string[] }[] }>();
      expect(core.resources).toContainEqual(expect.objectContaining({ name: 'configmaps/keys', verbs: ['get'] }));
      // The generic handlers and the cache go on as before.
      expect(
        (await server.request('GET', '/api/v1/namespaces/default/configmaps/slots')).json<KubeObject>().data,
      ).toEqual({ a: '1', b: '2' });
      expect(
        (
          await server.request('POST', '/api/v1/namespaces/default/configmaps/slots/keys', {
            body: '{}',
            headers: json,
          })
        ).status,
      ).toBe(405);
    } finally {
      registry.add(configmaps);
    }
    expect((await server.request('GET', '/api/v1/namespaces/default/configmaps/slots/keys')).status).toBe(404);
    expect((await server.request('DELETE', '/api/v1/namespaces/default/configmaps/slots')).status).toBe(200);
  }, 30_000);
});
