import express from 'express';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { get as httpGet, type IncomingHttpHeaders, type Server } from 'node:http';
import { servedGroups } from '../../../server/discovery/served-groups';
import { openAPIV3Document, openAPIV3PathKey } from '../../../server/openapi/documents';
import { mountOpenAPI } from '../../../server/openapi/mount-openapi';
import { encodeOpenAPIV3Protobuf } from '../../../server/openapi/openapi-v3-protobuf';
import { schemaData } from '../../../server/schema/definitions';
import { FIXTURE_DEFINITIONS, FIXTURE_TYPES, fixtureRegistry } from '../discovery/fixtures';
import { builtinRegistry } from '../../../server/builtin-types';
import { customResourceType } from '../../../server/apiextensions/custom-resource-type';
import type { CustomResourceDefinition } from '../../../server/apiextensions/crd-types';
import { ResourceTypeRegistry } from '../../../server/registry/registry';

interface Parameter {
  name: string;
  in: string;
  schema?: { type: string };
  type?: string;
}
interface Operation {
  operationId: string;
  description?: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: { $ref: string } }>; required?: boolean };
  responses: Record<
    string,
    { description: string; content?: Record<string, { schema: { $ref: string } }>; schema?: { $ref: string } }
  >;
  consumes?: string[];
  'x-kubernetes-action': string;
  'x-kubernetes-group-version-kind'?: { group: string; version: string; kind: string };
}
type PathItem = Partial<Record<'get' | 'put' | 'post' | 'delete' | 'patch', Operation>> & { parameters?: Parameter[] };
interface V3Document {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, PathItem>;
  components: { schemas: Record<string, Record<string, unknown>> };
}
type V3Frame = Record<string, unknown> & { info: unknown; components: { securitySchemes?: unknown } };
interface V2Document {
  swagger: string;
  paths: Record<string, PathItem>;
  definitions: Record<string, Record<string, unknown>>;
  /** The parameters operations share, named by `$ref: #/parameters/<name>`. */
  parameters: Record<string, Parameter>;
}

const WRITE_METHODS = ['post', 'put', 'patch'] as const;

function operationsOf(paths: Record<string, PathItem>): Array<{ path: string; method: string; operation: Operation }> {
  return Object.entries(paths).flatMap(([path, item]) =>
    (['get', 'put', 'post', 'delete', 'patch'] as const)
      .filter((method) => item[method] !== undefined)
      .map((method) => ({ path, method, operation: item[method] as Operation })),
  );
}

/** An operation's parameters with its path's: a parameter every operation of a path takes is declared on the path. */
function parametersOf(paths: Record<string, PathItem>, path: string, operation: Operation): Parameter[] {
  return [...(paths[path]?.parameters ?? []), ...(operation.parameters ?? [])];
}

/** Every `$ref` target in a JSON value. */
function refsIn(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(refsIn);
  if (value === null || typeof value !== 'object') return [];
  // A property may itself be named `$ref` (JSONSchemaProps has one): only string values are references.
  return Object.entries(value).flatMap(([key, child]) =>
    key === '$ref' && typeof child === 'string' ? [child] : refsIn(child),
  );
}

describe('OpenAPI over HTTP', () => {
  const registry = fixtureRegistry();
  let definitionLoads = 0;
  let server: Server;
  let base: string;

  beforeAll(async () => {
    const app = express();
    mountOpenAPI(app, {
      registry,
      serverVersion: 'v1.34.0',
      definitions: () => {
        definitionLoads++;
        return FIXTURE_DEFINITIONS;
      },
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${base}${path}`, { headers, redirect: 'manual' });
  const root = async () =>
    ((await (await get('/openapi/v3')).json()) as { paths: Record<string, { serverRelativeURL: string }> }).paths;
  const v3 = async (key: string) => (await (await get(`/openapi/v3/${key}`)).json()) as V3Document;

  test('the v3 root lists every served group-version with a content hash', async () => {
    const paths = await root();
    expect(Object.keys(paths).sort()).toEqual([
      '.well-known/openid-configuration',
      'api',
      'api/v1',
      'apis',
      'apis/apps',
      'apis/apps/v1',
      'apis/authorization.k8s.io',
      'apis/authorization.k8s.io/v1',
      'openid/v1/jwks',
      'version',
    ]);
    for (const [key, { serverRelativeURL }] of Object.entries(paths)) {
      expect(serverRelativeURL).toMatch(new RegExp(`^/openapi/v3/${key.replace(/\./g, '\\.')}\\?hash=[0-9A-F]{128}$`));
    }
    expect(definitionLoads).toBe(1);
  });

  test.each(['api/v1', 'apis/apps/v1', 'apis/authorization.k8s.io/v1'])(
    '%s: every write operation advertises fieldValidation, dryRun and fieldManager; refs resolve',
    async (key) => {
      const document = await v3(key);
      expect(document.openapi).toBe('3.0.0');
      expect(document.info).toEqual({ title: 'Kubernetes', version: 'v1.34.0' });
      const writes = operationsOf(document.paths).filter(({ method }) =>
        (WRITE_METHODS as readonly string[]).includes(method),
      );
      expect(writes.length).toBeGreaterThan(0);
      for (const { path, operation } of writes) {
        const names = parametersOf(document.paths, path, operation)
          .filter((p) => p.in === 'query')
          .map((p) => p.name);
        expect(names).toEqual(expect.arrayContaining(['fieldValidation', 'dryRun', 'fieldManager']));
        expect(operation['x-kubernetes-group-version-kind']).toBeDefined();
      }
      for (const ref of refsIn(document)) {
        expect(ref).toMatch(/^#\/components\/schemas\//);
        expect(document.components.schemas[ref.slice('#/components/schemas/'.length)]).toBeDefined();
      }
      expect(JSON.stringify(document)).not.toContain('x-capstan');
    },
  );

  test('apps/v1: deployment operations, scale with autoscaling/v1 Scale, patch media types', async () => {
    const document = await v3('apis/apps/v1');
    const item = document.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'];
    expect(item.parameters?.map((p) => p.name)).toEqual(['name', 'namespace', 'pretty']);
    expect(item.patch?.operationId).toBe('patchAppsV1NamespacedDeployment');
    expect(item.patch?.['x-kubernetes-action']).toBe('patch');
    expect(item.patch?.['x-kubernetes-group-version-kind']).toEqual({
      group: 'apps',
      kind: 'Deployment',
      version: 'v1',
    });
    expect(Object.keys(item.patch?.requestBody?.content ?? {})).toEqual([
      'application/apply-patch+yaml',
      'application/json-patch+json',
      'application/merge-patch+json',
      'application/strategic-merge-patch+json',
    ]);
    expect(item.patch?.parameters?.map((p) => p.name)).toEqual(['dryRun', 'fieldManager', 'fieldValidation', 'force']);

    const scale = document.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale'];
    expect(scale.put?.operationId).toBe('replaceAppsV1NamespacedDeploymentScale');
    expect(scale.put?.['x-kubernetes-group-version-kind']).toEqual({
      group: 'autoscaling',
      kind: 'Scale',
      version: 'v1',
    });
    expect(scale.put?.requestBody?.content['*/*'].schema.$ref).toBe(
      '#/components/schemas/io.k8s.api.autoscaling.v1.Scale',
    );

    const actions = operationsOf(document.paths).map(
      ({ operation }) => `${operation.operationId} ${operation['x-kubernetes-action']}`,
    );
    expect(actions).toEqual(
      expect.arrayContaining([
        'getAppsV1APIResources undefined',
        'listAppsV1DeploymentForAllNamespaces list',
        'listAppsV1NamespacedDeployment list',
        'createAppsV1NamespacedDeployment post',
        'deleteAppsV1CollectionNamespacedDeployment deletecollection',
        'readAppsV1NamespacedDeployment get',
        'replaceAppsV1NamespacedDeployment put',
        'deleteAppsV1NamespacedDeployment delete',
        'watchAppsV1NamespacedDeploymentList watchlist',
        'watchAppsV1DeploymentListForAllNamespaces watchlist',
        'watchAppsV1NamespacedDeployment watch',
        'readAppsV1NamespacedDeploymentStatus get',
        'patchAppsV1NamespacedDeploymentStatus patch',
      ]),
    );
  });

  test('apps/v1 schemas: the transitive closure, kinds tagged, refs with siblings wrapped in allOf', async () => {
    const { schemas } = (await v3('apis/apps/v1')).components;
    expect(Object.keys(schemas)).toEqual(
      expect.arrayContaining([
        'io.k8s.api.apps.v1.Deployment',
        'io.k8s.api.apps.v1.DeploymentList',
        'io.k8s.api.apps.v1.DeploymentStrategy',
        'io.k8s.apimachinery.pkg.util.intstr.IntOrString',
        'io.k8s.api.autoscaling.v1.Scale',
      ]),
    );
    expect(Object.keys(schemas)).not.toContain('io.k8s.api.core.v1.Pod');
    const deployment = schemas['io.k8s.api.apps.v1.Deployment'] as { properties: Record<string, unknown> };
    expect(deployment['x-kubernetes-group-version-kind' as keyof typeof deployment]).toEqual([
      { group: 'apps', kind: 'Deployment', version: 'v1' },
    ]);
    // Descriptions come from the API's Go modules at install time (tools/descriptions), as a
    // reference's document carries them; a described reference is wrapped like any other.
    expect(deployment.properties.metadata).toEqual({
      allOf: [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }],
      default: {},
      description: expect.stringMatching(/^Standard object's metadata\./),
    });
    expect(deployment.properties.spec).toEqual({
      allOf: [{ $ref: '#/components/schemas/io.k8s.api.apps.v1.DeploymentSpec' }],
      description: 'Specification of the desired behavior of the Deployment.',
    });
    expect(deployment.properties.apiVersion).toEqual({
      type: 'string',
      description: expect.stringMatching(/^APIVersion defines the versioned schema/),
    });
  });

  test('core/v1: cluster-scoped namespaces have no namespace parameter, finalize is PUT only', async () => {
    const document = await v3('api/v1');
    expect(document.paths['/api/v1/namespaces/{name}'].parameters?.map((p) => p.name)).toEqual(['name', 'pretty']);
    expect(document.paths['/api/v1/namespaces'].post?.operationId).toBe('createCoreV1Namespace');
    const finalize = document.paths['/api/v1/namespaces/{name}/finalize'];
    expect(Object.keys(finalize).sort()).toEqual(['parameters', 'put']);
    expect(finalize.put?.operationId).toBe('replaceCoreV1NamespaceFinalize');
    expect(document.paths['/api/v1/namespaces/{namespace}/pods'].get?.operationId).toBe('listCoreV1NamespacedPod');
    const pod = document.components.schemas['io.k8s.api.core.v1.PodSpec'] as {
      properties: Record<string, Record<string, unknown>>;
    };
    expect(pod.properties.containers).toMatchObject({
      'x-kubernetes-patch-merge-key': 'name',
      'x-kubernetes-patch-strategy': 'merge',
    });
  });

  test('hash URLs are immutable; a stale hash redirects; ETag answers If-None-Match with 304', async () => {
    const url = (await root())['apis/apps/v1'].serverRelativeURL;
    const hash = url.split('hash=')[1];

    const pinned = await get(url);
    expect(pinned.status).toBe(200);
    expect(pinned.headers.get('content-type')).toBe('application/json');
    expect(pinned.headers.get('cache-control')).toBe('public, immutable');
    expect(pinned.headers.get('vary')).toBe('Accept');
    expect(new Date(pinned.headers.get('expires') as string).getTime()).toBeGreaterThan(Date.now() + 300 * 86_400_000);
    expect(pinned.headers.get('etag')).toBe(`"${hash}"`);

    const unpinned = await get('/openapi/v3/apis/apps/v1');
    expect(unpinned.headers.get('cache-control')).toBeNull();
    expect(unpinned.headers.get('etag')).toBe(`"${hash}"`);

    const stale = await get('/openapi/v3/apis/apps/v1?hash=ABC');
    expect(stale.status).toBe(301);
    expect(stale.headers.get('location')).toBe(url);

    expect((await get(url, { 'if-none-match': `"${hash}"` })).status).toBe(304);
    expect((await get('/openapi/v3/apis/nothing/v1')).status).toBe(404);
  });

  // The answers kube-apiserver 1.34.4 gave for apps/v1 with these Accept headers (the bytes are
  // compared with the reference's in openapi-v3-protobuf.test.ts).
  test('v3 in protobuf: negotiated as the reference does, with the JSON form ETag', async () => {
    const json = await get('/openapi/v3/apis/apps/v1');
    const etag = json.headers.get('etag') as string;
    const expected = encodeOpenAPIV3Protobuf(JSON.parse(await json.text()) as object);
    expect(json.headers.get('vary')).toBe('Accept');
    for (const accept of [
      'application/com.github.proto-openapi.spec.v3.v1.0+protobuf',
      'text/html, application/com.github.proto-openapi.spec.v3@v1.0+protobuf',
      'application/json;q=0.5, application/com.github.proto-openapi.spec.v3@v1.0+protobuf',
    ]) {
      const answer = await get('/openapi/v3/apis/apps/v1', { accept });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toBe('application/com.github.proto-openapi.spec.v3.v1.0+protobuf');
      expect(answer.headers.get('etag')).toBe(etag);
      expect(answer.headers.get('vary')).toBe('Accept');
      expect(Buffer.from(await answer.arrayBuffer()).equals(expected)).toBe(true);
    }
    const protobuf = { accept: 'application/com.github.proto-openapi.spec.v3@v1.0+protobuf' };
    const url = (await root())['apis/apps/v1'].serverRelativeURL;
    const pinned = await get(url, protobuf);
    expect(pinned.headers.get('cache-control')).toBe('public, immutable');
    expect(pinned.headers.get('expires')).toMatch(/^\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} UTC$/);
    expect((await get(url, { ...protobuf, 'if-none-match': etag })).status).toBe(304);
    // Go's redirect writes no body once kube-openapi has set the Content-Type.
    const stale = await get('/openapi/v3/apis/apps/v1?hash=ABC', protobuf);
    expect(stale.status).toBe(301);
    expect(stale.headers.get('location')).toBe(url);
    expect(stale.headers.get('content-type')).toBe('application/com.github.proto-openapi.spec.v3.v1.0+protobuf');
    expect(await stale.text()).toBe('');

    for (const accept of [
      'application/com.github.proto-openapi.spec.v2@v1.0+protobuf',
      'APPLICATION/COM.GITHUB.PROTO-OPENAPI.SPEC.V3@V1.0+PROTOBUF',
    ]) {
      const refused = await get('/openapi/v3/apis/apps/v1', { accept });
      expect(refused.status).toBe(406);
      expect(refused.headers.get('vary')).toBe('Accept');
    }
    // No clause the parser keeps: an empty 200 with no headers of the handler's.
    for (const accept of [',', ';q=1']) {
      const empty = await get('/openapi/v3/apis/apps/v1', { accept });
      expect(empty.status).toBe(200);
      expect(empty.headers.get('vary')).toBeNull();
      expect(empty.headers.get('etag')).toBeNull();
      expect(await empty.text()).toBe('');
    }
  });

  test('documents follow the registry: a changed set of types changes the root', async () => {
    const before = await root();
    const removed = FIXTURE_TYPES.filter((type) => type.group === 'authorization.k8s.io');
    for (const type of removed) registry.remove(type);
    try {
      const keys = Object.keys(await root());
      expect(keys.filter((key) => key.includes('authorization.k8s.io'))).toEqual([]);
      expect(keys).toEqual(expect.arrayContaining(['api/v1', 'apis/apps', 'apis/apps/v1']));
      expect((await root())['apis/apps/v1']).toEqual(before['apis/apps/v1']);
    } finally {
      for (const type of removed) registry.add(type);
    }
  });

  test('v2: one Swagger document with every path, definitions referenced as #/definitions/', async () => {
    const response = await get('/openapi/v2', { accept: 'application/json' });
    expect(response.headers.get('etag')).toMatch(/^"[0-9A-F]{128}"$/);
    const document = (await response.json()) as V2Document;
    expect(document.swagger).toBe('2.0');
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(['/api/v1/namespaces', '/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale']),
    );
    const patch = document.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'].patch as Operation;
    expect(patch.consumes).toContain('application/strategic-merge-patch+json');
    const resolved = (parameter: Parameter & { $ref?: string }) =>
      parameter.$ref === undefined ? parameter : document.parameters[parameter.$ref.replace('#/parameters/', '')];
    // The parameters older kubectl looks for stay inline; the rest, the generic Patch body too, are shared.
    expect(patch.parameters?.map((p: Parameter & { $ref?: string }) => p.$ref ?? p.in)).toEqual([
      expect.stringMatching(/^#\/parameters\/body-/),
      'query',
      expect.stringMatching(/^#\/parameters\/fieldManager-/),
      'query',
      expect.stringMatching(/^#\/parameters\/force-/),
    ]);
    expect(patch.parameters?.map((p) => `${resolved(p).in}:${resolved(p).name}`)).toEqual([
      'body:body',
      'query:dryRun',
      'query:fieldManager',
      'query:fieldValidation',
      'query:force',
    ]);
    for (const ref of refsIn(document)) {
      if (ref.startsWith('#/parameters/')) expect(document.parameters[ref.slice('#/parameters/'.length)]).toBeDefined();
      else expect(document.definitions[ref.replace('#/definitions/', '')]).toBeDefined();
    }
    expect(JSON.stringify(document)).not.toContain('x-capstan');
    expect((await get('/openapi/v2', { 'if-none-match': response.headers.get('etag') as string })).status).toBe(304);
    // The protobuf form kubectl falls back to (its bytes are tested in test/server/codec/openapi-v2-protobuf.test.ts).
    const protobuf = await get('/openapi/v2', { accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' });
    expect(protobuf.status).toBe(200);
    expect(protobuf.headers.get('content-type')).toBe('application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
  });

  // kube-openapi's v2 handler sits behind a gzip handler: Go's transport asks for gzip by
  // default, and the reference answered kubectl's fetch of its 2 MB document with 200 kB.
  test('v2 is gzipped for a client that takes gzip, and varies by Accept-Encoding first', async () => {
    const raw = (headers: Record<string, string>) =>
      new Promise<{ headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
        httpGet(`${base}/openapi/v2`, { headers }, (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => resolve({ headers: response.headers, body: Buffer.concat(chunks) }));
        }).on('error', reject);
      });
    const plain = await raw({ accept: 'application/json' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toBe('Accept-Encoding, Accept');
    for (const acceptEncoding of ['gzip', 'deflate, gzip;q=0.5, br']) {
      const gzipped = await raw({ accept: 'application/json', 'accept-encoding': acceptEncoding });
      expect(gzipped.headers['content-encoding']).toBe('gzip');
      expect(gzipped.headers.etag).toBe(plain.headers.etag);
      expect(gzipped.body.length).toBeLessThan(plain.body.length / 4);
      expect(gunzipSync(gzipped.body).equals(plain.body)).toBe(true);
    }
    expect((await raw({ accept: 'application/json', 'accept-encoding': 'gzip;q=0' })).headers['content-encoding']).toBe(
      undefined,
    );
    const protobuf = await raw({
      accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf',
      'accept-encoding': 'gzip',
    });
    expect(protobuf.headers['content-encoding']).toBe('gzip');
    expect(protobuf.headers['content-type']).toBe('application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
  });
});

describe('OpenAPI documents of the built-in registry', () => {
  const groups = servedGroups(builtinRegistry().all());

  test.each(
    groups.flatMap((group) =>
      group.versions.map((groupVersion) => [openAPIV3PathKey(groupVersion), groupVersion] as const),
    ),
  )('%s: every served kind has its schema; refs resolve; fieldValidation on every write', (_key, groupVersion) => {
    const definitions = schemaData().definitions;
    const document = openAPIV3Document({
      groupVersion,
      definitions,
      info: { title: 'Kubernetes', version: 'v1.34.0' },
    }) as V3Document;
    for (const resource of groupVersion.resources) expect(definitions[resource.served.definition]).toBeDefined();
    for (const ref of refsIn(document))
      expect(document.components.schemas[ref.slice('#/components/schemas/'.length)]).toBeDefined();
    // A connect operation (pods/exec) takes its options kind's fields alone, as in the reference.
    const writes = operationsOf(document.paths).filter(
      ({ method, operation }) =>
        (WRITE_METHODS as readonly string[]).includes(method) && operation['x-kubernetes-action'] !== 'connect',
    );
    for (const { path, operation } of writes)
      expect(parametersOf(document.paths, path, operation).map((p) => p.name)).toContain('fieldValidation');
    for (const resource of groupVersion.resources) {
      const schema = document.components.schemas[resource.served.definition];
      expect(schema['x-kubernetes-group-version-kind']).toContainEqual({
        group: groupVersion.group,
        kind: resource.type.kind,
        version: groupVersion.version,
      });
    }
  });
});

describe('OpenAPI v3 document frame as the reference serves it', () => {
  // The reference's JSON documents recorded for the protobuf test (kube-apiserver 1.34.4).
  const FIXTURES = join(__dirname, 'fixtures', 'openapi-v3-protobuf');
  let server: Server;
  let base: string;

  beforeAll(async () => {
    const app = express();
    const crds = ['widgets-crd.json', 'gadgets-crd.json'].map(
      (file) => JSON.parse(readFileSync(join(FIXTURES, file), 'utf8')) as CustomResourceDefinition,
    );
    const registry = new ResourceTypeRegistry({
      types: [...builtinRegistry().all(), ...crds.map((crd) => customResourceType(crd))],
    });
    mountOpenAPI(app, { registry });
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  test.each([
    ['api/v1', 'api_v1.json.gz'],
    ['apis/apps/v1', 'apis_apps_v1.json.gz'],
    ['apis/proto.example.com/v1', 'apis_proto.example.com_v1.json.gz'],
  ])('%s: top-level fields, info and security schemes equal the reference', async (key, fixture) => {
    const reference = JSON.parse(gunzipSync(readFileSync(join(FIXTURES, fixture))).toString('utf8')) as V3Frame;
    const served = (await (await fetch(`${base}/openapi/v3/${key}`)).json()) as V3Frame;
    expect(Object.keys(served)).toEqual(Object.keys(reference));
    expect(served.info).toEqual(reference.info);
    expect(served.components.securitySchemes).toEqual(reference.components.securitySchemes);
  });

  test.each([
    ['api/v1', 'api_v1.json.gz'],
    ['apis/apps/v1', 'apis_apps_v1.json.gz'],
  ])('%s: the resource list operation carries no action, as in the reference', async (key, fixture) => {
    const reference = JSON.parse(gunzipSync(readFileSync(join(FIXTURES, fixture))).toString('utf8')) as V3Document;
    const served = (await (await fetch(`${base}/openapi/v3/${key}`)).json()) as V3Document;
    const listPath = `/${key}/`;
    expect(reference.paths[listPath]?.get).toBeDefined();
    // Compared as sets: capstan still writes `tags` after the responses, the reference first.
    const keys = (document: V3Document) => Object.keys(document.paths[listPath]?.get ?? {}).sort();
    expect(keys(served)).toEqual(keys(reference));
  });

  test.each([
    ['api/v1', 'api_v1.json.gz'],
    ['apis/apps/v1', 'apis_apps_v1.json.gz'],
  ])('%s: watch paths describe themselves as the reference does', async (key, fixture) => {
    const reference = JSON.parse(gunzipSync(readFileSync(join(FIXTURES, fixture))).toString('utf8')) as V3Document;
    const served = (await (await fetch(`${base}/openapi/v3/${key}`)).json()) as V3Document;
    const watchPaths = Object.keys(reference.paths).filter((path) => path.includes('/watch/'));
    expect(watchPaths.length).toBeGreaterThan(0);
    const descriptions = (document: V3Document) => watchPaths.map((path) => document.paths[path]?.get?.description);
    expect(descriptions(served)).toEqual(descriptions(reference));
  });
});
