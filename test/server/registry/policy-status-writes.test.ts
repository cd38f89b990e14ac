/**
 * Status writes of a ValidatingAdmissionPolicy through a whole replica, against what
 * kube-apiserver 1.34.4 answered (fixtures/policy-status-writes.json: per case, the policy
 * written to, the status sent as a merge patch, and the answer: the status stored, or the
 * Status's code, message and causes; one PUT of the whole object too). Each type-checking
 * warning needs a warning and a fieldRef that client-go's JSONPath parser reads; conditions are
 * metav1 Conditions. The policy the type checker writes passes the same rules.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startInProcessServer, inProcessServerForSuite } from '../../helpers/in-process-server';
import { waitFor } from '../../helpers/wait-for';

interface Answer {
  readonly policy: string;
  readonly status: Record<string, unknown>;
  readonly code: number;
  readonly stored?: Record<string, unknown>;
  readonly message?: string;
  readonly causes?: readonly unknown[];
}

const recorded: { readonly put: Answer; readonly patches: Readonly<Record<string, Answer>> } = JSON.parse(
  readFileSync(join(__dirname, 'fixtures', 'policy-status-writes.json'), 'utf8'),
);

const POLICIES = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies';
const JSON_BODY = { 'content-type': 'application/json' };
const POLICY_SPEC = {
  matchConstraints: {
    resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }],
  },
  validations: [{ expression: 'true' }],
};

// No controllers: the type checker would write the status these cases write.
const server = inProcessServerForSuite(['--controllers=']);

async function createPolicy(name: string, spec: Record<string, unknown> = POLICY_SPEC): Promise<void> {
  const answer = await server.request('POST', POLICIES, {
    headers: JSON_BODY,
    body: JSON.stringify({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name },
      spec,
    }),
  });
  expect(answer.status).toBe(201);
}

function expectAnswer(answer: { status: number; json<T>(): T }, expected: Answer): void {
  expect(answer.status).toBe(expected.code);
  const body = answer.json<{ status?: unknown; message?: string; details?: { causes?: unknown[] } }>();
  if (expected.code < 300) expect(body.status).toEqual(expected.stored);
  else {
    expect(body.message).toBe(expected.message);
    expect(body.details?.causes).toEqual(expected.causes);
  }
}

test.each(Object.entries(recorded.patches))('PATCH: %s', async (_, expected) => {
  await createPolicy(expected.policy);
  const answer = await server.request('PATCH', `${POLICIES}/${expected.policy}/status`, {
    headers: { 'content-type': 'application/merge-patch+json' },
    body: JSON.stringify({ status: expected.status }),
  });
  expectAnswer(answer, expected);
});

test('PUT: a whole policy with an unparsable fieldRef', async () => {
  const expected = recorded.put;
  const stored = (await server.request('GET', `${POLICIES}/${expected.policy}`)).json<Record<string, unknown>>();
  const answer = await server.request('PUT', `${POLICIES}/${expected.policy}/status`, {
    headers: JSON_BODY,
    body: JSON.stringify({ ...stored, status: expected.status }),
  });
  expectAnswer(answer, expected);
});

test("the type checker's warnings are a status the rules accept", async () => {
  const checker = await startInProcessServer(['--controllers=validatingadmissionpolicy-status-controller']);
  try {
    const validations = [{ expression: 'object.nothing == 1', messageExpression: "object.nowhere + 'x'" }];
    const answer = await checker.request('POST', POLICIES, {
      headers: JSON_BODY,
      body: JSON.stringify({
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicy',
        metadata: { name: 'checked' },
        spec: { ...POLICY_SPEC, validations },
      }),
    });
    expect(answer.status).toBe(201);
    const status = await waitFor('the type checker to write its warnings', async () => {
      const policy = (await checker.request('GET', `${POLICIES}/checked`)).json<{
        status?: { typeChecking?: { expressionWarnings?: { fieldRef: string }[] } };
      }>();
      return policy.status?.typeChecking?.expressionWarnings ? policy.status : undefined;
    });
    expect(status.typeChecking?.expressionWarnings?.map((warning) => warning.fieldRef)).toEqual([
      'spec.validations[0].expression',
      'spec.validations[0].messageExpression',
    ]);
    // Written back as it stands, the checker's status passes the status rules.
    const rewritten = await checker.request('PATCH', `${POLICIES}/checked/status`, {
      headers: { 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({ status }),
    });
    expect(rewritten.status).toBe(200);
  } finally {
    await checker.stop();
  }
}, 60_000);
