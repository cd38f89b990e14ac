/**
 * MutatingAdmissionPolicy with the real kubectl 1.33, against capstan started as the reference
 * must be to serve it (`--runtime-config=admissionregistration.k8s.io/v1beta1=true
 * --feature-gates=MutatingAdmissionPolicy=true`). Each case's answers (the mutated object, the
 * status code and message of a refusal) were recorded from kube-apiserver v1.34.4 started with
 * the same flags, by running these cases against it.
 *
 * Each case has a namespace of its own, labelled for its policies' namespaceSelector, so the
 * policies of one case never touch another's objects.
 */
import { startServer, type KubectlResult, type TestServer } from '../helpers/server';

jest.setTimeout(60_000);

const FLAGS = [
  '--runtime-config=admissionregistration.k8s.io/v1beta1=true',
  '--feature-gates=MutatingAdmissionPolicy=true',
  '--disable-admission-plugins=ServiceAccount',
];

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ flags: FLAGS });
}, 60_000);
afterAll(() => server?.stop());

type Json = Record<string, any>;

async function kubectl(args: readonly string[], input?: string): Promise<KubectlResult> {
  return server.kubectl(args, input === undefined ? {} : { input });
}

async function mustKubectl(args: readonly string[], input?: string): Promise<string> {
  const result = await kubectl(args, input);
  if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

/** A namespace for one case, with the label its policies select. */
async function caseNamespace(name: string): Promise<void> {
  await mustKubectl(['create', 'namespace', name]);
  await mustKubectl(['label', 'namespace', name, `map-test=${name}`]);
}

interface PolicyOptions {
  readonly name: string;
  /** The namespace whose objects the policy mutates. */
  readonly namespace: string;
  readonly resources?: readonly string[];
  readonly mutations: readonly Json[];
  readonly failurePolicy?: 'Fail' | 'Ignore';
  readonly reinvocationPolicy?: 'Never' | 'IfNeeded';
  readonly matchConditions?: readonly Json[];
  readonly variables?: readonly Json[];
  readonly paramKind?: Json;
  readonly paramRef?: Json;
}

/** A policy and its binding, as kubectl applies them. */
async function createPolicy(options: PolicyOptions): Promise<void> {
  const policy = {
    apiVersion: 'admissionregistration.k8s.io/v1beta1',
    kind: 'MutatingAdmissionPolicy',
    metadata: { name: options.name },
    spec: {
      ...(options.paramKind ? { paramKind: options.paramKind } : {}),
      matchConstraints: {
        resourceRules: [
          {
            apiGroups: [''],
            apiVersions: ['v1'],
            operations: ['CREATE', 'UPDATE'],
            resources: options.resources ?? ['configmaps'],
          },
        ],
        namespaceSelector: { matchLabels: { 'map-test': options.namespace } },
      },
      ...(options.matchConditions ? { matchConditions: options.matchConditions } : {}),
      ...(options.variables ? { variables: options.variables } : {}),
      failurePolicy: options.failurePolicy ?? 'Fail',
      reinvocationPolicy: options.reinvocationPolicy ?? 'Never',
      mutations: options.mutations,
    },
  };
  const binding = {
    apiVersion: 'admissionregistration.k8s.io/v1beta1',
    kind: 'MutatingAdmissionPolicyBinding',
    metadata: { name: options.name },
    spec: { policyName: options.name, ...(options.paramRef ? { paramRef: options.paramRef } : {}) },
  };
  await mustKubectl(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [policy, binding] }));
}

const applyConfiguration = (expression: string): Json => ({
  patchType: 'ApplyConfiguration',
  applyConfiguration: { expression },
});
const jsonPatch = (expression: string): Json => ({ patchType: 'JSONPatch', jsonPatch: { expression } });

/**
 * Creates the object until `done` accepts the outcome (deleting what was created in between):
 * a policy takes effect a moment after it is created, on the reference as on capstan.
 */
async function createUntil(
  namespace: string,
  manifest: Json,
  done: (result: KubectlResult, object: Json | undefined) => boolean,
): Promise<{ result: KubectlResult; object: Json | undefined }> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const result = await kubectl(['create', '-n', namespace, '-o', 'json', '-f', '-'], JSON.stringify(manifest));
    const object = result.code === 0 ? (JSON.parse(result.stdout) as Json) : undefined;
    if (done(result, object) || Date.now() > deadline) return { result, object };
    if (object) await mustKubectl(['delete', '-n', namespace, manifest.kind, manifest.metadata.name]);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

const configMap = (name: string, data: Record<string, string> = { key: 'value' }): Json => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name },
  data,
});

test('an ApplyConfiguration mutation sets a label and adds a sidecar container, merged by name', async () => {
  await caseNamespace('apply');
  await createPolicy({
    name: 'apply-label',
    namespace: 'apply',
    mutations: [applyConfiguration('Object{metadata: Object.metadata{labels: {"mutated": "yes"}}}')],
  });
  const { object } = await createUntil(
    'apply',
    configMap('cm'),
    (_, created) => created?.metadata.labels !== undefined,
  );
  expect(object?.metadata.labels).toEqual({ mutated: 'yes' });

  await createPolicy({
    name: 'apply-sidecar',
    namespace: 'apply',
    resources: ['pods'],
    mutations: [
      applyConfiguration(
        'Object{spec: Object.spec{containers: [Object.spec.containers{name: "sidecar", image: "busybox:1.36"}]}}',
      ),
    ],
  });
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'pod' },
    spec: { containers: [{ name: 'app', image: 'nginx' }] },
  };
  const created = await createUntil('apply', pod, (_, o) => o?.spec.containers.length === 2);
  // Defaulted as any container the client sent would be.
  expect(
    created.object?.spec.containers.map((c: Json) => [c.name, c.image, c.imagePullPolicy, c.terminationMessagePath]),
  ).toEqual([
    ['app', 'nginx', 'Always', '/dev/termination-log'],
    ['sidecar', 'busybox:1.36', 'IfNotPresent', '/dev/termination-log'],
  ]);
});

test('a JSONPatch mutation adds an annotation with an escaped path; a failed test leaves the object', async () => {
  await caseNamespace('jsonpatch');
  await createPolicy({
    name: 'jsonpatch',
    namespace: 'jsonpatch',
    mutations: [
      jsonPatch(
        '[JSONPatch{op: "add", path: "/metadata/annotations/" + jsonpatch.escapeKey("example.com/by"), value: object.metadata.name + "-patched"}]',
      ),
      // A test that does not hold leaves the object as it is, without error.
      jsonPatch(
        '[JSONPatch{op: "test", path: "/data/key", value: "other"}, JSONPatch{op: "remove", path: "/data/key"}]',
      ),
      // The reference's library (json-patch v4) replaces a member an object lacks by adding it.
      jsonPatch('[JSONPatch{op: "replace", path: "/data/added", value: "by-replace"}]'),
    ],
  });
  const manifest = configMap('cm');
  manifest.metadata.annotations = { keep: 'yes' };
  const { object } = await createUntil(
    'jsonpatch',
    manifest,
    (_, o) => o?.metadata.annotations['example.com/by'] !== undefined,
  );
  expect(object?.metadata.annotations).toEqual({ keep: 'yes', 'example.com/by': 'cm-patched' });
  expect(object?.data).toEqual({ key: 'value', added: 'by-replace' });
});

test('params: a ConfigMap named by the binding gives the value', async () => {
  await caseNamespace('params');
  await mustKubectl(['create', 'configmap', 'settings', '-n', 'params', '--from-literal=team=blue']);
  await createPolicy({
    name: 'params',
    namespace: 'params',
    paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
    paramRef: { name: 'settings', namespace: 'params', parameterNotFoundAction: 'Deny' },
    variables: [{ name: 'team', expression: 'params.data.team' }],
    matchConditions: [{ name: 'not-the-params', expression: 'object.metadata.name != "settings"' }],
    mutations: [applyConfiguration('Object{metadata: Object.metadata{labels: {"team": variables.team}}}')],
  });
  const { object } = await createUntil('params', configMap('cm'), (_, o) => o?.metadata.labels !== undefined);
  expect(object?.metadata.labels).toEqual({ team: 'blue' });
});

test('params by selector: one invocation per param object, on UPDATE too', async () => {
  await caseNamespace('selector');
  for (const [name, key] of [
    ['first', 'one'],
    ['second', 'two'],
  ]) {
    await mustKubectl(['create', 'configmap', name, '-n', 'selector', `--from-literal=key=${key}`]);
    await mustKubectl(['label', 'configmap', name, '-n', 'selector', 'role=param']);
  }
  await createPolicy({
    name: 'selector',
    namespace: 'selector',
    paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
    paramRef: { selector: { matchLabels: { role: 'param' } }, parameterNotFoundAction: 'Allow' },
    matchConditions: [
      { name: 'not-a-param', expression: '!has(object.metadata.labels) || !("role" in object.metadata.labels)' },
    ],
    mutations: [applyConfiguration('Object{metadata: Object.metadata{labels: {params.data.key: request.operation}}}')],
  });
  const { object } = await createUntil('selector', configMap('cm'), (_, o) => o?.metadata.labels !== undefined);
  expect(object?.metadata.labels).toEqual({ one: 'CREATE', two: 'CREATE' });
  const updated = JSON.parse(
    await mustKubectl(['annotate', 'configmap', 'cm', '-n', 'selector', 'touched=yes', '-o', 'json']),
  ) as Json;
  expect(updated.metadata.labels).toEqual({ one: 'UPDATE', two: 'UPDATE' });
});

test('a matchCondition that is false skips the policy', async () => {
  await caseNamespace('conditions');
  await createPolicy({
    name: 'conditions',
    namespace: 'conditions',
    matchConditions: [{ name: 'not-skipped', expression: '!object.metadata.name.startsWith("skip")' }],
    mutations: [applyConfiguration('Object{metadata: Object.metadata{labels: {"mutated": "yes"}}}')],
  });
  await createUntil('conditions', configMap('probe'), (_, o) => o?.metadata.labels !== undefined);
  const skipped = JSON.parse(
    await mustKubectl(['create', '-n', 'conditions', '-o', 'json', '-f', '-'], JSON.stringify(configMap('skip-me'))),
  ) as Json;
  expect(skipped.metadata.labels).toBeUndefined();
});

test('reinvocation: an IfNeeded policy runs again after a later policy changed the object', async () => {
  await caseNamespace('reinvoke');
  // "a-" runs before "b-" (in the reference, in either order: the result is the same).
  await createPolicy({
    name: 'reinvoke-a-copies',
    namespace: 'reinvoke',
    reinvocationPolicy: 'IfNeeded',
    mutations: [
      applyConfiguration(
        'Object{metadata: Object.metadata{labels: {"copy": object.metadata.?labels.?source.orValue("none")}}}',
      ),
    ],
  });
  await createPolicy({
    name: 'reinvoke-b-sets',
    namespace: 'reinvoke',
    mutations: [applyConfiguration('Object{metadata: Object.metadata{labels: {"source": "b"}}}')],
  });
  const { object } = await createUntil('reinvoke', configMap('cm'), (_, o) => o?.metadata.labels?.source === 'b');
  expect(object?.metadata.labels).toEqual({ copy: 'b', source: 'b' });
});

describe('denials', () => {
  beforeAll(() => caseNamespace('deny'));

  test('a mutation that makes the object invalid is refused by its validation', async () => {
    await createPolicy({
      name: 'deny-invalid',
      namespace: 'deny',
      matchConditions: [{ name: 'only', expression: 'object.metadata.name == "invalid"' }],
      mutations: [jsonPatch('[JSONPatch{op: "add", path: "/data/" + jsonpatch.escapeKey("a/b~c"), value: "x"}]')],
    });
    const { result } = await createUntil('deny', configMap('invalid'), (r) => r.code !== 0);
    expect(result.stderr.trim()).toBe(
      `The ConfigMap "invalid" is invalid: data[a/b~c]: Invalid value: "a/b~c": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`,
    );
  });

  test('failurePolicy Fail: an expression that errs refuses the write with the reference’s 403', async () => {
    await createPolicy({
      name: 'deny-error',
      namespace: 'deny',
      matchConditions: [{ name: 'only', expression: 'object.metadata.name == "errs"' }],
      mutations: [applyConfiguration('Object{metadata: Object.metadata{labels: {"x": object.data.missing}}}')],
    });
    const { result } = await createUntil('deny', configMap('errs'), (r) => r.code !== 0);
    expect(result.stderr.trim()).toBe(
      "The configmaps \"errs\" is invalid: : policy 'deny-error' with binding 'deny-error' denied request: expression 'Object{metadata: Object.metadata{labels: {\"x\": object.data.missing}}}' resulted in error: no such key: missing",
    );
    const status = await server.request('POST', '/api/v1/namespaces/deny/configmaps', {
      body: JSON.stringify(configMap('errs')),
      headers: { 'content-type': 'application/json' },
    });
    const message = `policy 'deny-error' with binding 'deny-error' denied request: expression 'Object{metadata: Object.metadata{labels: {"x": object.data.missing}}}' resulted in error: no such key: missing`;
    expect(status.status).toBe(403);
    expect(status.json()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message,
      reason: 'Invalid',
      details: { name: 'errs', kind: 'configmaps', causes: [{ message }] },
      code: 403,
    });
  });

  test('failurePolicy Ignore: the failing mutation is skipped and the write admitted', async () => {
    await createPolicy({
      name: 'deny-ignored',
      namespace: 'deny',
      failurePolicy: 'Ignore',
      matchConditions: [{ name: 'only', expression: 'object.metadata.name == "ignored"' }],
      mutations: [
        applyConfiguration('Object{metadata: Object.metadata{labels: {"x": object.data.missing}}}'),
        applyConfiguration('Object{metadata: Object.metadata{labels: {"second": "applied"}}}'),
      ],
    });
    const { object } = await createUntil('deny', configMap('ignored'), (_, o) => o?.metadata.labels !== undefined);
    expect(object?.metadata.labels).toEqual({ second: 'applied' });
  });

  test.each([
    [
      'an atomic struct',
      'atomic',
      applyConfiguration(
        'Object{data: {"k": "v"}, metadata: Object.metadata{finalizers: ["a/b"], ownerReferences: [Object.metadata.ownerReferences{name: "x"}]}}',
      ),
      'error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: .metadata.ownerReferences[0]',
    ],
    [
      'a field the schema does not declare',
      'undeclared',
      applyConfiguration('Object{spec: Object.spec{replicas: 1}}'),
      'error applying patch: failed to convert patch object to typed object: .spec: field not declared in schema',
    ],
    [
      'a JSON Patch path that does not exist',
      'missing-path',
      jsonPatch('[JSONPatch{op: "add", path: "/spec/x", value: "x"}]'),
      'JSON Patch: add operation does not apply: doc is missing path: "/spec/x": missing value',
    ],
  ])('a mutation that cannot be applied (%s) refuses the write', async (_, name, mutation, error) => {
    await createPolicy({
      name: `deny-${name}`,
      namespace: 'deny',
      matchConditions: [{ name: 'only', expression: `object.metadata.name == "${name}"` }],
      mutations: [mutation],
    });
    const { result } = await createUntil('deny', configMap(name), (r) => r.code !== 0);
    expect(result.stderr.trim()).toBe(
      `The configmaps "${name}" is invalid: : policy 'deny-${name}' with binding 'deny-${name}' denied request: ${error}`,
    );
  });

  test('params that cannot be collected refuse the write as Forbidden: none found under Deny, a paramKind not served', async () => {
    await createPolicy({
      name: 'deny-no-params',
      namespace: 'deny',
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      paramRef: { name: 'absent', namespace: 'deny', parameterNotFoundAction: 'Deny' },
      matchConditions: [{ name: 'only', expression: 'object.metadata.name == "no-params"' }],
      mutations: [applyConfiguration('Object{metadata: Object.metadata{labels: {"x": params.data.x}}}')],
    });
    const noParams = await createUntil('deny', configMap('no-params'), (r) => r.code !== 0);
    expect(noParams.result.stderr.trim()).toBe(
      "Error from server (Forbidden): error when creating \"STDIN\": policy 'deny-no-params' with binding 'deny-no-params' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction",
    );
    // Params are collected before matchConditions run: the binding fails every write it matches.
    await mustKubectl(['delete', 'mutatingadmissionpolicybinding', 'deny-no-params']);

    await createPolicy({
      name: 'deny-unserved',
      namespace: 'deny',
      paramKind: { apiVersion: 'example.com/v1', kind: 'Settings' },
      paramRef: { name: 'any', parameterNotFoundAction: 'Allow' },
      matchConditions: [{ name: 'only', expression: 'object.metadata.name == "unserved"' }],
      mutations: [applyConfiguration('Object{metadata: Object.metadata{labels: {"x": "y"}}}')],
    });
    const unserved = await createUntil('deny', configMap('unserved'), (r) => r.stderr.includes('deny-unserved'));
    expect(unserved.result.stderr.trim()).toBe(
      `Error from server (Forbidden): error when creating "STDIN": policy "deny-unserved" denied request: failed to configure policy: failed to find resource referenced by paramKind: 'example.com/v1, Kind=Settings'`,
    );
  });
});
