/**
 * Attacks on RBAC that must fail without writing anything: a user who may create roles but not
 * `escalate` cannot create or widen a role beyond what they hold; one who may create bindings
 * cannot bind cluster-admin; nobody can change a binding's roleRef. And the default policy
 * comes back on restart, except where an administrator turned autoupdate off.
 */
import { canI, forbidden, kubectlAs, type Kubectl } from './auth-can-i-identities';
import { startEtcd, type EtcdServer } from '../helpers/etcd';
import { startServer, type TestServer } from '../helpers/server';

jest.setTimeout(120_000);

const SETUP = `
apiVersion: v1
kind: Namespace
metadata: {name: att}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: role-admin, namespace: att}
rules:
- {apiGroups: [rbac.authorization.k8s.io], resources: [roles, rolebindings], verbs: [create, get, list, update, patch]}
- {apiGroups: [""], resources: [configmaps], verbs: [get]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: mallory, namespace: att}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: role-admin}
subjects: [{kind: User, name: mallory, apiGroup: rbac.authorization.k8s.io}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: cm-get, namespace: att}
rules: [{apiGroups: [""], resources: [configmaps], verbs: [get]}]
`;

const role = (name: string, resources: string) => `
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: ${name}, namespace: att}
rules: [{apiGroups: [""], resources: [${resources}], verbs: [get]}]
`;

describe('RBAC attacks', () => {
  let server: TestServer;
  let mallory: Kubectl;
  beforeAll(async () => {
    server = await startServer();
    expect((await server.kubectl(['apply', '-f', '-'], { input: SETUP })).stderr).toBe('');
    mallory = await kubectlAs(server, 'mallory');
  });
  afterAll(() => server?.stop());

  const exists = async (kind: string, name: string) =>
    (await server.kubectl(['get', kind, name, '-n', 'att'])).code === 0;

  it('a user with create roles but not escalate cannot create a role with more than they hold', async () => {
    expect(await canI(mallory, ['escalate', 'roles', '-n', 'att'])).toBe(false);
    const greedy = await mallory(['create', '-f', '-'], { input: role('greedy', 'configmaps, secrets') });
    expect(forbidden(greedy)).toBe(true);
    expect(greedy.stderr).toContain('is attempting to grant RBAC permissions not currently held');
    expect(await exists('role', 'greedy')).toBe(false);
    // What they hold they may grant.
    expect((await mallory(['create', '-f', '-'], { input: role('modest', 'configmaps') })).code).toBe(0);
  });

  it('nor widen a role they may update', async () => {
    const widened = await mallory(['replace', '-f', '-'], { input: role('modest', 'configmaps, secrets') });
    expect(forbidden(widened)).toBe(true);
    expect(
      (await server.kubectl(['get', 'role', 'modest', '-n', 'att', '-o', 'jsonpath={.rules[0].resources}'])).stdout,
    ).toBe('["configmaps"]');
  });

  it('a user with create rolebindings cannot bind cluster-admin', async () => {
    const bound = await mallory([
      'create',
      'rolebinding',
      'takeover',
      '--clusterrole=cluster-admin',
      '--user=mallory',
      '-n',
      'att',
    ]);
    expect(forbidden(bound)).toBe(true);
    expect(await exists('rolebinding', 'takeover')).toBe(false);
    expect(
      forbidden(
        await mallory(['create', 'clusterrolebinding', 'takeover', '--clusterrole=cluster-admin', '--user=mallory']),
      ),
    ).toBe(true);
    expect((await server.kubectl(['get', 'clusterrolebinding', 'takeover'])).code).not.toBe(0);
    // Binding a role whose permissions they hold is fine.
    expect(
      (await mallory(['create', 'rolebinding', 'share', '--role=cm-get', '--user=friend', '-n', 'att'])).code,
    ).toBe(0);
  });

  it("nobody changes a binding's roleRef, not even to a role they hold", async () => {
    const changed = (name: string) => `
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: share, namespace: att}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: ${name}}
subjects: [{kind: User, name: friend, apiGroup: rbac.authorization.k8s.io}]
`;
    const byMallory = await mallory(['replace', '-f', '-'], { input: changed('modest') });
    expect(byMallory.code).not.toBe(0);
    expect(byMallory.stderr).toContain('cannot change roleRef');
    const byAdmin = await server.kubectl(['replace', '-f', '-'], { input: changed('role-admin') });
    expect(byAdmin.code).not.toBe(0);
    expect(byAdmin.stderr).toContain('cannot change roleRef');
    expect(
      (await server.kubectl(['get', 'rolebinding', 'share', '-n', 'att', '-o', 'jsonpath={.roleRef.name}'])).stdout,
    ).toBe('cm-get');
  });
});

describe('the default policy across restarts', () => {
  let etcd: EtcdServer;
  let server: TestServer | undefined;
  beforeAll(async () => {
    etcd = await startEtcd();
  });
  afterAll(async () => {
    await server?.stop();
    await etcd?.stop();
  });

  it('deleted or trimmed default roles come back, unless their autoupdate annotation is "false"', async () => {
    const options = { etcdServers: etcd.endpoints, etcdPrefix: '/restart-test' };
    server = await startServer(options);
    expect((await server.kubectl(['delete', 'clusterrole', 'system:discovery'])).code).toBe(0);
    expect((await server.kubectl(['delete', 'clusterrolebinding', 'system:basic-user'])).code).toBe(0);
    const trimmed = (name: string, autoupdate: string) => `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: ${name}
  annotations: {rbac.authorization.kubernetes.io/autoupdate: "${autoupdate}"}
rules: [{nonResourceURLs: [/healthz], verbs: [get]}]
`;
    expect(
      (await server.kubectl(['replace', '-f', '-'], { input: trimmed('system:public-info-viewer', 'true') })).code,
    ).toBe(0);
    expect((await server.kubectl(['replace', '-f', '-'], { input: trimmed('system:monitoring', 'false') })).code).toBe(
      0,
    );
    await server.stop();

    server = await startServer(options);
    const rules = async (name: string) =>
      (await server!.kubectl(['get', 'clusterrole', name, '-o', 'jsonpath={.rules[*].nonResourceURLs}'])).stdout;
    expect(await rules('system:discovery')).toContain('/apis/*');
    expect(
      (await server.kubectl(['get', 'clusterrolebinding', 'system:basic-user', '-o', 'jsonpath={.subjects[0].name}']))
        .stdout,
    ).toBe('system:authenticated');
    expect(await rules('system:public-info-viewer')).toContain('/version');
    expect(await rules('system:monitoring')).toBe('["/healthz"]');
  });
});
