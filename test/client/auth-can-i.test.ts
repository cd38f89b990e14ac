/**
 * `kubectl auth can-i` (and `--list`) agrees with what really happens to the request it
 * describes, for users bound through each kind of binding and for a service account, under the
 * default RBAC mode with the bootstrap policy.
 */
import { isDeepStrictEqual } from 'node:util';
import { canI, forbidden, kubectlAs, type Kubectl } from './auth-can-i-identities';
import { startServer, type TestServer } from '../helpers/server';
import { retryUntil } from '../helpers/wait-for';

jest.setTimeout(120_000);

const POLICY = `
apiVersion: v1
kind: Namespace
metadata: {name: team}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: cm-reader, namespace: team}
rules: [{apiGroups: [""], resources: [configmaps], verbs: [get, list]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: alice-cm, namespace: team}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: cm-reader}
subjects: [{kind: User, name: alice, apiGroup: rbac.authorization.k8s.io}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: namespace-reader}
rules: [{apiGroups: [""], resources: [namespaces], verbs: [get, list]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: readers-namespaces}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: namespace-reader}
subjects: [{kind: Group, name: readers, apiGroup: rbac.authorization.k8s.io}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: robot-view, namespace: team}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}
subjects: [{kind: ServiceAccount, name: robot, namespace: team}]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: team}
data: {a: b}
`;

/** A request as `kubectl auth can-i` describes it, and the kubectl command that really makes it. */
interface Case {
  readonly who: string;
  readonly canI: readonly string[];
  readonly real: readonly string[];
}

const CASES: readonly Case[] = [
  // RoleBinding to a Role: in its namespace only.
  { who: 'alice', canI: ['list', 'configmaps', '-n', 'team'], real: ['get', 'configmaps', '-n', 'team'] },
  {
    who: 'alice',
    canI: ['get', 'configmaps/settings', '-n', 'team'],
    real: ['get', 'configmap', 'settings', '-n', 'team'],
  },
  { who: 'alice', canI: ['list', 'configmaps', '-n', 'default'], real: ['get', 'configmaps', '-n', 'default'] },
  {
    who: 'alice',
    canI: ['delete', 'configmaps/settings', '-n', 'team'],
    real: ['delete', 'configmap', 'settings', '-n', 'team', '--dry-run=server'],
  },
  { who: 'alice', canI: ['list', 'secrets', '-n', 'team'], real: ['get', 'secrets', '-n', 'team'] },
  // ClusterRoleBinding to a group: cluster-wide.
  { who: 'bob', canI: ['list', 'namespaces'], real: ['get', 'namespaces'] },
  { who: 'bob', canI: ['delete', 'namespaces/team'], real: ['delete', 'namespace', 'team', '--dry-run=server'] },
  { who: 'bob', canI: ['list', 'configmaps', '-n', 'team'], real: ['get', 'configmaps', '-n', 'team'] },
  // RoleBinding to the aggregated `view` ClusterRole for a service account.
  { who: 'robot', canI: ['list', 'pods', '-n', 'team'], real: ['get', 'pods', '-n', 'team'] },
  { who: 'robot', canI: ['list', 'deployments.apps', '-n', 'team'], real: ['get', 'deployments.apps', '-n', 'team'] },
  { who: 'robot', canI: ['list', 'secrets', '-n', 'team'], real: ['get', 'secrets', '-n', 'team'] },
  {
    who: 'robot',
    canI: ['create', 'configmaps', '-n', 'team'],
    real: ['create', 'configmap', 'x', '-n', 'team', '--dry-run=server'],
  },
  { who: 'robot', canI: ['list', 'pods', '-n', 'default'], real: ['get', 'pods', '-n', 'default'] },
  // Non-resource paths from the bootstrap roles.
  { who: 'alice', canI: ['get', '/healthz'], real: ['get', '--raw', '/healthz'] },
  { who: 'alice', canI: ['get', '/version'], real: ['get', '--raw', '/version'] },
  { who: 'alice', canI: ['get', '/metrics'], real: ['get', '--raw', '/metrics'] },
];

const EXPECTED: Readonly<Record<string, boolean>> = {
  'alice list configmaps -n team': true,
  'alice get configmaps/settings -n team': true,
  'alice list configmaps -n default': false,
  'alice delete configmaps/settings -n team': false,
  'alice list secrets -n team': false,
  'bob list namespaces': true,
  'bob delete namespaces/team': false,
  'bob list configmaps -n team': false,
  'robot list pods -n team': true,
  'robot list deployments.apps -n team': true,
  'robot list secrets -n team': false,
  'robot create configmaps -n team': false,
  'robot list pods -n default': false,
  'alice get /healthz': true,
  'alice get /version': true,
  'alice get /metrics': false,
};

describe('kubectl auth can-i under RBAC', () => {
  let server: TestServer;
  const users = new Map<string, Kubectl>();

  beforeAll(async () => {
    server = await startServer();
    const applied = await server.kubectl(['apply', '-f', '-'], { input: POLICY });
    expect(applied.stderr).toBe('');
    users.set('alice', await kubectlAs(server, 'alice', ['developers']));
    users.set('bob', await kubectlAs(server, 'bob', ['readers']));
    users.set(
      'robot',
      await kubectlAs(server, 'system:serviceaccount:team:robot', [
        'system:serviceaccounts',
        'system:serviceaccounts:team',
      ]),
    );
    // The aggregation controller fills `view` shortly after start.
    await retryUntil(
      () => server.kubectl(['get', 'clusterrole', 'view', '-o', 'jsonpath={.rules[*].resources}']),
      (view) => view.stdout.includes('pods'),
      10_000,
    );
  });
  afterAll(() => server?.stop());

  it.each(CASES)('$who: can-i $canI agrees with the real request', async ({ who, canI: question, real }) => {
    const kubectl = users.get(who)!;
    const answer = await canI(kubectl, question);
    expect(answer).toBe(EXPECTED[`${who} ${question.join(' ')}`]);
    const outcome = await kubectl(real);
    expect(forbidden(outcome)).toBe(!answer);
  });

  it.each(CASES.filter(({ who }) => who === 'alice'))(
    'the admin asking --as alice: can-i $canI agrees with the real request made --as her',
    async ({ canI: question, real }) => {
      // Impersonation: the admin's own rights do not leak into the answer or the request.
      const asAlice = ['--as', 'alice', '--as-group', 'developers'];
      const admin = (args: readonly string[]) => server.kubectl([...args, ...asAlice]);
      const answer = await canI(admin, question);
      expect(answer).toBe(EXPECTED[`alice ${question.join(' ')}`]);
      expect(forbidden(await admin(real))).toBe(!answer);
    },
  );

  it('--list shows what the bindings grant in the namespace, and nothing of other namespaces', async () => {
    const alice = users.get('alice')!;
    const list = await alice(['auth', 'can-i', '--list', '-n', 'team']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^configmaps\s+\[\]\s+\[\]\s+\[get list\]$/m);
    expect(list.stdout).toMatch(/^selfsubjectaccessreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]$/m);
    expect(list.stdout).toMatch(/^\s+\[\/healthz\]\s+\[\]\s+\[get\]$/m);
    const elsewhere = await alice(['auth', 'can-i', '--list', '-n', 'default']);
    expect(elsewhere.stdout).not.toMatch(/^configmaps\s/m);
  });

  it("a SelfSubjectRulesReview answers a new review of the caller's rules: nothing of the question, no rule twice", async () => {
    const answer = await server.request('POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', {
      body: JSON.stringify({
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SelfSubjectRulesReview',
        metadata: { name: 'x', labels: { a: 'b' } },
        spec: { namespace: 'default' },
      }),
      headers: { 'content-type': 'application/json' },
    });
    expect(answer.status).toBe(201);
    const review = answer.json<{ metadata: unknown; spec: unknown; status: { resourceRules: unknown[] } }>();
    expect({ metadata: review.metadata, spec: review.spec }).toEqual({ metadata: {}, spec: {} });
    // The admin's everything comes from RBAC's cluster-admin binding only: system:masters lists no rules.
    const everything = review.status.resourceRules.filter((rule) =>
      isDeepStrictEqual(rule, { verbs: ['*'], apiGroups: ['*'], resources: ['*'] }),
    );
    expect(everything).toHaveLength(1);
  });

  it('SubjectAccessReview and LocalSubjectAccessReview answer for other users over HTTP, in JSON', async () => {
    const sar = await server.request('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: { user: 'alice', resourceAttributes: { namespace: 'team', verb: 'list', resource: 'configmaps' } },
      }),
    });
    expect(sar.status).toBe(201);
    expect(sar.json()).toMatchObject({
      kind: 'SubjectAccessReview',
      status: {
        allowed: true,
        reason: 'RBAC: allowed by RoleBinding "alice-cm/team" of Role "cm-reader" to User "alice"',
      },
    });
    const local = await server.request(
      'POST',
      '/apis/authorization.k8s.io/v1/namespaces/team/localsubjectaccessreviews',
      {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          kind: 'LocalSubjectAccessReview',
          spec: { user: 'alice', resourceAttributes: { namespace: 'team', verb: 'list', resource: 'secrets' } },
        }),
      },
    );
    expect(local.status).toBe(201);
    expect(local.json()).toMatchObject({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'LocalSubjectAccessReview',
      status: { allowed: false },
    });
    // Asking about others takes `create subjectaccessreviews`, which a plain user lacks.
    const alice = users.get('alice')!;
    expect(
      forbidden(
        await alice(['create', '--raw', '/apis/authorization.k8s.io/v1/subjectaccessreviews', '-f', '-'], {
          input: JSON.stringify({
            apiVersion: 'authorization.k8s.io/v1',
            kind: 'SubjectAccessReview',
            spec: { user: 'x', nonResourceAttributes: { path: '/', verb: 'get' } },
          }),
        }),
      ),
    ).toBe(true);
  });

  it('the reviews are resources of authorization.k8s.io/v1 that only take create', async () => {
    const resources = await server.kubectl([
      'api-resources',
      '--api-group=authorization.k8s.io',
      '-o',
      'wide',
      '--no-headers',
    ]);
    const lines = resources.stdout.trim().split('\n');
    expect(lines.map((line) => line.split(/\s+/)[0]).sort()).toEqual([
      'localsubjectaccessreviews',
      'selfsubjectaccessreviews',
      'selfsubjectrulesreviews',
      'subjectaccessreviews',
    ]);
    for (const line of lines) expect(line).toMatch(/\screate\s*$/);
    // kubectl validates the review against the served OpenAPI schema, strict on the server side too.
    const created = await server.kubectl(['create', '-o', 'json', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: { user: 'bob', groups: ['readers'], resourceAttributes: { verb: 'list', resource: 'namespaces' } },
      }),
    });
    expect(created.stderr).toBe('');
    expect(JSON.parse(created.stdout).status).toMatchObject({ allowed: true });
  });

  it('the review kinds decode as any create: Strict refuses an unknown field, Warn drops it with a warning', async () => {
    const reviews = [
      {
        path: '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SelfSubjectAccessReview',
        spec: { bogus: 1, resourceAttributes: { verb: 'list', resource: 'namespaces' } },
      },
      {
        path: '/apis/authentication.k8s.io/v1/tokenreviews',
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenReview',
        spec: { bogus: 1, token: 'not-a-token' },
      },
    ];
    for (const { path, ...review } of reviews) {
      const input = JSON.stringify(review);
      // kubectl --validate=strict checks against the OpenAPI schema itself; the server's own check is asked for directly.
      const strict = await server.kubectl(['create', '--raw', `${path}?fieldValidation=Strict`, '-f', '-'], { input });
      expect(strict.stderr.trim()).toBe(
        `Error from server (BadRequest): ${review.kind} in version "v1" cannot be handled as a ${review.kind}: strict decoding error: unknown field "spec.bogus"`,
      );
      const warned = await server.kubectl(['create', '--validate=warn', '-o', 'json', '-f', '-'], { input });
      expect(warned.stderr).toContain('Warning: unknown field "spec.bogus"');
      expect(JSON.parse(warned.stdout).spec.bogus).toBeUndefined();
    }
  });

  it('a user with no binding is refused even discovery-backed reads, but reads discovery itself', async () => {
    const nobody = await kubectlAs(server, 'nobody');
    expect(forbidden(await nobody(['get', 'configmaps', '-n', 'team']))).toBe(true);
    expect((await nobody(['api-resources', '--api-group=apps'])).code).toBe(0);
  });
});
