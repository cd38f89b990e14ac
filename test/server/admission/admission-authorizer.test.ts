/**
 * The `authorizer` variable of admission expressions, asked of the server's RBAC: a policy that
 * lets only users who may also delete ConfigMaps create them (through
 * `authorizer.requestResource`), with checks of RBAC's reasons, of a path, of a service account
 * and of errors; and a webhook whose matchCondition asks the authorizer, served by the test.
 * Messages and warnings are those kube-apiserver v1.34.4 gave for the same objects and users.
 */
import { startServer, type TestServer } from '../../helpers/server';
import { retryUntil } from '../../helpers/wait-for';
import { startHttpsFixture, type HttpsFixture } from '../authn/https-fixture';

const RBAC = `apiVersion: v1
kind: Namespace
metadata: {name: vap-authz}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: cm-writer, namespace: vap-authz}
rules: [{apiGroups: [""], resources: [configmaps], verbs: [create, get]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: alice-cm-writer, namespace: vap-authz}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: cm-writer}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: alice}, {kind: ServiceAccount, name: robot, namespace: vap-authz}]
`;

const POLICY = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: deleters-only}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
  variables:
  - {name: createReason, expression: "authorizer.requestResource.check('create').reason()"}
  - {name: deleteReason, expression: "authorizer.requestResource.check('delete').reason()"}
  validations:
  - expression: "variables.createReason == 'RBAC: allowed by RoleBinding \\"alice-cm-writer/vap-authz\\" of Role \\"cm-writer\\" to User \\"alice\\"'"
    message: create-reason
  - expression: "variables.deleteReason == ''"
    message: delete-reason
  - expression: "authorizer.requestResource.check('delete').allowed()"
    messageExpression: "'may not delete: ' + variables.createReason"
  - expression: "authorizer.path('/healthz').check('get').allowed() && !authorizer.path('/metrics').check('get').allowed()"
    message: paths
  - expression: "authorizer.serviceAccount('vap-authz', 'robot').group('').resource('configmaps').namespace('vap-authz').check('get').allowed() && !authorizer.serviceAccount('vap-authz', 'robot').group('').resource('configmaps').namespace('vap-authz').check('delete').allowed()"
    message: robot
  - expression: "!authorizer.group('').resource('configmaps').check('get').errored() && authorizer.group('').resource('configmaps').check('get').error() == ''"
    message: errored
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: deleters-only}
spec:
  policyName: deleters-only
  validationActions: [ACTIONS]
  matchResources: {namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: vap-authz}}}
`;

const WARNING =
  "Warning: Validation failed for ValidatingAdmissionPolicy 'deleters-only' with binding 'deleters-only': ";

describe('the authorizer in admission expressions', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer();
    const created = await server.kubectl(['apply', '-f', '-'], { input: RBAC });
    if (created.code !== 0) throw new Error(created.stderr);
  });

  afterAll(async () => {
    await server?.stop();
  });

  /** Applies the policy bound with `actions`, then retries `write` until the new binding shows (the caches follow within moments). */
  async function withBinding(
    actions: string,
    write: () => Promise<{ code: number; stderr: string }>,
    shows: (result: { code: number; stderr: string }) => boolean,
  ) {
    const applied = await server.kubectl(['apply', '-f', '-'], { input: POLICY.replace('ACTIONS', actions) });
    if (applied.code !== 0) throw new Error(applied.stderr);
    return retryUntil(write, shows, 3_000);
  }

  it('denies a user who may not delete, with the message the reference falls back to', async () => {
    const refused = await withBinding(
      'Deny',
      () => server.kubectl(['create', 'configmap', 'c1', '-n', 'vap-authz', '--as=alice']),
      (result) => result.code !== 0,
    );
    // The messageExpression reads a variable that asks the authorizer, which messages may not:
    // the reference falls back to the expression.
    expect(refused.stderr.trim()).toBe(
      `error: failed to create configmap: configmaps "c1" is forbidden: ValidatingAdmissionPolicy 'deleters-only' with binding 'deleters-only' denied request: failed expression: authorizer.requestResource.check('delete').allowed()`,
    );
    const robot = await server.kubectl([
      'create',
      'configmap',
      'c2',
      '-n',
      'vap-authz',
      '--as=system:serviceaccount:vap-authz:robot',
    ]);
    expect(robot.code).not.toBe(0);
  });

  it("warns as the reference for each user: RBAC's reasons, paths, service accounts", async () => {
    const alice = await withBinding(
      'Warn',
      () => server.kubectl(['create', 'configmap', 'a1', '-n', 'vap-authz', '--as=alice']),
      (result) => result.code === 0,
    );
    expect(alice.stderr.trim().split('\n')).toEqual([
      `${WARNING}failed expression: authorizer.requestResource.check('delete').allowed()`,
    ]);
    const admin = await server.kubectl(['create', 'configmap', 'a2', '-n', 'vap-authz']);
    expect(admin.stderr.trim().split('\n')).toEqual([`${WARNING}create-reason`, `${WARNING}paths`]);
    const robot = await server.kubectl([
      'create',
      'configmap',
      'a3',
      '-n',
      'vap-authz',
      '--as=system:serviceaccount:vap-authz:robot',
    ]);
    expect(robot.stderr.trim().split('\n')).toEqual([
      `${WARNING}create-reason`,
      `${WARNING}failed expression: authorizer.requestResource.check('delete').allowed()`,
    ]);
  });

  describe('in a webhook matchCondition', () => {
    let webhookServer: HttpsFixture;
    const called: string[] = [];

    beforeAll(async () => {
      webhookServer = await startHttpsFixture((_req, res, body) => {
        const { request } = JSON.parse(body) as { request: { uid: string; userInfo: { username: string } } };
        called.push(request.userInfo.username);
        res.setHeader('Content-Type', 'application/json');
        res.end(
          JSON.stringify({
            apiVersion: 'admission.k8s.io/v1',
            kind: 'AdmissionReview',
            response: { uid: request.uid, allowed: false, status: { code: 403, message: 'no deleting, no creating' } },
          }),
        );
      });
      const base = webhookServer.url;
      await server.kubectl(['delete', 'validatingadmissionpolicybinding', 'deleters-only']);
      const configuration = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: authz-cond}
webhooks:
- name: authz.example.com
  clientConfig: {url: "${base}/check", caBundle: ${Buffer.from(webhookServer.caPem).toString('base64')}}
  sideEffects: None
  admissionReviewVersions: [v1]
  rules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
  namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: vap-authz}}
  matchConditions:
  - {name: non-deleters, expression: "!authorizer.requestResource.check('delete').allowed() && authorizer.path('/healthz').check('get').allowed()"}
`;
      const applied = await server.kubectl(['apply', '-f', '-'], { input: configuration });
      if (applied.code !== 0) throw new Error(applied.stderr);
    });

    afterAll(async () => {
      await webhookServer?.close();
    });

    it('calls the webhook only for users the authorizer says may not delete', async () => {
      let attempt = 0;
      const refused = await retryUntil(
        () => server.kubectl(['create', 'configmap', `w1-${attempt++}`, '-n', 'vap-authz', '--as=alice']),
        (result) => result.code !== 0,
        3_000,
      );
      expect(refused.stderr.trim()).toMatch(
        /^error: failed to create configmap: admission webhook "authz.example.com" denied the request: no deleting, no creating$/,
      );
      const admin = await server.kubectl(['create', 'configmap', 'w2', '-n', 'vap-authz']);
      expect(admin.code).toBe(0);
      expect(called).not.toContain('kubernetes-admin');
      expect(called).toContain('alice');
    });
  });
});
