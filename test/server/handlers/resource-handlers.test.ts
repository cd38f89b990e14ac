/**
 * The generic resource handlers over HTTP: a port-0 plain HTTP server with the request-info
 * stage, the real built-in registry and a real SQLite store in a temp dir.
 */
import { connect } from 'node:net';
import type { KubeObject } from '../../../api/objects';
import type { RevisionedStore } from '../../../storage/store';
import { openTestStore, serveResourceApi, type ServedApi, type TestStore } from '../../helpers/in-process-api';
import { waitUntil } from '../../helpers/wait-for';

let testStore: TestStore;
let store: RevisionedStore;
let api: ServedApi;
let base: string;

beforeAll(async () => {
  testStore = await openTestStore();
  store = testStore.store;
  api = await serveResourceApi(testStore.storageFor);
  base = api.base;
});

afterAll(async () => {
  await api.close();
  await testStore.close();
});

interface Answer {
  status: number;
  body: any; // JSON from the server under test
  headers: Headers;
}

async function call(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const init: RequestInit = { method, headers: { 'user-agent': 'handlers-test/v1.0 (linux)', ...headers } };
  if (body !== undefined) {
    init.body = typeof body === 'string' || Buffer.isBuffer(body) ? (body as string) : JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
  }
  const response = await fetch(base + path, init);
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, body: parsed, headers: response.headers };
}

const CM = '/api/v1/namespaces/default/configmaps';
const DEPLOY = '/apis/apps/v1/namespaces/default/deployments';

function configMap(name: string, extra: Partial<KubeObject> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: '1' }, ...extra };
}

function deployment(name: string): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, labels: { app: name } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } },
    },
  };
}

describe('create, get, list', () => {
  test('create answers 201 with system metadata and an Update managedFields entry', async () => {
    const created = await call('POST', CM, configMap('first', { metadata: { name: 'first', labels: { tier: 'a' } } }));
    expect(created.status).toBe(201);
    const meta = created.body.metadata;
    expect(meta.namespace).toBe('default');
    expect(meta.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(meta.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(meta.resourceVersion).toMatch(/^\d+$/);
    expect(meta.managedFields).toEqual([
      {
        manager: 'handlers-test',
        operation: 'Update',
        apiVersion: 'v1',
        time: expect.any(String),
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { '.': {}, 'f:a': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:tier': {} } } },
      },
    ]);
    const got = await call('GET', `${CM}/first`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1', data: { a: '1' } });
  });

  test('a YAML body is accepted', async () => {
    const created = await call(
      'POST',
      CM,
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\ndata:\n  a: "1"\n',
      {
        'content-type': 'application/yaml',
      },
    );
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({ a: '1' });
  });

  test('generateName gets a 5-character suffix from the reference alphabet', async () => {
    const created = await call('POST', CM, { metadata: { generateName: 'gen-' }, data: {} });
    expect(created.status).toBe(201);
    expect(created.body.metadata.name).toMatch(/^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });

  test('list answers <Kind>List with the request version, paging and selectors', async () => {
    for (const name of ['page-a', 'page-b', 'page-c']) {
      expect((await call('POST', CM, configMap(name, { metadata: { name, labels: { paged: 'yes' } } }))).status).toBe(
        201,
      );
    }
    const first = await call('GET', `${CM}?labelSelector=paged%3Dyes&limit=2`);
    expect(first.status).toBe(200);
    expect(first.body.kind).toBe('ConfigMapList');
    expect(first.body.apiVersion).toBe('v1');
    expect(first.body.items.map((i: KubeObject) => i.metadata.name)).toEqual(['page-a', 'page-b']);
    expect(first.body.metadata.continue).toBeTruthy();
    const second = await call(
      'GET',
      `${CM}?labelSelector=paged%3Dyes&limit=2&continue=${first.body.metadata.continue}`,
    );
    expect(second.body.items.map((i: KubeObject) => i.metadata.name)).toEqual(['page-c']);
    expect(second.body.metadata.resourceVersion).toBe(first.body.metadata.resourceVersion);
    const unpaged = await call('GET', `${CM}?limit=1`);
    expect(unpaged.body.metadata.remainingItemCount).toBeGreaterThan(0);
    const byName = await call('GET', `${CM}?fieldSelector=metadata.name%3Dpage-b`);
    expect(byName.body.items.map((i: KubeObject) => i.metadata.name)).toEqual(['page-b']);
    const notIn = await call('GET', `${CM}?labelSelector=paged%20notin%20(yes),tier`);
    expect(notIn.body.items.map((i: KubeObject) => i.metadata.name)).toEqual(['first']);
  });

  test('bad selectors and list options are 400 and 422 with the reference texts', async () => {
    const field = await call('GET', `${CM}?fieldSelector=spec.foo%3Dx`);
    expect(field.status).toBe(400);
    expect(field.body.message).toBe(
      '"spec.foo" is not a known field selector: only "metadata.name", "metadata.namespace"',
    );
    const label = await call('GET', `${CM}?labelSelector=a%20b`);
    expect(label.status).toBe(400);
    const match = await call('GET', `${CM}?resourceVersionMatch=Exact`);
    expect(match.status).toBe(422);
    expect(match.body.message).toBe(
      'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
    );
    const initial = await call('GET', `${CM}?watch=1&sendInitialEvents=true`);
    expect(initial.status).toBe(422);
    expect(initial.body.message).toContain('sendInitialEvents requires setting resourceVersionMatch to NotOlderThan');
  });
});

describe('bad input writes nothing', () => {
  const cases: Array<{
    name: string;
    body: unknown;
    headers?: Record<string, string>;
    query?: string;
    status: number;
    reason: string;
    message?: string | RegExp;
  }> = [
    {
      name: 'malformed JSON',
      body: '{"metadata": ',
      status: 400,
      reason: 'BadRequest',
      message:
        /^the object provided is unrecognized \(must be of type ConfigMap\): couldn't get version\/kind; json parse error: /,
    },
    {
      name: 'wrong type',
      body: { metadata: { name: 'bad-type' }, data: { a: 1 } },
      status: 400,
      reason: 'BadRequest',
      message:
        'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string',
    },
    {
      name: 'unknown kind',
      body: { apiVersion: 'v1', kind: 'Nope', metadata: { name: 'bad-kind' } },
      status: 400,
      reason: 'BadRequest',
      message: /^Nope in version "v1" cannot be handled as a ConfigMap: no kind "Nope" is registered/,
    },
    {
      name: 'another kind',
      body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bad-kind' } },
      status: 400,
      reason: 'BadRequest',
      message:
        'Secret in version "v1" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown conversion',
    },
    {
      name: 'invalid name',
      body: configMap('Bad_Name'),
      status: 422,
      reason: 'Invalid',
      message: /^ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name"/,
    },
    {
      name: 'namespace mismatch',
      body: configMap('other-ns', { metadata: { name: 'other-ns', namespace: 'kube-system' } }),
      status: 400,
      reason: 'BadRequest',
      message: 'the namespace of the provided object does not match the namespace sent on the request',
    },
    {
      name: 'body over 3 MiB',
      body: JSON.stringify(configMap('huge', { data: { a: 'x'.repeat(3 * 1024 * 1024) } })),
      status: 413,
      reason: 'RequestEntityTooLarge',
      message: 'Request entity too large: limit is 3145728',
    },
    {
      name: 'wrong content type',
      body: 'name: x',
      headers: { 'content-type': 'text/plain' },
      status: 415,
      reason: 'UnsupportedMediaType',
      message:
        'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf',
    },
    {
      name: 'bad dryRun',
      body: configMap('dry-bad'),
      query: '?dryRun=Yes',
      status: 422,
      reason: 'Invalid',
      message: 'CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["Yes"]: supported values: "All"',
    },
    {
      name: 'strict unknown and duplicate fields',
      body: '{"metadata":{"name":"strict"},"data":{"a":"1"},"unknownField":1,"data":{"b":"2"}}',
      query: '?fieldValidation=Strict',
      status: 400,
      reason: 'BadRequest',
      message:
        'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "unknownField", duplicate field "data"',
    },
  ];
  test.each(cases)('$name', async ({ body, headers, query, status, reason, message }) => {
    const before = await call('GET', CM);
    const answer = await call('POST', CM + (query ?? ''), body, headers);
    expect(answer.status).toBe(status);
    expect(answer.body.kind).toBe('Status');
    expect(answer.body.reason).toBe(reason);
    if (typeof message === 'string') expect(answer.body.message).toBe(message);
    else if (message) expect(answer.body.message).toMatch(message);
    const after = await call('GET', CM);
    expect(after.body.metadata.resourceVersion).toBe(before.body.metadata.resourceVersion);
  });

  test('dryRun=All runs the create and stores nothing', async () => {
    const answer = await call('POST', `${CM}?dryRun=All`, configMap('dry'));
    expect(answer.status).toBe(201);
    expect(answer.body.metadata.uid).toBeTruthy();
    expect((await call('GET', `${CM}/dry`)).status).toBe(404);
  });

  test('unknown fields warn by default, are dropped, and are ignored with Ignore', async () => {
    const warned = await call(
      'POST',
      CM,
      '{"metadata":{"name":"warned"},"extra":true,"data":{"a":"1"},"data":{"a":"2"}}',
    );
    expect(warned.status).toBe(201);
    expect(warned.headers.get('warning')).toBe('299 - "unknown field \\"extra\\"", 299 - "duplicate field \\"data\\""');
    expect(warned.body.extra).toBeUndefined();
    expect(warned.body.data).toEqual({ a: '2' });
    const ignored = await call('POST', `${CM}?fieldValidation=Ignore`, { metadata: { name: 'ignored' }, extra: true });
    expect(ignored.status).toBe(201);
    expect(ignored.headers.get('warning')).toBeNull();
  });

  test('unknown resources are 404 and undeclared verbs 405', async () => {
    const unknown = await call('GET', '/api/v1/namespaces/default/nothings');
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toBe('the server could not find the requested resource');
    const postOnObject = await call('POST', `${CM}/first`, configMap('first'));
    expect(postOnObject.status).toBe(405);
    expect(postOnObject.body.reason).toBe('MethodNotAllowed');
  });
});

describe('update and patch', () => {
  test('PUT with a stale resourceVersion is 409; without one it is unconditional', async () => {
    const created = (await call('POST', CM, configMap('upd'))).body as KubeObject;
    const first = await call('PUT', `${CM}/upd`, { ...created, data: { a: '2' } });
    expect(first.status).toBe(200);
    expect(first.body.metadata.resourceVersion).not.toBe(created.metadata.resourceVersion);
    const stale = await call('PUT', `${CM}/upd`, { ...created, data: { a: '3' } });
    expect(stale.status).toBe(409);
    expect(stale.body.reason).toBe('Conflict');
    const unconditional = await call('PUT', `${CM}/upd`, { metadata: { name: 'upd' }, data: { a: '4' } });
    expect(unconditional.status).toBe(200);
    expect(unconditional.body.metadata.uid).toBe(created.metadata.uid);
    expect(unconditional.body.metadata.creationTimestamp).toBe(created.metadata.creationTimestamp);
    const wrongName = await call('PUT', `${CM}/upd`, { metadata: { name: 'other' } });
    expect(wrongName.status).toBe(400);
    expect(wrongName.body.message).toBe('the name of the object (other) does not match the name on the URL (upd)');
    const absent = await call('PUT', `${CM}/absent`, configMap('absent'));
    expect(absent.status).toBe(404);
  });

  test('merge patch, JSON patch, a failed test and an unsupported patch type', async () => {
    await call('POST', CM, configMap('patched'));
    const merged = await call(
      'PATCH',
      `${CM}/patched`,
      { data: { b: '2', a: null } },
      { 'content-type': 'application/merge-patch+json' },
    );
    expect(merged.status).toBe(200);
    expect(merged.body.data).toEqual({ b: '2' });
    const jsonPatched = await call(
      'PATCH',
      `${CM}/patched`,
      [
        { op: 'test', path: '/data/b', value: '2' },
        { op: 'add', path: '/data/c', value: '3' },
      ],
      { 'content-type': 'application/json-patch+json' },
    );
    expect(jsonPatched.status).toBe(200);
    expect(jsonPatched.body.data).toEqual({ b: '2', c: '3' });
    const failed = await call('PATCH', `${CM}/patched`, [{ op: 'test', path: '/data/b', value: 'nope' }], {
      'content-type': 'application/json-patch+json',
    });
    expect(failed.status).toBe(422);
    expect(failed.body.reason).toBe('Invalid');
    // The reference's generic 422 for a patch that cannot apply keeps no cause: the library's text is dropped.
    expect(failed.body.message).toBe('the server rejected our request due to an error in our request');
    expect(failed.body.details?.causes).toBeUndefined();
    const unsupported = await call('PATCH', `${CM}/patched`, '{}', { 'content-type': 'text/plain' });
    expect(unsupported.status).toBe(415);
    // No patch type at all: the router's refusal, before the handler's check of what the kind takes.
    expect(unsupported.body.message).toBe('415: Unsupported Media Type');
    const missing = await call('PATCH', `${CM}/nowhere`, {}, { 'content-type': 'application/merge-patch+json' });
    expect(missing.status).toBe(404);
  });

  describe('a patch whose result holds a time that is none, as kube-apiserver 1.34.4 answers it', () => {
    const timeError = 'parsing time "notatime" as "2006-01-02T15:04:05Z07:00": cannot parse "notatime" as "2006"';
    let current: KubeObject;

    beforeAll(async () => {
      expect((await call('POST', CM, { metadata: { name: 'bad-time' }, data: { a: 'b' } })).status).toBe(201);
      current = (await call('GET', `${CM}/bad-time`)).body as KubeObject;
    });

    // The patched JSON, re-marshalled: the containers the patch opened sorted, the rest as they were.
    const patchedText = () =>
      `{"apiVersion":"v1","data":{"a":"b"},"kind":"ConfigMap","metadata":{"creationTimestamp":"notatime",` +
      `"managedFields":${JSON.stringify(current.metadata.managedFields)},"name":"bad-time","namespace":"default",` +
      `"resourceVersion":"${current.metadata.resourceVersion}","uid":"${current.metadata.uid}"}}`;

    test.each([
      ['a merge patch', 'application/merge-patch+json', { metadata: { creationTimestamp: 'notatime' } }, patchedText],
      [
        'a JSON patch',
        'application/json-patch+json',
        [{ op: 'add', path: '/metadata/creationTimestamp', value: 'notatime' }],
        patchedText,
      ],
      [
        'a strategic merge patch (the patch printed as Go prints its map)',
        'application/strategic-merge-patch+json',
        { metadata: { creationTimestamp: 'notatime' } },
        () => 'map[metadata:map[creationTimestamp:notatime]]',
      ],
    ])('%s: 422 on the patch', async (_case, contentType, patch, shown) => {
      const answer = await call('PATCH', `${CM}/bad-time`, patch, { 'content-type': contentType });
      expect(answer.status).toBe(422);
      expect(answer.body.message).toBe(
        ` "" is invalid: patch: Invalid value: ${JSON.stringify(shown())}: ${timeError}`,
      );
    });

    test('an apply: the conversion of its result fails, a 400 where the reference answers 500', async () => {
      const applied = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'bad-time', creationTimestamp: 'notatime' },
      };
      const answer = await call('PATCH', `${CM}/bad-time?fieldManager=test`, applied, {
        'content-type': 'application/apply-patch+yaml',
      });
      expect(answer.status).toBe(400);
      expect(answer.body.message).toBe(
        `failed to convert new object (/bad-time; /v1, Kind=ConfigMap) to proper version: unable to convert unstructured object to /v1, Kind=ConfigMap: ${timeError}`,
      );
      expect((await call('GET', `${CM}/bad-time`)).body).toEqual(current);
    });
  });
});

describe('delete', () => {
  test('an object without finalizers goes at once: Success Status naming it', async () => {
    const created = (await call('POST', CM, configMap('gone'))).body as KubeObject;
    const deleted = await call('DELETE', `${CM}/gone`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name: 'gone', kind: 'configmaps', uid: created.metadata.uid },
    });
    expect((await call('GET', `${CM}/gone`)).status).toBe(404);
    expect((await call('DELETE', `${CM}/gone`)).status).toBe(404);
  });

  test('preconditions that do not hold are 409 in the words of the reference, which name the kind', async () => {
    const created = (await call('POST', CM, configMap('guarded'))).body;
    // Asked of kube-apiserver 1.34.4 (2026-12-03): its BeforeDelete words, kind and all.
    const uid = await call('DELETE', `${CM}/guarded`, { preconditions: { uid: 'not-the-uid' } });
    expect(uid.status).toBe(409);
    expect(uid.body).toMatchObject({
      reason: 'Conflict',
      message: `Operation cannot be fulfilled on ConfigMap "guarded": the UID in the precondition (not-the-uid) does not match the UID in record (${created.metadata.uid}). The object might have been deleted and then recreated`,
      details: { name: 'guarded', kind: 'ConfigMap' },
    });
    const version = await call('DELETE', `${CM}/guarded`, { preconditions: { resourceVersion: '1' } });
    expect(version.status).toBe(409);
    expect(version.body.message).toBe(
      `Operation cannot be fulfilled on ConfigMap "guarded": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (${created.metadata.resourceVersion}). The object might have been modified`,
    );
    expect((await call('GET', `${CM}/guarded`)).status).toBe(200);
  });

  test('finalizers: delete marks, the update that empties them removes', async () => {
    await call('POST', CM, configMap('held', { metadata: { name: 'held', finalizers: ['example.com/hold'] } }));
    const marked = await call('DELETE', `${CM}/held`);
    expect(marked.status).toBe(200);
    expect(marked.body.metadata.deletionTimestamp).toBeTruthy();
    expect(marked.body.metadata.deletionGracePeriodSeconds).toBe(0);
    const still = await call('GET', `${CM}/held`);
    expect(still.status).toBe(200);
    const again = await call('DELETE', `${CM}/held`);
    expect(again.body.metadata.deletionTimestamp).toBe(marked.body.metadata.deletionTimestamp);
    const released = await call(
      'PATCH',
      `${CM}/held`,
      { metadata: { finalizers: null } },
      { 'content-type': 'application/merge-patch+json' },
    );
    expect(released.status).toBe(200);
    expect((await call('GET', `${CM}/held`)).status).toBe(404);
  });

  test('dryRun delete removes nothing; deletecollection takes the selected ones', async () => {
    await call('POST', CM, configMap('kept'));
    expect((await call('DELETE', `${CM}/kept?dryRun=All`)).status).toBe(200);
    expect((await call('GET', `${CM}/kept`)).status).toBe(200);
    for (const name of ['sweep-1', 'sweep-2'])
      await call('POST', CM, configMap(name, { metadata: { name, labels: { sweep: 'me' } } }));
    const swept = await call('DELETE', `${CM}?labelSelector=sweep%3Dme`);
    expect(swept.status).toBe(200);
    expect(swept.body.items.map((i: KubeObject) => i.metadata.name)).toEqual(['sweep-1', 'sweep-2']);
    expect((await call('GET', `${CM}?labelSelector=sweep%3Dme`)).body.items).toEqual([]);
    expect((await call('GET', `${CM}/kept`)).status).toBe(200);
  });
});

describe('subresources', () => {
  test('status writes change only status; the main resource ignores status', async () => {
    const created = await call('POST', DEPLOY, deployment('web'));
    expect(created.status).toBe(201);
    const withStatus = await call('PUT', `${DEPLOY}/web/status`, {
      ...created.body,
      spec: { ...created.body.spec, replicas: 9 },
      status: { replicas: 1 },
    });
    expect(withStatus.status).toBe(200);
    expect(withStatus.body.status.replicas).toBe(1);
    expect(withStatus.body.spec.replicas).toBe(1);
    const mainWrite = await call(
      'PATCH',
      `${DEPLOY}/web`,
      { status: { replicas: 5 } },
      { 'content-type': 'application/merge-patch+json' },
    );
    expect(mainWrite.body.status.replicas).toBe(1);
  });

  test('managedFields key list-map items by their schema keys', async () => {
    const created = await call('POST', `${DEPLOY}?fieldManager=kubectl-create`, deployment('owned'));
    const [entry] = created.body.metadata.managedFields;
    expect(entry.manager).toBe('kubectl-create');
    expect(entry.apiVersion).toBe('apps/v1');
    expect(entry.fieldsV1['f:spec']['f:template']['f:spec']['f:containers']).toEqual({
      // Defaulted fields belong to the creator, as in the reference.
      'k:{"name":"web"}': {
        '.': {},
        'f:image': {},
        'f:imagePullPolicy': {},
        'f:name': {},
        'f:resources': {},
        'f:terminationMessagePath': {},
        'f:terminationMessagePolicy': {},
      },
    });
    const patched = await call(
      'PATCH',
      `${DEPLOY}/owned?fieldManager=scaler`,
      { spec: { replicas: 2 } },
      { 'content-type': 'application/merge-patch+json' },
    );
    const managers = patched.body.metadata.managedFields.map(
      (e: { manager: string; fieldsV1: Record<string, any> }) => [
        e.manager,
        Boolean(e.fieldsV1['f:spec']?.['f:replicas']),
      ],
    );
    expect(managers).toEqual([
      ['kubectl-create', false],
      ['scaler', true],
    ]);
  });

  test('scale reads and writes the parent replicas', async () => {
    await call('POST', DEPLOY, deployment('scaled'));
    const scale = await call('GET', `${DEPLOY}/scaled/scale`);
    expect(scale.status).toBe(200);
    expect(scale.body).toMatchObject({
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      spec: { replicas: 1 },
      status: { selector: 'app=scaled' },
    });
    const patched = await call(
      'PATCH',
      `${DEPLOY}/scaled/scale`,
      { spec: { replicas: 3 } },
      { 'content-type': 'application/merge-patch+json' },
    );
    expect(patched.status).toBe(200);
    expect(patched.body.spec.replicas).toBe(3);
    expect((await call('GET', `${DEPLOY}/scaled`)).body.spec.replicas).toBe(3);
  });

  test('the wrong type in a nested struct names the Go struct', async () => {
    const body = deployment('typed');
    (body.spec as Record<string, unknown>).replicas = 'three';
    const answer = await call('POST', DEPLOY, body);
    expect(answer.status).toBe(400);
    expect(answer.body.message).toBe(
      'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
    );
  });
});

describe('watch', () => {
  /** Reads events until `count` arrived or the stream ended, within a time bound. */
  async function readEvents(
    path: string,
    count: number,
    whileOpen?: () => Promise<void>,
  ): Promise<Array<{ type: string; object: any }>> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 5000);
    const response = await fetch(base + path, { signal: controller.signal });
    expect(response.status).toBe(200);
    expect(response.headers.get('transfer-encoding')).toBe('chunked');
    const events: Array<{ type: string; object: any }> = [];
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let buffered = '';
    const pending = whileOpen?.();
    try {
      while (events.length < count) {
        const { done, value } = await reader.read();
        if (done) break;
        buffered += decoder.decode(value, { stream: true });
        let newline: number;
        while ((newline = buffered.indexOf('\n')) >= 0) {
          events.push(JSON.parse(buffered.slice(0, newline)));
          buffered = buffered.slice(newline + 1);
        }
      }
    } finally {
      clearTimeout(timer);
      controller.abort();
      await pending;
    }
    return events;
  }

  test('events after the list revision, for one object by name', async () => {
    const listed = await call('GET', CM);
    const rv = listed.body.metadata.resourceVersion;
    const events = await readEvents(
      `${CM}?watch=true&resourceVersion=${rv}&fieldSelector=metadata.name%3Dwatched`,
      3,
      async () => {
        await call('POST', CM, configMap('unwatched'));
        await call('POST', CM, configMap('watched'));
        await call('PATCH', `${CM}/watched`, { data: { a: '2' } }, { 'content-type': 'application/merge-patch+json' });
        await call('DELETE', `${CM}/watched`);
      },
    );
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'MODIFIED', 'DELETED']);
    expect(events[0].object).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'watched' } });
  });

  /** The raw bytes of a one-second watch of config maps sent as `httpVersion`, while two are created. */
  async function rawWatch(
    httpVersion: '1.0' | '1.1',
    names: readonly string[],
  ): Promise<{ head: string; body: Buffer }> {
    const rv = (await call('GET', CM)).body.metadata.resourceVersion;
    const { hostname, port } = new URL(base);
    const socket = connect({ host: hostname, port: Number(port) });
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    const timer = setTimeout(() => socket.destroy(), 5000);
    socket.write(
      `GET ${CM}?watch=1&resourceVersion=${rv}&timeoutSeconds=1 HTTP/${httpVersion}\r\nHost: test\r\nConnection: close\r\n\r\n`,
    );
    await waitUntil("the watch's headers", () => Buffer.concat(chunks).includes('\r\n\r\n'), 5_000, 10);
    for (const name of names) await call('POST', CM, configMap(name));
    await closed;
    clearTimeout(timer);
    const all = Buffer.concat(chunks);
    const headEnd = all.indexOf('\r\n\r\n');
    return { head: all.subarray(0, headEnd).toString('latin1'), body: all.subarray(headEnd + 4) };
  }

  function eventsIn(text: string): Array<{ type: string; object: any }> {
    return text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line));
  }

  test('over HTTP/1.1 the events go out as well-formed chunks of whole events, then the last chunk', async () => {
    const { head, body } = await rawWatch('1.1', ['chunked-1', 'chunked-2']);
    expect(head).toMatch(/^HTTP\/1\.1 200/);
    expect(head.toLowerCase()).toContain('transfer-encoding: chunked');
    const payloads: Buffer[] = [];
    let at = 0;
    for (;;) {
      const lineEnd = body.indexOf('\r\n', at);
      expect(lineEnd).toBeGreaterThan(at);
      const size = parseInt(body.subarray(at, lineEnd).toString('latin1'), 16);
      const data = body.subarray(lineEnd + 2, lineEnd + 2 + size);
      expect(body.subarray(lineEnd + 2 + size, lineEnd + 4 + size).toString('latin1')).toBe('\r\n');
      at = lineEnd + 4 + size;
      if (size === 0) break;
      expect(data.toString('utf8').endsWith('\n')).toBe(true);
      payloads.push(data);
    }
    expect(at).toBe(body.length);
    const events = eventsIn(Buffer.concat(payloads).toString('utf8'));
    expect(events.map((event) => [event.type, event.object.metadata.name])).toEqual([
      ['ADDED', 'chunked-1'],
      ['ADDED', 'chunked-2'],
    ]);
  });

  // A 1.0 client reads no chunks (nor does the reference send it any): the close ends the events.
  test('over HTTP/1.0 the events go out unframed, ended by the close', async () => {
    const { head, body } = await rawWatch('1.0', ['unframed-1', 'unframed-2']);
    expect(head).toMatch(/^HTTP\/1\.1 200/);
    expect(head.toLowerCase()).not.toContain('transfer-encoding');
    expect(head.toLowerCase()).toContain('connection: close');
    const events = eventsIn(body.toString('utf8'));
    expect(events.map((event) => [event.type, event.object.metadata.name])).toEqual([
      ['ADDED', 'unframed-1'],
      ['ADDED', 'unframed-2'],
    ]);
  });

  test('a compacted start is an in-band 410 ERROR, then the end', async () => {
    await call('POST', CM, configMap('compaction-marker'));
    const current = await store.currentRevision();
    await store.compact(current);
    const events = await readEvents(`${CM}?watch=1&resourceVersion=1`, 2);
    expect(events).toHaveLength(1);
    expect(events[0].type).toBe('ERROR');
    expect(events[0].object).toMatchObject({ kind: 'Status', code: 410, reason: 'Expired' });
  });
});
