/**
 * Bad input over HTTPS to the compiled server, as the admin: each gets the reference's status
 * code, `Status` reason and message, and nothing is written (the namespace's ConfigMaps are
 * listed before and after).
 */
import { randomBytes } from 'node:crypto';
import { openEtcdStore } from '../../storage/etcd/etcd-store';
import type { RevisionedStore } from '../../storage/store';
import { startEtcd, type EtcdServer } from '../helpers/etcd';
import { startServer, type HttpResult, type TestServer } from '../helpers/server';
import { retryUntil } from '../helpers/wait-for';

interface Status {
  kind: string;
  apiVersion: string;
  status: string;
  code: number;
  reason?: string;
  message: string;
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    causes?: { reason?: string; field?: string; message?: string }[];
  };
}

const JSON_HEADERS = { 'content-type': 'application/json' };
const WAIT_MS = 15_000;

let server: TestServer;
const namespace = `bad-${randomBytes(3).toString('hex')}`;
const configMaps = `/api/v1/namespaces/${namespace}/configmaps`;

beforeAll(async () => {
  server = await startServer();
  const created = await server.request('POST', '/api/v1/namespaces', {
    body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }),
    headers: JSON_HEADERS,
  });
  expect(created.status).toBe(201);
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

function statusOf(answer: HttpResult): Status {
  expect(answer.headers['content-type']).toBe('application/json');
  const status = answer.json<Status>();
  expect(status).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: answer.status });
  return status;
}

async function configMapNames(path = configMaps): Promise<string[]> {
  const listed = await server.request('GET', path);
  expect(listed.status).toBe(200);
  return listed.json<{ items: { metadata: { name: string } }[] }>().items.map((item) => item.metadata.name);
}

const configMap = (name: string, extra: object = {}) =>
  JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: 'b' }, ...extra });

interface BadRequestCase {
  readonly name: string;
  readonly method?: string;
  readonly path?: string;
  readonly body?: string;
  readonly headers?: Record<string, string>;
  readonly code: number;
  readonly reason: string;
  readonly message: string | RegExp;
}

const cases: BadRequestCase[] = [
  {
    name: 'a GET asking for export (gone since v1.14), whatever the object',
    method: 'GET',
    path: '/api/v1/namespaces/NS/configmaps/missing?export=yes',
    code: 400,
    reason: 'BadRequest',
    message: 'the export parameter, deprecated since v1.14, is no longer supported',
  },
  {
    name: 'a GET with export=FALSE reads as without it',
    method: 'GET',
    path: '/api/v1/namespaces/NS/configmaps/missing?export=FALSE',
    code: 404,
    reason: 'NotFound',
    message: 'configmaps "missing" not found',
  },
  {
    name: 'malformed JSON',
    body: '{"metadata": {"name": "broken"',
    code: 400,
    reason: 'BadRequest',
    message:
      'the object provided is unrecognized (must be of type ConfigMap): couldn\'t get version/kind; json parse error: unexpected end of JSON input ({"metadata": {"name": "broken")',
  },
  {
    name: 'JSON with a stray character',
    body: '{"metadata": {"name": "x"} x}',
    code: 400,
    reason: 'BadRequest',
    message:
      'the object provided is unrecognized (must be of type ConfigMap): couldn\'t get version/kind; json parse error: invalid character \'x\' after object key:value pair ({"metadata": {"name": "x"} x})',
  },
  {
    name: 'malformed YAML',
    body: 'metadata:\n  name: [broken\n',
    headers: { 'content-type': 'application/yaml' },
    code: 400,
    reason: 'BadRequest',
    message:
      /^the object provided is unrecognized \(must be of type ConfigMap\): yaml: line \d+: .+ \(6d657461646174613a0a20206e616d653a205b62726f6b656e0a\)$/,
  },
  {
    name: 'a number where a string belongs',
    body: configMap('wrong-type', { data: { a: 1 } }),
    code: 400,
    reason: 'BadRequest',
    message:
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string',
  },
  {
    name: 'an object where a string belongs',
    body: configMap('wrong-type', { metadata: { name: { nested: true } } }),
    code: 400,
    reason: 'BadRequest',
    message:
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal object into Go struct field ObjectMeta.metadata.name of type string',
  },
  {
    name: 'a kind the server does not know, in the body',
    body: JSON.stringify({ apiVersion: 'v1', kind: 'Widget', metadata: { name: 'widget' } }),
    code: 400,
    reason: 'BadRequest',
    message:
      'Widget in version "v1" cannot be handled as a ConfigMap: no kind "Widget" is registered for version "v1" in scheme "pkg/runtime/scheme.go:110"',
  },
  {
    name: 'a resource the server does not serve',
    path: `/api/v1/namespaces/${'NS'}/widgets`,
    body: JSON.stringify({ apiVersion: 'v1', kind: 'Widget', metadata: { name: 'widget' } }),
    code: 404,
    reason: 'NotFound',
    message: 'the server could not find the requested resource',
  },
  {
    name: 'an invalid name',
    body: configMap('Bad_Name'),
    code: 422,
    reason: 'Invalid',
    message:
      "ConfigMap \"Bad_Name\" is invalid: metadata.name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
  },
  {
    name: 'no name at all',
    body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: {} }),
    code: 422,
    reason: 'Invalid',
    message: 'ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required',
  },
  {
    name: 'a body over 3 MiB',
    body: configMap('huge', { data: { a: 'x'.repeat(3 * 1024 * 1024) } }),
    code: 413,
    reason: 'RequestEntityTooLarge',
    message: 'Request entity too large: limit is 3145728',
  },
  {
    name: 'a content type the server does not read',
    body: 'name=x',
    headers: { 'content-type': 'text/plain' },
    code: 415,
    reason: 'UnsupportedMediaType',
    message:
      'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf',
  },
  {
    name: 'POST on an object path',
    path: `${configMaps}/some-name`,
    body: configMap('some-name'),
    code: 405,
    reason: 'MethodNotAllowed',
    message: 'the server does not allow this method on the requested resource',
  },
  {
    name: 'POST on the all-namespaces path of a namespaced kind',
    path: '/api/v1/configmaps',
    body: configMap('nowhere'),
    code: 405,
    reason: 'MethodNotAllowed',
    message: 'the server does not allow this method on the requested resource',
  },
  {
    name: 'an object path without a namespace for a namespaced kind',
    method: 'PUT',
    path: '/api/v1/configmaps/nowhere',
    body: configMap('nowhere'),
    code: 404,
    reason: 'NotFound',
    message: 'the server could not find the requested resource',
  },
];

describe('bad input is rejected as the reference rejects it, and nothing is written', () => {
  test.each(cases)('$name', async ({ method, path, body, headers, code, reason, message }) => {
    const before = await configMapNames();
    const answer = await server.request(method ?? 'POST', (path ?? configMaps).replace('/NS/', `/${namespace}/`), {
      body,
      headers: headers ?? JSON_HEADERS,
    });
    expect(answer.status).toBe(code);
    const status = statusOf(answer);
    expect(status.reason).toBe(reason);
    if (typeof message === 'string') expect(status.message).toBe(message);
    else expect(status.message).toMatch(message);
    expect(await configMapNames()).toEqual(before);
  });

  test('DELETE on the collection of a kind without deletecollection (namespaces)', async () => {
    const answer = await server.request('DELETE', '/api/v1/namespaces');
    expect(answer.status).toBe(405);
    expect(statusOf(answer)).toMatchObject({
      reason: 'MethodNotAllowed',
      message: 'the server does not allow this method on the requested resource',
    });
    expect((await server.request('GET', `/api/v1/namespaces/${namespace}`)).status).toBe(200);
  });

  test('creation in a namespace that does not exist', async () => {
    const missing = `/api/v1/namespaces/missing-${randomBytes(3).toString('hex')}/configmaps`;
    const answer = await server.request('POST', missing, { body: configMap('orphan'), headers: JSON_HEADERS });
    expect(answer.status).toBe(404);
    expect(statusOf(answer)).toMatchObject({
      reason: 'NotFound',
      message: expect.stringMatching(/^namespaces "missing-[0-9a-f]{6}" not found$/),
    });
    expect(await configMapNames(missing)).toEqual([]);
  });

  test('creation in a terminating namespace', async () => {
    const terminating = `ending-${randomBytes(3).toString('hex')}`;
    const namespacePath = `/api/v1/namespaces/${terminating}`;
    // A finalizer of our own keeps the namespace terminating once its content is gone.
    const hold = JSON.stringify({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: terminating, finalizers: ['example.com/hold'] },
    });
    expect((await server.request('POST', '/api/v1/namespaces', { body: hold, headers: JSON_HEADERS })).status).toBe(
      201,
    );
    expect((await server.request('DELETE', namespacePath)).status).toBe(200);

    const path = `${namespacePath}/configmaps`;
    // Admission reads the namespace from the watch cache: the first tries may still see it active.
    const answer = await retryUntil(
      async () => {
        await server.request('DELETE', `${path}/late`);
        return server.request('POST', path, { body: configMap('late'), headers: JSON_HEADERS });
      },
      (result) => result.status !== 201,
      WAIT_MS,
    );
    expect(answer.status).toBe(403);
    expect(statusOf(answer)).toMatchObject({
      reason: 'Forbidden',
      message: `configmaps "late" is forbidden: unable to create new content in namespace ${terminating} because it is being terminated`,
    });
    expect(await configMapNames(path)).toEqual([]);

    // As the reference's, the plugin refuses first, in the mutating phase: before the name is
    // generated (the refusal names the prefix) and before ServiceAccount looks for the default
    // account the namespace controller deletes (a controller ignores only the terminating refusal).
    const pod = JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { generateName: 'late-' },
      spec: { containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }] },
    });
    const refusedPod = await server.request('POST', `${namespacePath}/pods`, { body: pod, headers: JSON_HEADERS });
    expect(refusedPod.status).toBe(403);
    expect(statusOf(refusedPod)).toMatchObject({
      reason: 'Forbidden',
      message: `pods "late-" is forbidden: unable to create new content in namespace ${terminating} because it is being terminated`,
      details: {
        name: 'late-',
        kind: 'pods',
        causes: [
          {
            reason: 'NamespaceTerminating',
            message: `namespace ${terminating} is being terminated`,
            field: 'metadata.namespace',
          },
        ],
      },
    });

    const release = JSON.stringify([{ op: 'remove', path: '/metadata/finalizers' }]);
    expect(
      (
        await server.request('PATCH', namespacePath, {
          body: release,
          headers: { 'content-type': 'application/json-patch+json' },
        })
      ).status,
    ).toBe(200);
  });
});

test('a DELETE whose options the reference cannot decode is 400 and deletes nothing', async () => {
  // The reference answers these 500 with the same words, and deletes nothing either; a
  // dryRun sent as a string or a precondition of the wrong type must never be dropped unread.
  const target = `${configMaps}/kept`;
  expect((await server.request('POST', configMaps, { body: configMap('kept'), headers: JSON_HEADERS })).status).toBe(
    201,
  );
  const refusals: [object, string][] = [
    [{ dryRun: 'All' }, 'json: cannot unmarshal string into Go struct field DeleteOptions.dryRun of type []string'],
    [{ dryRun: [5] }, 'json: cannot unmarshal number into Go struct field DeleteOptions.dryRun of type string'],
    [
      { gracePeriodSeconds: 'x' },
      'json: cannot unmarshal string into Go struct field DeleteOptions.gracePeriodSeconds of type int64',
    ],
    [
      { gracePeriodSeconds: 1.5 },
      'json: cannot unmarshal number 1.5 into Go struct field DeleteOptions.gracePeriodSeconds of type int64',
    ],
    [
      { preconditions: { uid: 5 } },
      'json: cannot unmarshal number into Go struct field DeleteOptions.preconditions.uid of type types.UID',
    ],
    [
      { preconditions: 'x' },
      'json: cannot unmarshal string into Go struct field DeleteOptions.preconditions of type v1.Preconditions',
    ],
    [
      { propagationPolicy: true },
      'json: cannot unmarshal bool into Go struct field DeleteOptions.propagationPolicy of type v1.DeletionPropagation',
    ],
    [
      { orphanDependents: 'yes' },
      'json: cannot unmarshal string into Go struct field DeleteOptions.orphanDependents of type bool',
    ],
    [
      { apiVersion: 'v1', kind: 'Pod' },
      'no kind "Pod" is registered for version "v1" in scheme "pkg/runtime/scheme.go:110"',
    ],
    [
      [1, 2],
      `couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`,
    ],
  ];
  for (const [options, message] of refusals) {
    const answer = await server.request('DELETE', target, { body: JSON.stringify(options), headers: JSON_HEADERS });
    expect([answer.status, statusOf(answer).reason, statusOf(answer).message]).toEqual([400, 'BadRequest', message]);
  }
  // A body that is no JSON is refused in encoding/json's words, as the reference words it (it answers 500).
  const unparsed: [string, string][] = [
    ['{"a":', 'unexpected end of JSON input'],
    ['{"a": x}', "invalid character 'x' looking for beginning of value"],
    ['{"kind":"DeleteOptions"} x', "invalid character 'x' after top-level value"],
    ['{"a":"\\q"}', "invalid character 'q' in string escape code"],
  ];
  for (const [body, problem] of unparsed) {
    const answer = await server.request('DELETE', target, { body, headers: JSON_HEADERS });
    expect([answer.status, statusOf(answer).message]).toEqual([
      400,
      `couldn't get version/kind; json parse error: ${problem}`,
    ]);
  }
  expect(await configMapNames()).toContain('kept');
  expect(
    (
      await server.request('DELETE', target, {
        body: JSON.stringify({ constructor: 1, dryRun: null }),
        headers: JSON_HEADERS,
      })
    ).status,
  ).toBe(200);
});

const IGNORE_READ_ERROR = 'ignoreStoreReadErrorWithClusterBreakingPotential';

test('an object larger than the store takes is 413 on SQLite, as on etcd, and nothing is written', async () => {
  const podTemplates = `/api/v1/namespaces/${namespace}/podtemplates`;
  const template = (name: string, bytes: number) =>
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'PodTemplate',
      metadata: { name },
      template: { spec: { containers: [{ name: 'c', image: 'i', env: [{ name: 'A', value: 'x'.repeat(bytes) }] }] } },
    });
  const answer = await server.request('POST', podTemplates, {
    body: template('huge', 2 * 1024 * 1024),
    headers: JSON_HEADERS,
  });
  expect(answer.status).toBe(413);
  expect(statusOf(answer)).toMatchObject({
    reason: 'RequestEntityTooLarge',
    message: 'Request entity too large: limit is 1564672',
  });
  expect((await server.request('GET', `${podTemplates}/huge`)).status).toBe(404);
  expect(
    (await server.request('POST', podTemplates, { body: template('large', 1024 * 1024), headers: JSON_HEADERS }))
      .status,
  ).toBe(201);
});

test('without the feature gate, the unsafe delete option is dropped unread', async () => {
  const name = 'gate-off';
  expect((await server.request('POST', configMaps, { body: configMap(name), headers: JSON_HEADERS })).status).toBe(201);
  // Together with dryRun the option would be a 422; the gate being off, it is as if never sent.
  const dryRun = await server.request('DELETE', `${configMaps}/${name}?dryRun=All&${IGNORE_READ_ERROR}=true`);
  expect(dryRun.status).toBe(200);
  expect(await configMapNames()).toContain(name);
});

describe('a corrupt object, with --feature-gates=AllowUnsafeMalformedObjectDeletion=true (etcd)', () => {
  let etcd: EtcdServer;
  let gated: TestServer;
  let direct: RevisionedStore;
  const prefix = `/corrupt-${randomBytes(3).toString('hex')}`;
  const ns = 'corrupt';
  const secrets = `/api/v1/namespaces/${ns}/secrets`;
  const brokenKey = `${prefix}/secrets/${ns}/broken`;
  let brokenRevision: number;

  const secret = (name: string, extra: object = {}) =>
    JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name, ...extra }, stringData: { a: 'b' } });

  /** Node sends a DELETE body with neither Content-Length nor chunking unless told its length. */
  const deleteWithBody = (path: string, body: string) =>
    gated.request('DELETE', path, {
      body,
      headers: { ...JSON_HEADERS, 'content-length': String(Buffer.byteLength(body)) },
    });

  async function eventuallyStatus(method: string, path: string, code: number): Promise<HttpResult> {
    return retryUntil(
      () => gated.request(method, path),
      (answer) => answer.status === code,
      WAIT_MS,
    );
  }

  beforeAll(async () => {
    etcd = await startEtcd();
    gated = await startServer({
      etcdServers: etcd.endpoints,
      etcdPrefix: prefix,
      flags: ['--feature-gates', 'AllowUnsafeMalformedObjectDeletion=true'],
    });
    direct = await openEtcdStore({ endpoints: etcd.endpoints });
    const created = await gated.request('POST', '/api/v1/namespaces', {
      body: JSON.stringify({ metadata: { name: ns } }),
      headers: JSON_HEADERS,
    });
    expect(created.status).toBe(201);
    // A finalizer would hold a normal delete; the forced one ignores it.
    for (const body of [secret('broken', { finalizers: ['example.com/keep'] }), secret('fine')]) {
      expect((await gated.request('POST', secrets, { body, headers: JSON_HEADERS })).status).toBe(201);
    }
    // Garbage under the key, written past the server as a damaged disk or a lost encryption key would.
    const stored = await direct.get(brokenKey);
    const written = await direct.update(brokenKey, Buffer.from('\u0000not an object'), stored.kv?.modRevision ?? 0);
    expect(written.succeeded).toBe(true);
    brokenRevision = written.revision;
  }, 60_000);

  afterAll(async () => {
    await direct?.close();
    await gated?.stop();
    await etcd?.stop();
  });

  test('get answers 500 InternalError naming the key below the etcd prefix', async () => {
    const answer = await gated.request('GET', `${secrets}/broken`);
    expect(answer.status).toBe(500);
    expect(statusOf(answer)).toMatchObject({
      reason: 'InternalError',
      message: expect.stringMatching(
        new RegExp(
          `^Internal error occurred: StorageError: corrupt object, Code: 7, Key: /secrets/${ns}/broken, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=${brokenRevision}: `,
        ),
      ),
    });
  });

  test('list answers 500 StorageReadError with one cause per unreadable object', async () => {
    const answer = await eventuallyStatus('GET', secrets, 500);
    expect(answer.status).toBe(500);
    const status = statusOf(answer);
    expect(status).toMatchObject({
      reason: 'StorageReadError',
      message: 'failed to read one or more secrets from the storage',
    });
    expect(status.details).toMatchObject({ kind: 'secrets', name: 'list' });
    expect(status.details?.causes).toEqual([
      {
        reason: 'UnexpectedServerResponse',
        field: brokenKey,
        message: expect.stringMatching(/^StorageError: corrupt object, Code: 7, Key: /),
      },
    ]);
  });

  test('a normal delete fails on the corrupt bytes', async () => {
    const answer = await gated.request('DELETE', `${secrets}/broken`);
    expect(answer.status).toBe(500);
    expect(statusOf(answer).reason).toBe('InternalError');
  });

  test('the option may not come with dryRun, gracePeriodSeconds, orphanDependents, preconditions or propagationPolicy', async () => {
    const alone = await gated.request('DELETE', `${secrets}/broken?dryRun=All&${IGNORE_READ_ERROR}=true`);
    expect(alone.status).toBe(422);
    expect(statusOf(alone)).toMatchObject({
      reason: 'Invalid',
      message:
        'DeleteOptions.meta.k8s.io "" is invalid: ignoreStoreReadErrorWithClusterBreakingPotential: Invalid value: true: cannot be set together with .dryRun',
    });
    const body = JSON.stringify({
      [IGNORE_READ_ERROR]: true,
      propagationPolicy: 'Background',
      gracePeriodSeconds: 0,
      preconditions: {},
    });
    const many = await deleteWithBody(`${secrets}/broken`, body);
    expect(many.status).toBe(422);
    expect(statusOf(many).message).toBe(
      'DeleteOptions.meta.k8s.io "" is invalid: [' +
        'ignoreStoreReadErrorWithClusterBreakingPotential: Invalid value: true: cannot be set together with .propagationPolicy, ' +
        'ignoreStoreReadErrorWithClusterBreakingPotential: Invalid value: true: cannot be set together with .gracePeriodSeconds, ' +
        'ignoreStoreReadErrorWithClusterBreakingPotential: Invalid value: true: cannot be set together with .preconditions]',
    );
    const orphan = await gated.request('DELETE', `${secrets}/broken?orphanDependents=true&${IGNORE_READ_ERROR}=true`);
    expect(statusOf(orphan).message).toContain('cannot be set together with .orphanDependents');
  });

  test('on a readable object, and on a collection, the option is refused', async () => {
    const readable = await gated.request('DELETE', `${secrets}/fine?${IGNORE_READ_ERROR}=true`);
    expect(readable.status).toBe(422);
    expect(statusOf(readable)).toMatchObject({
      reason: 'Invalid',
      message:
        'secrets "fine" is invalid: ignoreStoreReadErrorWithClusterBreakingPotential: Invalid value: true: is exclusively used to delete corrupt object(s), try again by removing this option',
    });
    const collection = await gated.request('DELETE', `${secrets}?${IGNORE_READ_ERROR}=true`);
    expect(collection.status).toBe(422);
    expect(statusOf(collection).message).toBe(
      'DeleteOptions.meta.k8s.io "" is invalid: ignoreStoreReadErrorWithClusterBreakingPotential: Invalid value: true: is not allowed with DELETECOLLECTION, try again after removing the option',
    );
    expect((await gated.request('GET', `${secrets}/fine`)).status).toBe(200);
  });

  test('the forced delete removes it despite its finalizer; reads work again, from the cache too', async () => {
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'DeleteOptions', [IGNORE_READ_ERROR]: true });
    const answer = await deleteWithBody(`${secrets}/broken`, body);
    expect(answer.status).toBe(200);
    expect(answer.json()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      code: 200,
      details: { name: 'broken', kind: 'Secret' },
    });
    expect((await direct.get(brokenKey)).kv).toBeUndefined();

    expect((await gated.request('GET', `${secrets}/broken`)).status).toBe(404);
    const listed = await gated.request('GET', secrets);
    expect(listed.status).toBe(200);
    expect(listed.json<{ items: { metadata: { name: string } }[] }>().items.map((item) => item.metadata.name)).toEqual([
      'fine',
    ]);
    // The watch cache lists again once the corrupt object is gone, and serves resourceVersion=0 reads.
    const cached = await eventuallyStatus('GET', `${secrets}/fine?resourceVersion=0`, 200);
    expect(cached.status).toBe(200);
    const again = await gated.request('DELETE', `${secrets}/broken?${IGNORE_READ_ERROR}=true`);
    expect(again.status).toBe(422);
  });
});
