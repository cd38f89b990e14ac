/**
 * ValidatingAdmissionPolicy evaluation (server/admission/policy): matching, match conditions,
 * variables, validations with their messages and reasons, audit annotations, failure policy
 * and validation actions, over real CEL evaluation.
 */
import { CompiledPolicy, VALIDATION_FAILURE_AUDIT_KEY } from '../../server/admission/policy/evaluate';
import type {
  AdmissionAttributes,
  ValidatingAdmissionPolicy,
  ValidatingAdmissionPolicyBinding,
  ValidatingAdmissionPolicySpec,
  ValidationAction,
} from '../../api/admissionregistration';
import { RequestCostBudget } from '../../server/cel/environment';
import { CelAuthorizer } from '../../server/cel/libraries/authorizer';

const deploymentRules = {
  resourceRules: [
    { apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'] },
  ],
};

function policy(spec: Partial<ValidatingAdmissionPolicySpec>, name = 'max-replicas'): CompiledPolicy {
  const full: ValidatingAdmissionPolicy = { metadata: { name }, spec: { matchConstraints: deploymentRules, ...spec } };
  return new CompiledPolicy(full);
}

function binding(
  actions: ValidationAction[] = ['Deny'],
  extra: Partial<ValidatingAdmissionPolicyBinding['spec']> = {},
): ValidatingAdmissionPolicyBinding {
  return {
    metadata: { name: 'max-replicas-binding' },
    spec: { policyName: 'max-replicas', validationActions: actions, ...extra },
  };
}

function deployment(replicas: number, labels: Record<string, string> = {}, namespace = 'default'): AdmissionAttributes {
  return {
    operation: 'CREATE',
    resource: { group: 'apps', version: 'v1', resource: 'deployments' },
    kind: { group: 'apps', version: 'v1', kind: 'Deployment' },
    subresource: '',
    namespace,
    name: 'web',
    object: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace, labels },
      spec: { replicas },
    },
    oldObject: null,
    userInfo: { name: 'alice', groups: ['dev', 'system:authenticated'] },
    dryRun: false,
  };
}

const inputs = (
  attributes: AdmissionAttributes,
  extra: { params?: Record<string, unknown>; nsLabels?: Record<string, string> } = {},
) => ({
  attributes,
  namespaceObject: { metadata: { name: attributes.namespace, labels: extra.nsLabels ?? {} } },
  params: extra.params ?? null,
});

describe('validations', () => {
  const maxFive = policy({ validations: [{ expression: 'object.spec.replicas <= 5' }] });

  test('a failed rule denies with the default message, reason Invalid and 422', async () => {
    expect(await maxFive.evaluate(binding(), inputs(deployment(6)))).toEqual({
      matched: true,
      denial: {
        message:
          "ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-binding' denied request: failed expression: object.spec.replicas <= 5",
        reason: 'Invalid',
        code: 422,
      },
      warnings: [],
      auditAnnotations: {},
    });
  });

  test('a passing rule admits', async () => {
    expect(await maxFive.evaluate(binding(), inputs(deployment(3)))).toEqual({
      matched: true,
      warnings: [],
      auditAnnotations: {},
    });
  });

  test('message, messageExpression and reason', async () => {
    const withMessages = policy({
      validations: [
        { expression: 'object.spec.replicas <= 5', message: 'too many', reason: 'Forbidden' },
        {
          expression: 'object.spec.replicas <= 4',
          messageExpression: "'replicas ' + string(object.spec.replicas) + ' > 4'",
        },
        { expression: 'object.spec.replicas <= 3', message: 'fallback', messageExpression: 'object.spec.nope' },
      ],
    });
    const outcome = await withMessages.evaluate(binding(['Warn']), inputs(deployment(6)));
    expect(outcome.denial).toBeUndefined();
    expect(outcome.warnings).toEqual([
      "Validation failed for ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-binding': too many",
      "Validation failed for ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-binding': replicas 6 > 4",
      "Validation failed for ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-binding': fallback",
    ]);
    const denied = await withMessages.evaluate(binding(), inputs(deployment(6)));
    expect(denied.denial).toMatchObject({ reason: 'Forbidden', code: 403 });
  });

  test('params and variables', async () => {
    const withParams = policy({
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      variables: [
        { name: 'replicas', expression: 'object.spec.replicas' },
        { name: 'limit', expression: 'int(params.data.maxReplicas)' },
      ],
      validations: [
        {
          expression: 'variables.replicas <= variables.limit',
          messageExpression: "'at most ' + string(variables.limit)",
        },
      ],
    });
    const params = { data: { maxReplicas: '4' } };
    expect((await withParams.evaluate(binding(), inputs(deployment(4), { params }))).denial).toBeUndefined();
    expect((await withParams.evaluate(binding(), inputs(deployment(5), { params }))).denial?.message).toMatch(
      /denied request: at most 4$/,
    );
  });

  test('the request and the user are visible', async () => {
    const onlyAdmins = policy({
      validations: [{ expression: "request.userInfo.username == 'admin' || 'admins' in request.userInfo.groups" }],
    });
    expect((await onlyAdmins.evaluate(binding(), inputs(deployment(1)))).denial).toBeDefined();
    const admin = { ...deployment(1), userInfo: { name: 'admin', groups: [] } };
    expect((await onlyAdmins.evaluate(binding(), inputs(admin))).denial).toBeUndefined();
  });

  test('the authorizer variable', async () => {
    const needsScale = policy({
      validations: [
        {
          expression: "authorizer.group('apps').resource('deployments').subresource('scale').check('update').allowed()",
        },
      ],
    });
    const authorizer = new CelAuthorizer({ name: 'alice', groups: [] }, (check) => ({
      decision: check.resource?.subresource === 'scale' && check.user.name === 'alice' ? 'allow' : 'no-opinion',
      reason: '',
    }));
    expect((await needsScale.evaluate(binding(), { ...inputs(deployment(1)), authorizer })).denial).toBeUndefined();
    const bob = new CelAuthorizer({ name: 'bob', groups: [] }, authorizer.checker);
    expect((await needsScale.evaluate(binding(), { ...inputs(deployment(1)), authorizer: bob })).denial).toBeDefined();
  });
});

describe('failure policy', () => {
  const erring = (failurePolicy: 'Fail' | 'Ignore') =>
    policy({ failurePolicy, validations: [{ expression: 'object.spec.missing > 1' }] });

  test('Fail: an erring rule denies, naming the expression', async () => {
    const outcome = await erring('Fail').evaluate(binding(), inputs(deployment(1)));
    expect(outcome.denial?.message).toMatch(/denied request: expression 'object.spec.missing > 1' resulted in error: /);
  });

  test('Ignore: an erring rule is skipped', async () => {
    expect((await erring('Ignore').evaluate(binding(), inputs(deployment(1)))).denial).toBeUndefined();
  });

  test('a rule that does not compile fails at admission', async () => {
    const broken = policy({ validations: [{ expression: 'object.spec.replicas <=' }] });
    expect((await broken.evaluate(binding(), inputs(deployment(1)))).denial?.message).toMatch(/compilation failed/);
  });

  const quadratic = policy({
    validations: [
      { expression: 'object.spec.items.all(x, object.spec.items.all(y, x + y >= 0))' },
      { expression: 'object.spec.items.all(x, x >= 0)' },
    ],
  });
  const withItems = (count: number): AdmissionAttributes => {
    const attributes = deployment(1);
    return {
      ...attributes,
      object: { ...attributes.object, spec: { items: Array.from({ length: count }, (_, i) => i) } },
    };
  };

  test('a rule past the per-call cost limit errs', async () => {
    expect((await quadratic.evaluate(binding(), inputs(withItems(2000)))).denial?.message).toMatch(
      /resulted in error: operation cancelled: actual cost limit exceeded$/,
    );
  });

  test('past the binding budget, the reference text', async () => {
    // A smaller budget than the reference's 10,000,000 keeps the test short; the rule is the same.
    const budget = new RequestCostBudget(30_000);
    const outcome = await quadratic.evaluate(binding(['Warn']), { ...inputs(withItems(100)), budget });
    expect(outcome.warnings).toEqual([
      "Validation failed for ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-binding': validation failed due to running out of cost budget, no further validation rules will be run",
    ]);
  });
});

describe('matching', () => {
  const maxFive = (spec: Partial<ValidatingAdmissionPolicySpec> = {}) =>
    policy({ validations: [{ expression: 'object.spec.replicas <= 5' }], ...spec });

  test('resources outside the rules are not matched', async () => {
    const pod: AdmissionAttributes = {
      ...deployment(9),
      resource: { group: '', version: 'v1', resource: 'pods' },
      kind: { group: '', version: 'v1', kind: 'Pod' },
    };
    expect((await maxFive().evaluate(binding(), inputs(pod))).matched).toBe(false);
    expect((await maxFive().evaluate(binding(), inputs({ ...deployment(9), subresource: 'scale' }))).matched).toBe(
      false,
    );
    expect((await maxFive().evaluate(binding(), inputs({ ...deployment(9), operation: 'DELETE' }))).matched).toBe(
      false,
    );
  });

  test('excluded rules, resource names, namespace and object selectors', async () => {
    const excluded = maxFive({
      matchConstraints: {
        ...deploymentRules,
        excludeResourceRules: [
          {
            apiGroups: ['apps'],
            apiVersions: ['*'],
            operations: ['*'],
            resources: ['deployments'],
            resourceNames: ['web'],
          },
        ],
      },
    });
    expect((await excluded.evaluate(binding(), inputs(deployment(9)))).matched).toBe(false);

    const prodOnly = maxFive({
      matchConstraints: { ...deploymentRules, namespaceSelector: { matchLabels: { env: 'prod' } } },
    });
    expect((await prodOnly.evaluate(binding(), inputs(deployment(9), { nsLabels: { env: 'dev' } }))).matched).toBe(
      false,
    );
    expect(
      (await prodOnly.evaluate(binding(), inputs(deployment(9), { nsLabels: { env: 'prod' } }))).denial,
    ).toBeDefined();

    const selected = binding(['Deny'], {
      matchResources: { objectSelector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['frontend'] }] } },
    });
    expect((await maxFive().evaluate(selected, inputs(deployment(9, { tier: 'backend' })))).matched).toBe(false);
    expect((await maxFive().evaluate(selected, inputs(deployment(9, { tier: 'frontend' })))).denial).toBeDefined();
  });

  test('match conditions: false skips, an error fails closed or is ignored', async () => {
    const conditioned = (failurePolicy: 'Fail' | 'Ignore', expression: string) =>
      maxFive({ failurePolicy, matchConditions: [{ name: 'not-system', expression }] });
    expect(
      (await conditioned('Fail', "request.namespace != 'default'").evaluate(binding(), inputs(deployment(9)))).matched,
    ).toBe(false);
    expect(
      (await conditioned('Fail', "request.namespace == 'default'").evaluate(binding(), inputs(deployment(9)))).denial,
    ).toBeDefined();
    expect(
      (await conditioned('Fail', 'object.nope').evaluate(binding(), inputs(deployment(1)))).denial?.message,
    ).toMatch(/failed to evaluate match condition 'not-system'/);
    expect((await conditioned('Ignore', 'object.nope').evaluate(binding(), inputs(deployment(9)))).matched).toBe(false);
  });
});

describe('validation actions and audit annotations', () => {
  test('Audit records the failure; auditAnnotations add keyed values', async () => {
    const audited = policy({
      validations: [{ expression: 'object.spec.replicas <= 5', message: 'too many' }],
      auditAnnotations: [
        { key: 'replicas', valueExpression: "'replicas=' + string(object.spec.replicas)" },
        { key: 'skipped', valueExpression: 'null' },
      ],
    });
    const outcome = await audited.evaluate(binding(['Audit', 'Warn']), inputs(deployment(6)));
    expect(outcome.denial).toBeUndefined();
    expect(outcome.warnings).toHaveLength(1);
    expect(outcome.auditAnnotations['max-replicas/replicas']).toBe('replicas=6');
    expect(outcome.auditAnnotations).not.toHaveProperty('max-replicas/skipped');
    expect(outcome.auditAnnotations).not.toHaveProperty(VALIDATION_FAILURE_AUDIT_KEY);
    expect(JSON.parse(outcome.validationFailure!)).toEqual([
      {
        message: 'too many',
        policy: 'max-replicas',
        binding: 'max-replicas-binding',
        expressionIndex: 0,
        validationActions: ['Audit', 'Warn'],
      },
    ]);
  });
});

describe('an authorizer that answers later', () => {
  test('the evaluation waits for the answer and runs again', async () => {
    const needsScale = policy({
      validations: [
        {
          expression:
            "authorizer.group('apps').resource('deployments').subresource('scale').check('update').allowed() || request.userInfo.username == 'root'",
        },
      ],
    });
    let asked = 0;
    const later = (allow: boolean) =>
      new CelAuthorizer({ name: 'alice', groups: [] }, async () => {
        asked++;
        await new Promise((resolve) => setImmediate(resolve));
        return { decision: allow ? 'allow' : 'deny', reason: allow ? '' : 'webhook says no' };
      });
    expect(
      (await needsScale.evaluate(binding(), { ...inputs(deployment(1)), authorizer: later(true) })).denial,
    ).toBeUndefined();
    expect(
      (await needsScale.evaluate(binding(), { ...inputs(deployment(1)), authorizer: later(false) })).denial,
    ).toBeDefined();
    expect(asked).toBe(2);
  });
});

describe('environments', () => {
  // ext.Lists (sort) came with 1.34's base environment, after the compatibility version (1.33).
  const sorted = "object.metadata.labels.map(k, k).sort() == ['a', 'b']";

  test('a stored policy runs in the stored-expression environment, with what 1.33 lacks', async () => {
    const stored = policy({ validations: [{ expression: sorted }] });
    expect(await stored.evaluate(binding(), inputs(deployment(1, { b: '1', a: '2' })))).toMatchObject({
      matched: true,
      warnings: [],
    });
    expect(await stored.evaluate(binding(), inputs(deployment(1, { c: '1' })))).toMatchObject({
      denial: { message: expect.stringContaining(`failed expression: ${sorted}`) },
    });
  });
});
