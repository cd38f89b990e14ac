/**
 * An admission policy's expressions (Validating and Mutating) are checked when it is written, as
 * kube-apiserver v1.34.4 checks them: compile errors and result types, with `request` and
 * `namespaceObject` typed, `params` declared only with a paramKind, `variables` typed in order
 * (and not seen by matchConditions), and no `authorizer` in messageExpressions. Details are the
 * reference's (its parse errors aside: the two parsers word a syntax error differently); the
 * answers through the API are recorded from it (fixtures/policy-expression-refusals.json).
 */
import {
  NO_PREEXISTING_POLICY_EXPRESSIONS,
  policyExpressionChecks,
  preexistingMutatingPolicyExpressions,
  preexistingPolicyExpressions,
  validatePolicyExpressions,
  validateWebhookMatchConditions,
} from '../../../server/validation/admission-cel/expression-validation';
import { FieldPath } from '../../../server/status/field-errors';
import { schemaOfDefinition } from '../../../server/validation/admission-cel/kind-schemas';
import type { MutatingAdmissionPolicySpec, ValidatingAdmissionPolicySpec } from '../../../api/admissionregistration';
import { schemaData } from '../../../server/schema/definitions';
import { startServer, type TestServer } from '../../helpers/server';
import refusals from './fixtures/policy-expression-refusals.json';

/** A policy being created: its match conditions checked, its audit annotations' keys qualified by its name. */
const CREATED = { name: 'p', ignoreMatchConditions: false };
const namespace = schemaOfDefinition(schemaData().definitions, 'io.k8s.api.core.v1.Namespace');
/** `<field>: <detail>` without the `Invalid value: "<expression>": ` every detail starts with. */
const errorsOf = (spec: ValidatingAdmissionPolicySpec) =>
  validatePolicyExpressions(spec, namespace, NO_PREEXISTING_POLICY_EXPRESSIONS, CREATED).map(
    (error) =>
      `${error.field}: ${error.detail.replace(/^Invalid value: .*?": (?=must evaluate|compilation failed)/s, '')}`,
  );

describe('policy expressions checked at write time', () => {
  it('refuses what does not compile or has the wrong type, in the reference words', () => {
    const errors = errorsOf({
      variables: [
        { name: 'a', expression: '1 +' },
        { name: 'b', expression: 'request.dryRun + 1' },
        { name: 'c', expression: 'object.x' },
      ],
      matchConditions: [
        { name: 'm1', expression: '1' },
        { name: 'm2', expression: 'nope' },
      ],
      validations: [
        { expression: '1' },
        { expression: 'true', messageExpression: '1' },
        { expression: 'variables.c == 1 && variables.zz == 2' },
        {
          expression: "params.x == 1 && namespaceObject.metadata.name == 'a'",
          messageExpression: "authorizer.path('/').check('get').reason()",
        },
      ],
      auditAnnotations: [
        { key: 'k1', valueExpression: '1' },
        { key: 'k2', valueExpression: "'a'" },
        { key: 'k3', valueExpression: 'null' },
        { key: 'k4', valueExpression: 'nope' },
      ],
    });
    expect(errors[2]).toMatch(/^spec\.variables\[0\]\.expression: compilation failed: ERROR: <input>:1:\d+: /);
    errors.splice(2, 1);
    expect(errors).toEqual([
      'spec.matchConditions[0].expression: must evaluate to bool but got int',
      "spec.matchConditions[1].expression: compilation failed: ERROR: <input>:1:1: undeclared reference to 'nope' (in container '')\n | nope\n | ^",
      "spec.variables[1].expression: compilation failed: ERROR: <input>:1:16: found no matching overload for '_+_' applied to '(bool, int)'\n | request.dryRun + 1\n | ...............^",
      'spec.validations[0].expression: must evaluate to bool but got int',
      'spec.validations[1].messageExpression: must evaluate to string but got int',
      "spec.validations[2].expression: compilation failed: ERROR: <input>:1:30: undefined field 'zz'\n | variables.c == 1 && variables.zz == 2\n | .............................^",
      "spec.validations[3].expression: compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n | params.x == 1 && namespaceObject.metadata.name == 'a'\n | ^",
      "spec.validations[3].messageExpression: compilation failed: ERROR: <input>:1:1: undeclared reference to 'authorizer' (in container '')\n | authorizer.path('/').check('get').reason()\n | ^",
      'spec.auditAnnotations[0].valueExpression: must evaluate to one of [string null_type] but got int',
      "spec.auditAnnotations[3].valueExpression: compilation failed: ERROR: <input>:1:1: undeclared reference to 'nope' (in container '')\n | nope\n | ^",
    ]);
  });

  it('takes dynamic results for none of bool and string; params with a paramKind; typed request and namespaceObject', () => {
    expect(
      errorsOf({
        paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
        variables: [{ name: 'a', expression: '1 +' }],
        matchConditions: [{ name: 'm1', expression: 'object.x' }],
        validations: [
          { expression: 'object.x', messageExpression: 'object.x' },
          { expression: 'variables.a == 1 && params.x == 1', messageExpression: 'variables.a' },
          { expression: 'request.userInfo.groups == 1 || namespaceObject.spec.nope == 1' },
        ],
        auditAnnotations: [{ key: 'k', valueExpression: 'object.zzz' }],
      }).filter((error) => !error.startsWith('spec.variables[0]')),
    ).toEqual([
      'spec.matchConditions[0].expression: must evaluate to bool but got dyn',
      'spec.validations[0].expression: must evaluate to bool but got dyn',
      'spec.validations[0].messageExpression: must evaluate to string but got dyn',
      'spec.validations[1].messageExpression: must evaluate to string but got dyn',
      "spec.validations[2].expression: compilation failed: ERROR: <input>:1:25: found no matching overload for '_==_' applied to '(list(string), int)'\n | request.userInfo.groups == 1 || namespaceObject.spec.nope == 1\n | ........................^\nERROR: <input>:1:53: undefined field 'nope'\n | request.userInfo.groups == 1 || namespaceObject.spec.nope == 1\n | ....................................................^",
      'spec.auditAnnotations[0].valueExpression: must evaluate to one of [string null_type] but got dyn',
    ]);
  });

  describe('through the API', () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startServer({
        flags: [
          '--runtime-config=admissionregistration.k8s.io/v1beta1=true',
          '--feature-gates=MutatingAdmissionPolicy=true',
        ],
      });
    });
    afterAll(async () => {
      await server?.stop();
    });

    it('answers 422 with every error, as the reference', async () => {
      const refused = await server.kubectl(['apply', '-f', '-'], {
        input: `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: tc7}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"]}
  validations:
  - expression: "request.dryRun == 'x'"
  - expression: "request.userInfo.groups == 1"
  - expression: "oldObject.data.x == 1"
  - expression: "object.data.x == 1"
  - expression: "request.kind.kind == 1"
`,
      });
      expect(refused.code).not.toBe(0);
      expect(refused.stderr.trim()).toBe(`The ValidatingAdmissionPolicy "tc7" is invalid: 
* spec.validations[0].expression: Invalid value: "request.dryRun == 'x'": compilation failed: ERROR: <input>:1:16: found no matching overload for '_==_' applied to '(bool, string)'
 | request.dryRun == 'x'
 | ...............^
* spec.validations[1].expression: Invalid value: "request.userInfo.groups == 1": compilation failed: ERROR: <input>:1:25: found no matching overload for '_==_' applied to '(list(string), int)'
 | request.userInfo.groups == 1
 | ........................^
* spec.validations[4].expression: Invalid value: "request.kind.kind == 1": compilation failed: ERROR: <input>:1:19: found no matching overload for '_==_' applied to '(string, int)'
 | request.kind.kind == 1
 | ..................^`);
    });

    // Both kinds share the reference's checks of matchConditions (named, compiled without
    // `variables`), variables (CEL identifiers, required expressions) and, for a
    // MutatingAdmissionPolicy, each mutation's expression and its type.
    it.each(refusals.cases.map((c) => [c.body.kind, c.body.metadata.name, c] as const))(
      "refuses %s %s with the reference's causes, in its order",
      async (_kind, _name, { path, body, code, reason, causes }) => {
        const answer = await server.request('POST', path, {
          body: JSON.stringify(body),
          headers: { 'content-type': 'application/json' },
        });
        const status = answer.json<{ code: number; reason: string; details: { causes: Record<string, string>[] } }>();
        expect([status.code, status.reason]).toEqual([code, reason]);
        expect(status.details.causes.map((cause) => [cause.field, cause.reason, cause.message])).toEqual(causes);
      },
    );
  });
});

describe('environment of new policies', () => {
  it('is the compatibility version 1.33: what 1.34 added (ext.Lists) is refused', () => {
    expect(errorsOf({ validations: [{ expression: '[2, 1].sort() == [1, 2]' }] })).toEqual([
      expect.stringMatching(/^spec\.validations\[0\]\.expression: compilation failed: /),
    ]);
  });
});

describe('environment of policy updates', () => {
  const SORTED = '[2, 1].sort() == [1, 2]';

  it('keeps, in the stored environment, the expressions the old policy had at the same kind of place', () => {
    const old: ValidatingAdmissionPolicySpec = {
      validations: [{ expression: SORTED, messageExpression: "[2, 1].sort().map(x, string(x)).join(',')" }],
      matchConditions: [{ name: 'm', expression: '[2, 1].sort()[0] == 1' }],
    };
    const spec: ValidatingAdmissionPolicySpec = {
      ...old,
      // A variable counts as there when a validation had its text, as the reference looks it up.
      variables: [{ name: 'v', expression: SORTED }],
      auditAnnotations: [{ key: 'a', valueExpression: "[2, 1].sort().map(x, string(x)).join(',')" }],
    };
    const fields = (preexisting = NO_PREEXISTING_POLICY_EXPRESSIONS) =>
      validatePolicyExpressions(spec, namespace, preexisting, CREATED).map((error) => error.field);
    expect(fields(preexistingPolicyExpressions(old))).toEqual(['spec.auditAnnotations[0].valueExpression']);
    expect(fields()).toEqual([
      'spec.matchConditions[0].expression',
      'spec.variables[0].expression',
      'spec.validations[0].expression',
      'spec.validations[0].messageExpression',
      'spec.auditAnnotations[0].valueExpression',
    ]);
  });

  it("keeps a MutatingAdmissionPolicy's mutations and match conditions the old policy had", () => {
    const patch = '[JSONPatch{op: "add", path: "/metadata/labels/x", value: string([2, 1].sort()[0])}]';
    const old: MutatingAdmissionPolicySpec = {
      matchConditions: [{ name: 'm', expression: '[2, 1].sort()[0] == 1' }],
      mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression: patch } }],
    };
    const at = FieldPath.root('spec').child('mutations').index(0).child('jsonPatch', 'expression');
    const fields = (preexisting: ReturnType<typeof preexistingMutatingPolicyExpressions> | undefined) => {
      const checks = policyExpressionChecks(old, namespace, preexisting);
      const mutation = checks.expression(
        'mutations',
        at,
        patch,
        ['list<JSONPatch>'],
        preexisting?.jsonPatches ?? new Set(),
      );
      return [...checks.matchConditions(), ...mutation].map((error) => error.field);
    };
    expect(fields(preexistingMutatingPolicyExpressions(old))).toEqual([]);
    expect(fields(undefined)).toEqual(['spec.matchConditions[0].expression', 'spec.mutations[0].jsonPatch.expression']);
  });

  it("keeps a webhook's match conditions the old configuration had", () => {
    const conditions = [{ name: 'm', expression: '[2, 1].sort()[0] == 1' }];
    const at = FieldPath.root('webhooks').index(0).child('matchConditions');
    expect(validateWebhookMatchConditions(conditions, at).map((error) => error.field)).toEqual([
      'webhooks[0].matchConditions[0].expression',
    ]);
    expect(validateWebhookMatchConditions(conditions, at, new Set([conditions[0].expression]))).toEqual([]);
  });
});
