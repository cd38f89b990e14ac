/**
 * The generic store through the real resource routes (a port-0 HTTP server over a real SQLite
 * store): the order of its steps (mutating admission, then validation, then validating
 * admission), the preconditions every kind of update honours, and the list a field selector
 * pinning one object still answers.
 */
import type { AdmissionAttributes, AdmissionPlugin } from '../../../../server/admission/types';
import { admissionChain } from '../../../../server/admission/types';
import { forbidden } from '../../../../server/status/catalogue';
import type { KubeObject } from '../../../../api/objects';
import {
  openTestStore,
  serveResourceApi,
  serviceHooksFor,
  type ServedApi,
  type TestStore,
} from '../../../helpers/in-process-api';

const MARK = 'store-test/make-invalid';

/** What the validating plugin saw, in order: a copy of each call's attributes. */
const seen: Omit<AdmissionAttributes, 'warnings'>[] = [];

/** Turns a ConfigMap whose label asks for it into an invalid one (a label value with spaces). */
const breaker: AdmissionPlugin = {
  name: 'Breaker',
  async admit(attributes) {
    const labels = attributes.object?.metadata.labels;
    if (labels?.[MARK] === 'yes') labels.broken = 'not a valid label value!';
    if (labels?.[MARK] === 'mutate') labels.mutated = 'by-plugin';
  },
};

const recorder: AdmissionPlugin = {
  name: 'Recorder',
  async validate(attributes) {
    // The request's warning recorder writes into its answer: no copy of it is kept.
    const { warnings: _recorder, ...copied } = attributes;
    seen.push(structuredClone(copied));
    if (attributes.object?.metadata.labels?.[MARK] === 'refuse')
      throw forbidden({ group: '', resource: attributes.resource.resource }, attributes.name, 'refused by the test');
  },
};

let testStore: TestStore;
let api: ServedApi;

beforeAll(async () => {
  testStore = await openTestStore();
  const hooksFor = await serviceHooksFor(testStore);
  api = await serveResourceApi(testStore.storageFor, {
    admission: admissionChain([breaker, recorder]),
    hooksFor,
  });
});

afterAll(async () => {
  await api.close();
  await testStore.close();
});

beforeEach(() => {
  seen.length = 0;
});

interface Answer {
  status: number;
  body: any; // JSON from the server under test
}

async function call(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<Answer> {
  const init: RequestInit = { method, headers: { 'user-agent': 'store-test/v1.0 (linux)' } };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] = contentType;
  }
  const response = await fetch(api.base + path, init);
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}

const CM = '/api/v1/namespaces/default/configmaps';

function configMap(name: string, labels: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data: { a: '1' } };
}

async function create(object: KubeObject, path = CM): Promise<KubeObject> {
  const created = await call('POST', path, object);
  expect(created.status).toBe(201);
  return created.body;
}

function modified(name: string): string {
  return `Operation cannot be fulfilled on configmaps "${name}": the object has been modified; please apply your changes to the latest version and try again`;
}

describe('admission around validation', () => {
  test('a create a mutating plugin makes invalid is refused by validation, and nothing is stored', async () => {
    const answer = await call('POST', CM, configMap('made-invalid', { [MARK]: 'yes' }));
    expect(answer.status).toBe(422);
    expect(answer.body.reason).toBe('Invalid');
    expect(answer.body.message).toContain('metadata.labels: Invalid value: "not a valid label value!"');
    expect(seen).toEqual([]); // validation failed: the validating phase never ran
    expect((await call('GET', `${CM}/made-invalid`)).status).toBe(404);
  });

  test('an update a mutating plugin makes invalid is refused, and the object is unchanged', async () => {
    const before = await create(configMap('update-made-invalid'));
    const put = { ...before, metadata: { ...before.metadata, labels: { [MARK]: 'yes' } }, data: { a: '2' } };
    const answer = await call('PUT', `${CM}/update-made-invalid`, put);
    expect(answer.status).toBe(422);
    const after = (await call('GET', `${CM}/update-made-invalid`)).body;
    expect(after.metadata.resourceVersion).toBe(before.metadata!.resourceVersion);
    expect(after.data).toEqual({ a: '1' });
  });

  test('the validating plugin sees the mutated, prepared object and the request it came in', async () => {
    const created = await create(configMap('seen', { [MARK]: 'mutate' }));
    expect(created.metadata.labels).toEqual({ [MARK]: 'mutate', mutated: 'by-plugin' });
    expect(seen).toHaveLength(1);
    const [attributes] = seen;
    expect(attributes).toMatchObject({
      operation: 'CREATE',
      kind: { group: '', version: 'v1', kind: 'ConfigMap' },
      requestKind: { group: '', version: 'v1', kind: 'ConfigMap' },
      resource: { group: '', version: 'v1', resource: 'configmaps' },
      requestResource: { group: '', version: 'v1', resource: 'configmaps' },
      subResource: '',
      name: 'seen',
      namespace: 'default',
      dryRun: false,
      options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' },
    });
    expect(attributes.uid).toMatch(/^[0-9a-f-]{36}$/);
    // Mutated by the plugin, then prepared by the store: the uid is the stored one.
    expect(attributes.object?.metadata.labels).toEqual({ [MARK]: 'mutate', mutated: 'by-plugin' });
    expect(attributes.object?.metadata.uid).toBe(created.metadata.uid);
    expect(attributes.oldObject).toBeUndefined();
  });

  test('an update shows the plugin the old object, and a dry run says so', async () => {
    const before = await create(configMap('seen-update'));
    seen.length = 0;
    const answer = await call(
      'PATCH',
      `${CM}/seen-update?dryRun=All`,
      { data: { a: '2' } },
      'application/merge-patch+json',
    );
    expect(answer.status).toBe(200);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      operation: 'UPDATE',
      dryRun: true,
      options: { kind: 'PatchOptions', dryRun: ['All'] },
    });
    expect(seen[0].oldObject?.data).toEqual({ a: '1' });
    expect(seen[0].object?.data).toEqual({ a: '2' });
    expect((await call('GET', `${CM}/seen-update`)).body.metadata.resourceVersion).toBe(
      before.metadata.resourceVersion,
    );
  });
});

describe("the Service store's cluster-IP hook", () => {
  const SVC = '/api/v1/namespaces/default/services';
  const IPS = '/apis/networking.k8s.io/v1/ipaddresses';

  function service(name: string, labels: Record<string, string> = {}, clusterIP?: string): KubeObject {
    return {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, labels },
      spec: { ports: [{ port: 80 }], ...(clusterIP ? { clusterIP } : {}) },
    };
  }

  async function reservedIPs(): Promise<string[]> {
    const list = await call('GET', IPS);
    expect(list.status).toBe(200);
    return list.body.items.map((item: KubeObject) => item.metadata.name).sort();
  }

  test('a Service gets its address before validating admission, which sees it', async () => {
    const created = await create(service('web'), SVC);
    const ip = (created.spec as { clusterIP: string }).clusterIP;
    expect(ip).toMatch(/^10\.(9[6-9]|10[0-9]|11[01])\./);
    expect(seen.at(-1)?.object?.spec).toMatchObject({ clusterIP: ip, clusterIPs: [ip] });
    expect(await reservedIPs()).toContain(ip);
  });

  test('a create refused after allocation gives its address back', async () => {
    const before = await reservedIPs();
    const refused = await call('POST', SVC, service('refused', { [MARK]: 'refuse' }, '10.96.0.50'));
    expect(refused.status).toBe(403);
    expect(seen.at(-1)?.object?.spec).toMatchObject({ clusterIP: '10.96.0.50' });
    expect(await reservedIPs()).toEqual(before);
  });

  test("a create losing to an existing Service of that name leaves that Service's address held", async () => {
    await create(service('taken', {}, '10.96.0.60'), SVC);
    const again = await call('POST', SVC, service('taken', {}, '10.96.0.60'));
    expect(again.status).toBe(409);
    expect(again.body.reason).toBe('AlreadyExists');
    expect(await reservedIPs()).toContain('10.96.0.60');
  });

  test('a dry run allocates nothing', async () => {
    const before = await reservedIPs();
    const dry = await call('POST', `${SVC}?dryRun=All`, service('dry'));
    expect(dry.status).toBe(201);
    expect(await reservedIPs()).toEqual(before);
  });
});

describe('preconditions of an update', () => {
  /** A ConfigMap updated once, so its first resourceVersion is stale. */
  async function withStaleVersion(name: string): Promise<{ stale: string; current: KubeObject }> {
    const created = await create(configMap(name));
    const updated = await call('PATCH', `${CM}/${name}`, { data: { a: '2' } }, 'application/merge-patch+json');
    expect(updated.status).toBe(200);
    return { stale: created.metadata.resourceVersion!, current: updated.body };
  }

  const patches: Array<{
    type: string;
    contentType: string;
    body: (name: string, stale: string) => unknown;
    query?: string;
  }> = [
    {
      type: 'json',
      contentType: 'application/json-patch+json',
      body: (_name, stale) => [
        { op: 'replace', path: '/metadata/resourceVersion', value: stale },
        { op: 'replace', path: '/data/a', value: 'overwritten' },
      ],
    },
    {
      type: 'merge',
      contentType: 'application/merge-patch+json',
      body: (_name, stale) => ({ metadata: { resourceVersion: stale }, data: { a: 'overwritten' } }),
    },
    {
      type: 'strategic',
      contentType: 'application/strategic-merge-patch+json',
      body: (_name, stale) => ({ metadata: { resourceVersion: stale }, data: { a: 'overwritten' } }),
    },
    {
      type: 'apply',
      contentType: 'application/apply-patch+yaml',
      query: '?fieldManager=store-test&force=true',
      body: (name, stale) => ({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, resourceVersion: stale },
        data: { a: 'overwritten' },
      }),
    },
  ];

  test.each(patches)(
    'a $type patch carrying a stale resourceVersion is a 409 and changes nothing',
    async ({ type, contentType, body, query }) => {
      const name = `stale-${type}`;
      const { stale, current } = await withStaleVersion(name);
      const answer = await call('PATCH', `${CM}/${name}${query ?? ''}`, body(name, stale), contentType);
      expect(answer.status).toBe(409);
      expect(answer.body).toMatchObject({
        reason: 'Conflict',
        message: modified(name),
        details: { name, kind: 'configmaps' },
      });
      const after = (await call('GET', `${CM}/${name}`)).body;
      expect(after.metadata.resourceVersion).toBe(current.metadata.resourceVersion);
      expect(after.data).toEqual({ a: '2' });
    },
  );

  test('a patch carrying the current resourceVersion goes through', async () => {
    const { current } = await withStaleVersion('current-version');
    const answer = await call(
      'PATCH',
      `${CM}/current-version`,
      { metadata: { resourceVersion: current.metadata.resourceVersion }, data: { a: '3' } },
      'application/merge-patch+json',
    );
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual({ a: '3' });
  });

  test("a Scale patch carrying a stale resourceVersion is the parent's 409", async () => {
    const DEPLOY = '/apis/apps/v1/namespaces/default/deployments';
    const created = await create(
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'scaled' },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: 'scaled' } },
          template: {
            metadata: { labels: { app: 'scaled' } },
            spec: { containers: [{ name: 'web', image: 'nginx' }] },
          },
        },
      },
      DEPLOY,
    );
    const moved = await call(
      'PATCH',
      `${DEPLOY}/scaled`,
      { metadata: { labels: { moved: 'yes' } } },
      'application/merge-patch+json',
    );
    expect(moved.status).toBe(200);
    const stale = created.metadata.resourceVersion;
    const answer = await call(
      'PATCH',
      `${DEPLOY}/scaled/scale`,
      { metadata: { resourceVersion: stale }, spec: { replicas: 3 } },
      'application/merge-patch+json',
    );
    expect(answer.status).toBe(409);
    expect(answer.body.message).toBe(
      'Operation cannot be fulfilled on deployments.apps "scaled": the object has been modified; please apply your changes to the latest version and try again',
    );
    expect((await call('GET', `${DEPLOY}/scaled`)).body.spec.replicas).toBe(1);
  });

  test('a PUT carrying another uid is a 409 with the storage precondition text, and changes nothing', async () => {
    const created = await create(configMap('other-uid-put'));
    const other = '00000000-0000-0000-0000-000000000000';
    const put = { ...created, metadata: { ...created.metadata, uid: other }, data: { a: 'overwritten' } };
    const answer = await call('PUT', `${CM}/other-uid-put`, put);
    expect(answer.status).toBe(409);
    expect(answer.body.reason).toBe('Conflict');
    expect(answer.body.message).toContain(
      `Precondition failed: UID in precondition: ${other}, UID in object meta: ${created.metadata.uid}`,
    );
    const after = (await call('GET', `${CM}/other-uid-put`)).body;
    expect(after.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
    expect(after.data).toEqual({ a: '1' });
  });

  test.each(patches)(
    'a $type patch carrying another uid is refused (the uid is immutable) and changes nothing',
    async ({ type, contentType, body, query }) => {
      const name = `other-uid-${type}`;
      const created = await create(configMap(name));
      const other = '00000000-0000-0000-0000-000000000000';
      const withUid = (value: unknown): unknown => {
        if (Array.isArray(value)) return [{ op: 'replace', path: '/metadata/uid', value: other }, value[1]];
        const patch = value as { metadata: Record<string, unknown> };
        return {
          ...patch,
          metadata: { ...patch.metadata, resourceVersion: created.metadata.resourceVersion, uid: other },
        };
      };
      const answer = await call(
        'PATCH',
        `${CM}/${name}${query ?? ''}`,
        withUid(body(name, created.metadata.resourceVersion!)),
        contentType,
      );
      // The reference answers a patch's other uid as its update validation does: 422, immutable.
      expect(answer.status).toBe(422);
      expect(answer.body.message).toContain(`metadata.uid: Invalid value: "${other}": field is immutable`);
      const after = (await call('GET', `${CM}/${name}`)).body;
      expect(after.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
      expect(after.metadata.uid).toBe(created.metadata.uid);
    },
  );

  test('a create carrying a resourceVersion is a 400 with the reference text', async () => {
    const object = configMap('with-version');
    object.metadata.resourceVersion = '42';
    const answer = await call('POST', CM, object);
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      reason: 'BadRequest',
      message: 'resourceVersion should not be set on objects to be created',
    });
    expect((await call('GET', `${CM}/with-version`)).status).toBe(404);
  });

  test('the resourceVersion is checked at the storage step: an invalid object carrying one is a 422', async () => {
    const object = configMap('invalid-with-version', { broken: 'not a valid label value!' });
    object.metadata.resourceVersion = '42';
    const answer = await call('POST', CM, object);
    expect(answer.status).toBe(422);
    expect(answer.body.reason).toBe('Invalid');
  });

  test('a dry-run create carrying a resourceVersion is accepted, as the reference dry-run storage accepts it, and stores nothing', async () => {
    const object = configMap('dry-with-version');
    object.metadata.resourceVersion = '42';
    const answer = await call('POST', `${CM}?dryRun=All`, object);
    expect(answer.status).toBe(201);
    expect(answer.body.metadata).toMatchObject({ name: 'dry-with-version', resourceVersion: '42' });
    expect(answer.body.metadata.uid).toEqual(expect.any(String));
    expect((await call('GET', `${CM}/dry-with-version`)).status).toBe(404);
    // A name that is taken is still refused in a dry run.
    const taken = await create(configMap('dry-taken'));
    expect((await call('POST', `${CM}?dryRun=All`, taken)).status).toBe(409);
  });
});

describe('a list whose field selector pins one object', () => {
  test('across all namespaces, it is still a list of that object', async () => {
    await create(configMap('settings'), '/api/v1/namespaces/shop/configmaps');
    await create(configMap('settings'), '/api/v1/namespaces/other/configmaps');
    const selector = encodeURIComponent('metadata.namespace=shop,metadata.name=settings');
    const answer = await call('GET', `/api/v1/configmaps?fieldSelector=${selector}`);
    expect(answer.status).toBe(200);
    expect(answer.body.kind).toBe('ConfigMapList');
    expect(answer.body.items.map((item: KubeObject) => `${item.metadata.namespace}/${item.metadata.name}`)).toEqual([
      'shop/settings',
    ]);
  });

  test('an object path on the all-namespaces collection stays a 404', async () => {
    expect((await call('GET', '/api/v1/configmaps/settings')).status).toBe(404);
  });
});
