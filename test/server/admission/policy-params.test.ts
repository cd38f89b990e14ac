/**
 * ValidatingAdmissionPolicy params: a policy with paramKind ConfigMap, bound with a paramRef
 * selector, is evaluated once per matching ConfigMap of the request's namespace, `params`
 * bound to each; with none found, `Deny` refuses with the reference's configuration error; a
 * paramKind the server does not serve refuses as a policy error; bad paramRefs are refused
 * with the reference's field errors. Every expected text was read from kube-apiserver v1.34.4
 * for the same objects.
 */
import { startServer, type TestServer } from '../../helpers/server';
import { retryUntil } from '../../helpers/wait-for';

const POLICY = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: cm-limit}
spec:
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [secrets]}]
  validations:
  - expression: "object.metadata.name != params.data.forbidden"
    messageExpression: "'name ' + object.metadata.name + ' forbidden by ' + params.metadata.name"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: cm-limit-b}
spec:
  policyName: cm-limit
  paramRef: {selector: {matchLabels: {p: "yes"}}, parameterNotFoundAction: Deny}
  validationActions: [Deny]
`;

const UNSERVED = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: unserved}
spec:
  paramKind: {apiVersion: example.com/v1, kind: Nothing}
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [serviceaccounts]}]
  validations:
  - expression: "true"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: unserved-b}
spec:
  policyName: unserved
  paramRef: {name: x, parameterNotFoundAction: Allow}
  validationActions: [Deny]
`;

const binding = (name: string, paramRef: string) =>
  `apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\nmetadata: {name: ${name}}\nspec:\n  policyName: cm-limit\n  paramRef: ${paramRef}\n  validationActions: [Deny]\n`;

describe('ValidatingAdmissionPolicy params', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer();
    const created = await server.kubectl(['apply', '-f', '-'], { input: POLICY });
    if (created.code !== 0) throw new Error(created.stderr);
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('refuses bad paramRefs with the reference field errors', async () => {
    const both = await server.kubectl(['apply', '-f', '-'], {
      input: binding('bad1', '{name: x, selector: {}, parameterNotFoundAction: Maybe}'),
    });
    expect(both.stderr.trim()).toBe(
      [
        'The ValidatingAdmissionPolicyBinding "bad1" is invalid: ',
        '* spec.paramRef.name: Forbidden: name and selector are mutually exclusive',
        '* spec.paramRef.selector: Forbidden: name and selector are mutually exclusive',
        '* spec.paramRef.parameterNotFoundAction: Unsupported value: "Maybe": supported values: "Deny", "Allow"',
      ].join('\n'),
    );
    const neither = await server.kubectl(['apply', '-f', '-'], { input: binding('bad2', '{namespace: default}') });
    expect(neither.stderr.trim()).toBe(
      [
        'The ValidatingAdmissionPolicyBinding "bad2" is invalid: ',
        '* spec.paramRef: Required value: one of name or selector must be specified',
        '* spec.paramRef.parameterNotFoundAction: Required value',
      ].join('\n'),
    );
    const badName = await server.kubectl(['apply', '-f', '-'], {
      input: binding('bad3', '{name: "a/b%", namespace: "..", parameterNotFoundAction: Allow}'),
    });
    expect(badName.stderr.trim()).toBe(
      [
        'The ValidatingAdmissionPolicyBinding "bad3" is invalid: ',
        `* spec.paramRef.name: Invalid value: "a/b%": may not contain '/'`,
        `* spec.paramRef.name: Invalid value: "a/b%": may not contain '%'`,
      ].join('\n'),
    );
  });

  it('denies with the configuration error when no param is found and the action is Deny', async () => {
    const refused = await retryUntil(
      () =>
        server.request('POST', '/api/v1/namespaces/default/secrets', {
          body: JSON.stringify({ metadata: { name: 's1' } }),
          headers: { 'Content-Type': 'application/json' },
        }),
      (result) => result.status !== 201,
      3_000,
    );
    const message =
      "ValidatingAdmissionPolicy 'cm-limit' with binding 'cm-limit-b' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction";
    expect(refused.status).toBe(422);
    expect(refused.json()).toMatchObject({
      reason: 'Invalid',
      code: 422,
      message: `secrets "s1" is forbidden: ${message}`,
      details: { name: 's1', kind: 'secrets', causes: [{ message }] },
    });
  });

  it('evaluates the policy once per selected param of the request namespace', async () => {
    for (const [name, forbidden] of [
      ['c1', 'bad'],
      ['c2', 'worse'],
    ]) {
      expect(
        (await server.kubectl(['create', 'configmap', name, '-n', 'default', `--from-literal=forbidden=${forbidden}`]))
          .code,
      ).toBe(0);
      expect((await server.kubectl(['label', 'configmap', name, '-n', 'default', 'p=yes'])).code).toBe(0);
    }
    const admitted = await retryUntil(
      () => server.kubectl(['create', 'secret', 'generic', 'fine', '-n', 'default']),
      (result) => result.code === 0,
      3_000,
    );
    expect(admitted.code).toBe(0);
    const bad = await server.kubectl(['create', 'secret', 'generic', 'bad', '-n', 'default']);
    expect(bad.stderr.trim()).toBe(
      `error: failed to create secret secrets "bad" is forbidden: ValidatingAdmissionPolicy 'cm-limit' with binding 'cm-limit-b' denied request: name bad forbidden by c1`,
    );
    const worse = await server.kubectl(['create', 'secret', 'generic', 'worse', '-n', 'default']);
    expect(worse.stderr.trim()).toBe(
      `error: failed to create secret secrets "worse" is forbidden: ValidatingAdmissionPolicy 'cm-limit' with binding 'cm-limit-b' denied request: name worse forbidden by c2`,
    );
    // Another namespace has no params of its own: the binding's Deny applies there.
    expect((await server.kubectl(['create', 'namespace', 'other'])).code).toBe(0);
    const elsewhere = await server.kubectl(['create', 'secret', 'generic', 'bad', '-n', 'other']);
    expect(elsewhere.stderr.trim()).toBe(
      "error: failed to create secret secrets \"bad\" is forbidden: ValidatingAdmissionPolicy 'cm-limit' with binding 'cm-limit-b' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction",
    );
  });

  it('refuses as a policy error when the paramKind is not served', async () => {
    expect((await server.kubectl(['apply', '-f', '-'], { input: UNSERVED })).code).toBe(0);
    const refused = await retryUntil(
      () => server.kubectl(['create', 'serviceaccount', 'sa1', '-n', 'default']),
      (result) => result.code !== 0,
      3_000,
    );
    expect(refused.stderr.trim()).toBe(
      `error: failed to create serviceaccount: serviceaccounts "sa1" is forbidden: ValidatingAdmissionPolicy 'unserved' denied request: failed to configure policy: failed to find resource referenced by paramKind: 'example.com/v1, Kind=Nothing'`,
    );
  });
});
