/**
 * ValidatingAdmissionPolicy through kubectl: a policy limiting Deployments to 5 replicas,
 * bound with Deny, refuses `kubectl apply` of 7 with the reference's status and message (read
 * from kube-apiserver v1.34.4 for the same objects) and admits 2; the objects are defaulted
 * and printed as the reference does; a Warn-only binding does not refuse.
 */
import { startServer, type TestServer } from '../../helpers/server';
import { retryUntil } from '../../helpers/wait-for';

const POLICY = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: max-replicas}
spec:
  matchConstraints:
    resourceRules: [{apiGroups: [apps], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [deployments]}]
  validations:
  - expression: "object.spec.replicas <= 5"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: max-replicas-binding}
spec:
  policyName: max-replicas
  validationActions: [Deny]
`;

const deployment = (name: string, replicas: number) =>
  `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: ${name}, namespace: default}\nspec:\n  replicas: ${replicas}\n  selector: {matchLabels: {app: ${name}}}\n  template:\n    metadata: {labels: {app: ${name}}}\n    spec: {containers: [{name: c, image: nginx}]}\n`;

describe('ValidatingAdmissionPolicy', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer();
    const created = await server.kubectl(['apply', '-f', '-'], { input: POLICY });
    if (created.code !== 0) throw new Error(created.stderr);
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('stores the policy as the reference defaults it, and prints it', async () => {
    const read = await server.kubectl(['get', 'validatingadmissionpolicy', 'max-replicas', '-o', 'json']);
    const policy = JSON.parse(read.stdout);
    // status is the type-checking controller's (policy-type-checking.test.ts).
    expect({ spec: policy.spec, generation: policy.metadata.generation }).toEqual({
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: {
          matchPolicy: 'Equivalent',
          namespaceSelector: {},
          objectSelector: {},
          resourceRules: [
            {
              apiGroups: ['apps'],
              apiVersions: ['v1'],
              operations: ['CREATE', 'UPDATE'],
              resources: ['deployments'],
              scope: '*',
            },
          ],
        },
        validations: [{ expression: 'object.spec.replicas <= 5' }],
      },
      generation: 1,
    });
    const table = await server.kubectl(['get', 'validatingadmissionpolicies,validatingadmissionpolicybindings']);
    expect(table.stdout).toMatch(/NAME\s+VALIDATIONS\s+PARAMKIND\s+AGE\n\S+\/max-replicas\s+1\s+<unset>\s+\d+s/);
    expect(table.stdout).toMatch(
      /NAME\s+POLICYNAME\s+PARAMREF\s+AGE\n\S+\/max-replicas-binding\s+max-replicas\s+<unset>\s+\d+s/,
    );
  });

  it('denies kubectl apply over the limit with the reference message, and admits under it', async () => {
    const refused = await server.kubectl(['apply', '-f', '-'], { input: deployment('big', 7) });
    expect(refused.code).not.toBe(0);
    // kubectl apply prints a 422 from its causes: the reference's answer reads exactly so.
    expect(refused.stderr.trim()).toBe(
      `The deployments "big" is invalid: : ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-binding' denied request: failed expression: object.spec.replicas <= 5`,
    );
    expect((await server.kubectl(['get', 'deployment', 'big', '-n', 'default'])).code).not.toBe(0);
    const raw = await server.request('POST', '/apis/apps/v1/namespaces/default/deployments', {
      body: JSON.stringify({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'big2' },
        spec: {
          replicas: 9,
          selector: { matchLabels: { a: 'b' } },
          template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
        },
      }),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(raw.status).toBe(422);
    expect(raw.json()).toMatchObject({
      message: `deployments.apps "big2" is forbidden: ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-binding' denied request: failed expression: object.spec.replicas <= 5`,
      reason: 'Invalid',
      code: 422,
      details: {
        name: 'big2',
        group: 'apps',
        kind: 'deployments',
        causes: [
          {
            message:
              "ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-binding' denied request: failed expression: object.spec.replicas <= 5",
          },
        ],
      },
    });
    const admitted = await server.kubectl(['apply', '-f', '-'], { input: deployment('small', 2) });
    expect(admitted.stderr).toBe('');
    expect(admitted.code).toBe(0);
  });

  it('matchPolicy Equivalent: a policy on autoscaling/v1 judges a v2 request in v1; an Exact one ignores it', async () => {
    const hpaPolicy = (name: string, matchPolicy: string, limit: number) => `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: ${name}}
spec:
  matchConstraints:
    matchPolicy: ${matchPolicy}
    resourceRules: [{apiGroups: [autoscaling], apiVersions: [v1], operations: [CREATE], resources: [horizontalpodautoscalers]}]
  validations:
  - expression: "object.apiVersion == 'autoscaling/v1' && object.spec.targetCPUUtilizationPercentage <= ${limit}"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: ${name}}
spec:
  policyName: ${name}
  validationActions: [Deny]
`;
    expect((await server.kubectl(['apply', '-f', '-'], { input: hpaPolicy('cpu-exact', 'Exact', 10) })).code).toBe(0);
    const hpa = (name: string, utilization: number) =>
      JSON.stringify({
        apiVersion: 'autoscaling/v2',
        kind: 'HorizontalPodAutoscaler',
        metadata: { name },
        spec: {
          scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
          maxReplicas: 3,
          metrics: [
            {
              type: 'Resource',
              resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: utilization } },
            },
          ],
        },
      });
    const create = (name: string, utilization: number) =>
      server.request('POST', '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers', {
        body: hpa(name, utilization),
        headers: { 'Content-Type': 'application/json' },
      });
    // The Exact policy names v1 only: a v2 request passes it.
    expect((await create('exact', 50)).status).toBe(201);
    expect(
      (await server.kubectl(['apply', '-f', '-'], { input: hpaPolicy('cpu-equivalent', 'Equivalent', 80) })).code,
    ).toBe(0);
    let attempt = 0;
    const refused = await retryUntil(
      () => create(`hot${attempt++}`, 90),
      (answer) => answer.status !== 201,
      2_000,
    );
    expect(refused.status).toBe(422);
    expect((refused.json() as { message: string }).message).toMatch(
      /^horizontalpodautoscalers.autoscaling "hot\d*" is forbidden: ValidatingAdmissionPolicy 'cpu-equivalent' with binding 'cpu-equivalent' denied request: failed expression: object.apiVersion == 'autoscaling\/v1' && object.spec.targetCPUUtilizationPercentage <= 80$/,
    );
    expect((await create('cool', 60)).status).toBe(201);
  });

  it('a Warn-only binding does not refuse', async () => {
    const warnOnly = await server.kubectl([
      'patch',
      'validatingadmissionpolicybinding',
      'max-replicas-binding',
      '--type=merge',
      '-p',
      '{"spec":{"validationActions":["Warn"]}}',
    ]);
    expect(warnOnly.code).toBe(0);
    // The cache follows the patch within moments.
    const admitted = await retryUntil(
      () => server.kubectl(['apply', '-f', '-'], { input: deployment('big', 7) }),
      (result) => result.code === 0,
      2_000,
    );
    expect(admitted.code).toBe(0);
  });
});
