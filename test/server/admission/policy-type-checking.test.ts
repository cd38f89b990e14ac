/**
 * Type-checking of ValidatingAdmissionPolicies against the kinds they match, with the built-in
 * registry and schemas: the warnings are those kube-controller-manager v1.34.4's
 * validatingadmissionpolicy-status controller wrote for the same policies (running against
 * kube-apiserver v1.34.4), text for text; through kubectl, the server's controller writes
 * them into status.typeChecking with status.observedGeneration, once per generation.
 */
import { kindOfResource, schemaOfKind } from '../../../server/validation/admission-cel/kind-schemas';
import { typeCheckPolicy, typesToCheck, type KindResolver } from '../../../server/admission/policy/type-checking';
import type { ValidatingAdmissionPolicySpec } from '../../../api/admissionregistration';
import { asCRD } from '../../../server/apiextensions/crd-types';
import { customResourceType } from '../../../server/apiextensions/custom-resource-type';
import { schemaData } from '../../../server/schema/definitions';
import { startServer, type TestServer } from '../../helpers/server';
import { waitFor } from '../../helpers/wait-for';
import { builtinRegistry } from '../../../server/builtin-types';

const registry = builtinRegistry();
const definitions = schemaData().definitions;
const resolver: KindResolver = {
  kindOfResource: (resource) => kindOfResource(registry, definitions, resource),
  schemaOfKind: (gvk) => schemaOfKind(registry, definitions, gvk),
};

const rule = (apiGroups: string[], apiVersions: string[], resources: string[]) => ({
  apiGroups,
  apiVersions,
  resources,
  operations: ['CREATE'],
});

describe('ValidatingAdmissionPolicy type checking', () => {
  it('warns per kind, kinds sorted, with cel-go renderings of the errors', () => {
    const spec: ValidatingAdmissionPolicySpec = {
      matchConstraints: {
        resourceRules: [rule(['apps'], ['v1'], ['deployments']), rule([''], ['v1'], ['configmaps'])],
      },
      validations: [
        { expression: 'object.spec.replicas > 1' },
        { expression: "object.foo == 'x'", messageExpression: "object.bar + 'x'" },
        { expression: 'object.metadata.name == 1' },
      ],
      variables: [{ name: 'v', expression: 'object.spec.nope' }],
      matchConditions: [{ name: 'm', expression: "object.spec.x == 'y'" }],
    };
    expect(typeCheckPolicy(spec, resolver)).toEqual([
      {
        fieldRef: 'spec.validations[0].expression',
        warning:
          "/v1, Kind=ConfigMap: ERROR: <input>:1:7: undefined field 'spec'\n | object.spec.replicas > 1\n | ......^\n",
      },
      {
        fieldRef: 'spec.validations[1].expression',
        warning:
          "/v1, Kind=ConfigMap: ERROR: <input>:1:7: undefined field 'foo'\n | object.foo == 'x'\n | ......^\n\napps/v1, Kind=Deployment: ERROR: <input>:1:7: undefined field 'foo'\n | object.foo == 'x'\n | ......^\n",
      },
      {
        fieldRef: 'spec.validations[1].messageExpression',
        warning:
          "/v1, Kind=ConfigMap: ERROR: <input>:1:7: undefined field 'bar'\n | object.bar + 'x'\n | ......^\n\napps/v1, Kind=Deployment: ERROR: <input>:1:7: undefined field 'bar'\n | object.bar + 'x'\n | ......^\n",
      },
      {
        fieldRef: 'spec.validations[2].expression',
        warning:
          "/v1, Kind=ConfigMap: ERROR: <input>:1:22: found no matching overload for '_==_' applied to '(string, int)'\n | object.metadata.name == 1\n | .....................^\n\napps/v1, Kind=Deployment: ERROR: <input>:1:22: found no matching overload for '_==_' applied to '(string, int)'\n | object.metadata.name == 1\n | .....................^\n",
      },
    ]);
  });

  it('types variables by their expressions, and leaves a variable that does not check dynamic', () => {
    const spec: ValidatingAdmissionPolicySpec = {
      matchConstraints: {
        resourceRules: [
          rule(['batch'], ['v1'], ['jobs', 'cronjobs']),
          rule(['apps'], ['v1'], ['deployments/scale', 'replicasets']),
        ],
      },
      variables: [
        { name: 'r', expression: 'object.spec.replicas' },
        { name: 's', expression: 'object.metadata.name' },
      ],
      validations: [
        { expression: 'variables.s == 1' },
        { expression: "variables.r == 'x'" },
        { expression: 'object.spec.parallelism > 0' },
      ],
    };
    expect(typeCheckPolicy(spec, resolver)).toEqual([
      {
        fieldRef: 'spec.validations[0].expression',
        warning:
          "apps/v1, Kind=ReplicaSet: ERROR: <input>:1:13: found no matching overload for '_==_' applied to '(string, int)'\n | variables.s == 1\n | ............^\n\nbatch/v1, Kind=CronJob: ERROR: <input>:1:13: found no matching overload for '_==_' applied to '(string, int)'\n | variables.s == 1\n | ............^\n\nbatch/v1, Kind=Job: ERROR: <input>:1:13: found no matching overload for '_==_' applied to '(string, int)'\n | variables.s == 1\n | ............^\n",
      },
      {
        fieldRef: 'spec.validations[1].expression',
        warning:
          "apps/v1, Kind=ReplicaSet: ERROR: <input>:1:13: found no matching overload for '_==_' applied to '(int, string)'\n | variables.r == 'x'\n | ............^\n",
      },
      {
        fieldRef: 'spec.validations[2].expression',
        warning:
          "apps/v1, Kind=ReplicaSet: ERROR: <input>:1:12: undefined field 'parallelism'\n | object.spec.parallelism > 0\n | ...........^\n\nbatch/v1, Kind=CronJob: ERROR: <input>:1:12: undefined field 'parallelism'\n | object.spec.parallelism > 0\n | ...........^\n",
      },
    ]);
  });

  it('checks nothing for wildcard groups, versions or resources, and nothing that checks clean', () => {
    const wrong = [{ expression: 'object.foo == 1' }];
    expect(
      typeCheckPolicy(
        { matchConstraints: { resourceRules: [rule(['apps'], ['*'], ['deployments'])] }, validations: wrong },
        resolver,
      ),
    ).toEqual([]);
    expect(
      typeCheckPolicy(
        {
          matchConstraints: { resourceRules: [rule(['*'], ['v1'], ['deployments']), rule(['apps'], ['v1'], ['*'])] },
          validations: wrong,
        },
        resolver,
      ),
    ).toEqual([]);
    expect(
      typeCheckPolicy(
        {
          matchConstraints: { resourceRules: [rule(['apps'], ['v1'], ['deployments'])] },
          validations: [{ expression: 'object.spec.replicas > 1' }],
        },
        resolver,
      ),
    ).toEqual([]);
  });

  it("types a custom resource by its schema and params by the paramKind's", () => {
    const crd = asCRD({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        names: { kind: 'Widget', plural: 'widgets', singular: 'widget', listKind: 'WidgetList' },
        scope: 'Namespaced',
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: {
                    type: 'object',
                    properties: {
                      size: { type: 'integer' },
                      color: { type: 'string' },
                      parts: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
                    },
                  },
                },
              },
            },
          },
        ],
      },
    });
    const withWidgets = builtinRegistry();
    withWidgets.add(customResourceType(crd));
    const widgetResolver: KindResolver = {
      kindOfResource: (resource) => kindOfResource(withWidgets, definitions, resource),
      schemaOfKind: (gvk) => schemaOfKind(withWidgets, definitions, gvk),
    };
    const spec: ValidatingAdmissionPolicySpec = {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      matchConstraints: { resourceRules: [rule(['example.com'], ['v1'], ['widgets'])] },
      validations: [
        { expression: 'object.spec.size == params.data.max' },
        { expression: 'object.spec.color == 1' },
        { expression: "object.spec.parts.all(p, p.nam == 'x')" },
        { expression: 'params.spec.x == 1' },
      ],
    };
    expect(typeCheckPolicy(spec, widgetResolver)).toEqual([
      {
        fieldRef: 'spec.validations[0].expression',
        warning:
          "example.com/v1, Kind=Widget: ERROR: <input>:1:18: found no matching overload for '_==_' applied to '(int, string)'\n | object.spec.size == params.data.max\n | .................^\n",
      },
      {
        fieldRef: 'spec.validations[1].expression',
        warning:
          "example.com/v1, Kind=Widget: ERROR: <input>:1:19: found no matching overload for '_==_' applied to '(string, int)'\n | object.spec.color == 1\n | ..................^\n",
      },
      {
        fieldRef: 'spec.validations[2].expression',
        warning:
          "example.com/v1, Kind=Widget: ERROR: <input>:1:27: undefined field 'nam'\n | object.spec.parts.all(p, p.nam == 'x')\n | ..........................^\n",
      },
      {
        fieldRef: 'spec.validations[3].expression',
        warning:
          "example.com/v1, Kind=Widget: ERROR: <input>:1:7: undefined field 'spec'\n | params.spec.x == 1\n | ......^\n",
      },
    ]);
  });

  it('checks at most ten kinds', () => {
    const resources = [
      'configmaps',
      'secrets',
      'pods',
      'services',
      'endpoints',
      'events',
      'limitranges',
      'namespaces',
      'nodes',
      'persistentvolumes',
      'persistentvolumeclaims',
      'podtemplates',
    ];
    expect(
      typesToCheck({ matchConstraints: { resourceRules: [rule([''], ['v1'], resources)] } }, resolver),
    ).toHaveLength(10);
  });
});

describe('status.typeChecking written by the server', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer();
  });

  afterAll(async () => {
    await server?.stop();
  });

  async function statusAt(generation: number): Promise<unknown> {
    return waitFor(
      `status.observedGeneration ${generation}`,
      async () => {
        const read = await server.request(
          'GET',
          '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/checked',
        );
        const policy = read.json<{ metadata: { generation: number }; status?: { observedGeneration?: number } }>();
        return policy.status?.observedGeneration === generation ? policy.status : undefined;
      },
      10_000,
      100,
    );
  }

  const setValidation = (expression: string) =>
    server.kubectl([
      'patch',
      'validatingadmissionpolicy',
      'checked',
      '--type=merge',
      '-p',
      JSON.stringify({ spec: { validations: [{ expression }] } }),
    ]);

  it('follows each generation as the reference does', async () => {
    const created = await server.kubectl(['apply', '-f', '-'], {
      input: `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: checked}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["deployments"]}
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"]}
  validations:
  - expression: "object.spec.replicas > 1"
`,
    });
    expect(created.code).toBe(0);
    expect(await statusAt(1)).toEqual({
      observedGeneration: 1,
      typeChecking: {
        expressionWarnings: [
          {
            fieldRef: 'spec.validations[0].expression',
            warning:
              "/v1, Kind=ConfigMap: ERROR: <input>:1:7: undefined field 'spec'\n | object.spec.replicas > 1\n | ......^\n",
          },
        ],
      },
    });
    // Warnings gone: the reference's apply removes typeChecking; the next clean one leaves it empty.
    expect((await setValidation('object.metadata.name != "a"')).code).toBe(0);
    expect(await statusAt(2)).toEqual({ observedGeneration: 2 });
    expect((await setValidation('object.metadata.name != "b"')).code).toBe(0);
    expect(await statusAt(3)).toEqual({ observedGeneration: 3, typeChecking: {} });
    // Applied by the reference controller's manager, on the status subresource.
    const read = await server.request(
      'GET',
      '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/checked',
    );
    const entries = read.json<{ metadata: { managedFields: Array<Record<string, unknown>> } }>().metadata.managedFields;
    expect(entries.find((entry) => entry.manager === 'validatingadmissionpolicy-status')).toMatchObject({
      operation: 'Apply',
      subresource: 'status',
      fieldsV1: { 'f:status': { 'f:observedGeneration': {}, 'f:typeChecking': {} } },
    });
  });
});
