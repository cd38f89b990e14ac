import express from 'express';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { parseAccept } from '../../../server/codec/media-type';
import { chooseDiscoveryRepresentation, mountDiscovery } from '../../../server/discovery/mount-discovery';
import { statusErrorHandler } from '../../../server/http/errors';
import { compareKubeAwareVersions } from '../../../server/discovery/group-priority';
import { servedGroups, type ServedGroupVersion } from '../../../server/discovery/served-groups';
import { apiResourceListDocument } from '../../../server/discovery/legacy-documents';
import type { AggregatedDiscoveryVersion, APIGroupDiscoveryList } from '../../../server/discovery/aggregated-documents';
import type { APIGroupList, APIResourceList } from '../../../server/discovery/legacy-documents';
import { FIXTURE_TYPES, fixtureRegistry } from './fixtures';
import { builtinRegistry } from '../../../server/builtin-types';
import { featureGateReader } from '../../../server/config/feature-enabled';

const V2 = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const V2BETA1 = 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList';
const KUBECTL_ACCEPT = `${V2},${V2BETA1},application/json`;

describe('Accept parsing', () => {
  test.each([
    ['absent header means anything', undefined, [['*', '*', {}, 1]]],
    [
      'parameters and weights',
      'application/json;as=Table;v=v1;g=meta.k8s.io;q=0.9, application/json',
      [
        ['application', 'json', {}, 1],
        ['application', 'json', { as: 'Table', v: 'v1', g: 'meta.k8s.io' }, 0.9],
      ],
    ],
    ['quoted values may hold separators', 'text/plain;x="a,b;c"', [['text', 'plain', { x: 'a,b;c' }, 1]]],
    // q=0 ranges stay, last, as the reference keeps them (server/codec/media-type.ts).
    [
      'malformed ranges dropped, q=0 kept last',
      'application/json;q=0, garbage, */*',
      [
        ['*', '*', {}, 1],
        ['application', 'json', {}, 0],
      ],
    ],
  ])('%s', (_name, header, expected) => {
    const ranges = parseAccept(header).map((r) => [r.type, r.subtype, r.parameters, r.quality]);
    expect(ranges).toEqual(expected);
  });

  // Recorded from kube-apiserver 1.34.4: a range asking for the aggregated form wins whatever
  // ranges come before it, in any type discovery is served in; anything else is the
  // unaggregated documents' negotiation (which may still refuse).
  test.each([
    ['kubectl asks for v2 first', KUBECTL_ACCEPT, { form: 'aggregated', version: 'v2', format: 'json' }],
    [
      'an older client asks for v2beta1',
      `${V2BETA1},application/json`,
      { form: 'aggregated', version: 'v2beta1', format: 'json' },
    ],
    ['v2beta1 not served: passed over', `${V2BETA1},application/json`, { form: 'legacy' }, ['v2']],
    ['v2beta1 not served, nothing else asked for', V2BETA1, { form: 'legacy' }, ['v2']],
    ['plain JSON', 'application/json', { form: 'legacy' }],
    ['anything', '*/*', { form: 'legacy' }],
    [
      'an aggregated range after a plain one',
      `application/json,${V2}`,
      { form: 'aggregated', version: 'v2', format: 'json' },
    ],
    [
      'in YAML',
      'application/yaml;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
      { form: 'aggregated', version: 'v2', format: 'yaml' },
    ],
    [
      'in protobuf',
      'application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
      { form: 'aggregated', version: 'v2', format: 'protobuf' },
    ],
    [
      'an unknown aggregated version falls through',
      `${V2.replace('v=v2', 'v=v3')},application/json`,
      { form: 'legacy' },
    ],
    ['protobuf', 'application/vnd.kubernetes.protobuf', { form: 'legacy' }],
    ['a Table is not the aggregated form', 'application/json;as=Table;v=v1;g=meta.k8s.io', { form: 'legacy' }],
  ])('discovery representation: %s', (_name, accept, expected, aggregatedVersions = ['v2', 'v2beta1']) => {
    const chosen = chooseDiscoveryRepresentation({
      accept,
      aggregatedVersions: aggregatedVersions as AggregatedDiscoveryVersion[],
    });
    expect(
      chosen.form === 'aggregated'
        ? { form: chosen.form, version: chosen.version, format: chosen.serializer.format }
        : chosen,
    ).toEqual(expected);
  });
});

describe('ordering', () => {
  test('kube-aware versions', () => {
    const versions = ['foo10', 'v1', 'v11alpha2', 'v10beta3', 'v2', 'foo1', 'v3beta1', 'v12alpha1', 'v10', 'v11beta2'];
    expect([...versions].sort(compareKubeAwareVersions)).toEqual([
      'v10',
      'v2',
      'v1',
      'v11beta2',
      'v10beta3',
      'v3beta1',
      'v12alpha1',
      'v11alpha2',
      'foo1',
      'foo10',
    ]);
  });

  test('groups: core first, then by the reference priority, custom groups last', () => {
    const custom = { ...FIXTURE_TYPES[2], group: 'aaa.example.com', resource: 'widgets', kind: 'Widget' };
    const batch = { ...FIXTURE_TYPES[2], group: 'batch', resource: 'jobs', kind: 'Job' };
    const names = servedGroups([custom, ...FIXTURE_TYPES, batch]).map((group) => group.name);
    expect(names).toEqual(['', 'apps', 'authorization.k8s.io', 'batch', 'aaa.example.com']);
  });
});

describe('discovery over HTTP', () => {
  const registry = fixtureRegistry();
  let server: Server;
  let base: string;

  beforeAll(async () => {
    const app = express();
    // v2beta1 served too (its gate off), so that both aggregated forms are checked here.
    mountDiscovery(app, { registry, featureEnabled: featureGateReader({ AggregatedDiscoveryRemoveBetaType: false }) });
    app.use(statusErrorHandler());
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${base}${path}`, { headers });

  test('/api lists v1 and the address clients reach', async () => {
    const response = await get('/api', { accept: 'application/json' });
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual({
      kind: 'APIVersions',
      versions: ['v1'],
      serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: base.replace('http://', '') }],
    });
  });

  test('/api/v1: cluster-scoped namespaces with finalize and status, in name order', async () => {
    const body = (await (await get('/api/v1')).json()) as APIResourceList;
    expect(body.kind).toBe('APIResourceList');
    expect(body.apiVersion).toBeUndefined();
    expect(body.groupVersion).toBe('v1');
    expect(body.resources.map((r) => r.name)).toEqual([
      'namespaces',
      'namespaces/finalize',
      'namespaces/status',
      'pods',
      'pods/status',
    ]);
    expect(body.resources[0]).toEqual({
      name: 'namespaces',
      singularName: 'namespace',
      namespaced: false,
      kind: 'Namespace',
      verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['ns'],
      storageVersionHash: 'Q3oi5N2YM8M=',
    });
    expect(body.resources[1]).toEqual({
      name: 'namespaces/finalize',
      singularName: '',
      namespaced: false,
      kind: 'Namespace',
      verbs: ['update'],
    });
    expect(body.resources[3].storageVersionHash).toBe('xPOwRZ+Yhw8=');
  });

  test('/apis/apps/v1: deployments, deployments/scale in autoscaling/v1, deployments/status', async () => {
    const body = (await (await get('/apis/apps/v1')).json()) as APIResourceList;
    expect(body).toEqual({
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion: 'apps/v1',
      resources: [
        {
          name: 'deployments',
          singularName: 'deployment',
          namespaced: true,
          kind: 'Deployment',
          verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
          shortNames: ['deploy'],
          categories: ['all'],
          storageVersionHash: '8aSe+NMegvE=',
        },
        {
          name: 'deployments/scale',
          singularName: '',
          namespaced: true,
          group: 'autoscaling',
          version: 'v1',
          kind: 'Scale',
          verbs: ['get', 'patch', 'update'],
        },
        {
          name: 'deployments/status',
          singularName: '',
          namespaced: true,
          kind: 'Deployment',
          verbs: ['get', 'patch', 'update'],
        },
      ],
    });
  });

  test('virtual resources carry no storage version hash', async () => {
    const body = (await (await get('/apis/authorization.k8s.io/v1')).json()) as APIResourceList;
    expect(body.resources).toEqual([
      {
        name: 'selfsubjectaccessreviews',
        singularName: 'selfsubjectaccessreview',
        namespaced: false,
        kind: 'SelfSubjectAccessReview',
        verbs: ['create'],
      },
    ]);
  });

  test('/apis and /apis/<group>', async () => {
    const list = (await (await get('/apis', { accept: 'application/json' })).json()) as APIGroupList;
    expect(list.kind).toBe('APIGroupList');
    expect(list.groups).toEqual([
      {
        name: 'apps',
        versions: [{ groupVersion: 'apps/v1', version: 'v1' }],
        preferredVersion: { groupVersion: 'apps/v1', version: 'v1' },
      },
      {
        name: 'authorization.k8s.io',
        versions: [{ groupVersion: 'authorization.k8s.io/v1', version: 'v1' }],
        preferredVersion: { groupVersion: 'authorization.k8s.io/v1', version: 'v1' },
      },
    ]);
    const group = await (await get('/apis/apps')).json();
    expect(group).toEqual({ kind: 'APIGroup', apiVersion: 'v1', ...list.groups[0] });
  });

  // As kube-apiserver 1.34.4 answers: its go-restful routes refuse every method but GET, its mux serves any.
  test.each([
    ['POST', '/api'],
    ['HEAD', '/api'],
    ['PUT', '/api/v1'],
    ['DELETE', '/apis/apps/v1'],
    ['OPTIONS', '/apis/apps/v1/'],
  ])('%s %s: 405, the route serves GET alone', async (method, path) => {
    const response = await fetch(`${base}${path}`, { method });
    expect(response.status).toBe(405);
    if (method !== 'HEAD')
      expect(await response.json()).toMatchObject({
        reason: 'MethodNotAllowed',
        message: 'the server does not allow this method on the requested resource',
      });
  });

  test.each([
    ['POST', '/apis', 'APIGroupList'],
    ['DELETE', '/apis/', 'APIGroupList'],
    ['POST', '/apis/apps', 'APIGroup'],
  ])('%s %s: served as GET is', async (method, path, kind) => {
    const response = await fetch(`${base}${path}`, { method });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ kind });
  });

  test('unknown groups and versions fall through whatever the method', async () => {
    expect((await fetch(`${base}/apis/apps/v9`, { method: 'POST' })).status).toBe(404);
    expect((await fetch(`${base}/api/v2`, { method: 'DELETE' })).status).toBe(404);
  });

  test('unknown groups and versions fall through (404 here, no handler after)', async () => {
    expect((await get('/apis/nothing')).status).toBe(404);
    expect((await get('/apis/apps/v9')).status).toBe(404);
    expect((await get('/api/v2')).status).toBe(404);
  });

  test.each([
    ['v2', V2],
    ['v2beta1', V2BETA1],
  ])('aggregated %s for /apis, with ETag and 304', async (version, accept) => {
    const response = await get('/apis', { accept: version === 'v2' ? KUBECTL_ACCEPT : accept });
    expect(response.headers.get('content-type')).toBe(accept);
    expect(response.headers.get('vary')).toBe('Accept');
    const etag = response.headers.get('etag') as string;
    expect(etag).toMatch(/^"[0-9A-F]{128}"$/);
    const body = (await response.json()) as APIGroupDiscoveryList;
    expect(body.kind).toBe('APIGroupDiscoveryList');
    expect(body.apiVersion).toBe(`apidiscovery.k8s.io/${version}`);
    expect(body.items.map((item) => item.metadata.name)).toEqual(['apps', 'authorization.k8s.io']);
    expect(body.items[0].versions[0]).toEqual({
      version: 'v1',
      freshness: 'Current',
      resources: [
        {
          resource: 'deployments',
          // The reference's installer leaves both empty for a kind of the resource's own group version.
          responseKind: { group: '', version: '', kind: 'Deployment' },
          scope: 'Namespaced',
          singularResource: 'deployment',
          verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
          shortNames: ['deploy'],
          categories: ['all'],
          subresources: [
            {
              subresource: 'scale',
              responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
              verbs: ['get', 'patch', 'update'],
            },
            {
              subresource: 'status',
              responseKind: { group: '', version: '', kind: 'Deployment' },
              verbs: ['get', 'patch', 'update'],
            },
          ],
        },
      ],
    });

    const cached = await get('/apis', { accept, 'if-none-match': etag });
    expect(cached.status).toBe(304);
    expect(await cached.text()).toBe('');
    const stale = await get('/apis', { accept, 'if-none-match': '"0000"' });
    expect(stale.status).toBe(200);
  });

  test('aggregated /api holds the core group, cluster scope for namespaces', async () => {
    const body = (await (await get('/api', { accept: KUBECTL_ACCEPT })).json()) as APIGroupDiscoveryList;
    expect(body.items).toHaveLength(1);
    expect(body.items[0].metadata).toEqual({});
    const namespaces = body.items[0].versions[0].resources?.[0];
    expect(namespaces).toMatchObject({
      resource: 'namespaces',
      responseKind: { group: '', version: '', kind: 'Namespace' },
      scope: 'Cluster',
      subresources: [
        { subresource: 'finalize', responseKind: { group: '', version: '', kind: 'Namespace' }, verbs: ['update'] },
        {
          subresource: 'status',
          responseKind: { group: '', version: '', kind: 'Namespace' },
          verbs: ['get', 'patch', 'update'],
        },
      ],
    });
  });

  test('unacceptable types get a 406 Status', async () => {
    const response = await get('/apis', { accept: 'text/html' });
    expect(response.status).toBe(406);
    expect(await response.json()).toMatchObject({ kind: 'Status', reason: 'NotAcceptable', code: 406 });
  });

  test('documents follow the registry when its types change', async () => {
    const before = (await get('/apis', { accept: V2 })).headers.get('etag');
    const removed = FIXTURE_TYPES.filter((type) => type.group === 'authorization.k8s.io');
    for (const type of removed) registry.remove(type);
    try {
      const response = await get('/apis', { accept: V2 });
      expect(response.headers.get('etag')).not.toBe(before);
      expect(((await response.json()) as APIGroupDiscoveryList).items).toHaveLength(1);
      expect((await get('/apis/authorization.k8s.io')).status).toBe(404);
    } finally {
      for (const type of removed) registry.add(type);
    }
  });
});

describe('discovery of the built-in registry', () => {
  const groups = servedGroups(builtinRegistry().all());
  const resourcesOf = (group: string, version: string) =>
    apiResourceListDocument(
      groups.find((g) => g.name === group)?.versions.find((v) => v.version === version) as ServedGroupVersion,
      { storageVersionHashes: true },
    ).resources;

  test('groups in the reference order, preferred versions first', () => {
    const names = groups.map((group) => group.name);
    expect(names.slice(0, 4)).toEqual(['', 'apiregistration.k8s.io', 'apps', 'events.k8s.io']);
    expect(names.indexOf('rbac.authorization.k8s.io')).toBeLessThan(names.indexOf('storage.k8s.io'));
    expect(groups.find((group) => group.name === 'autoscaling')?.versions.map((v) => v.version)).toEqual(['v2', 'v1']);
  });

  test('deployments with scale and status; events share the core storage hash', () => {
    expect(resourcesOf('apps', 'v1').filter((r) => r.name.startsWith('deployments'))).toMatchObject([
      { name: 'deployments', shortNames: ['deploy'], categories: ['all'], storageVersionHash: '8aSe+NMegvE=' },
      { name: 'deployments/scale', group: 'autoscaling', version: 'v1', kind: 'Scale' },
      { name: 'deployments/status', kind: 'Deployment' },
    ]);
    const coreEvents = resourcesOf('', 'v1').find((r) => r.name === 'events');
    const groupEvents = resourcesOf('events.k8s.io', 'v1').find((r) => r.name === 'events');
    expect(groupEvents?.storageVersionHash).toBe(coreEvents?.storageVersionHash);
  });

  test("CustomResourceDefinitions hash the v1beta1 they are stored in, as kube-apiserver 1.34.4's discovery does", () => {
    expect(resourcesOf('apiextensions.k8s.io', 'v1').find((r) => r.name === 'customresourcedefinitions')).toMatchObject(
      {
        storageVersionHash: 'jfWCUB31mvA=',
      },
    );
  });

  test('resource.k8s.io hashes name v1beta2, the version a default 1.34 server writes to etcd', () => {
    // As kube-apiserver v1.34.4 answers /apis/resource.k8s.io/v1 with default flags.
    const hashes = Object.fromEntries(
      resourcesOf('resource.k8s.io', 'v1')
        .filter((r) => !r.name.includes('/'))
        .map((r) => [r.name, r.storageVersionHash]),
    );
    expect(hashes).toEqual({
      deviceclasses: 'weQRMT6DeYM=',
      resourceclaims: 'EJAWH5WrAYg=',
      resourceclaimtemplates: '24m0okHrUtk=',
      resourceslices: 'z6Bc9vgk6yE=',
    });
  });
});
