/**
 * A user who may write admission policies but not read their params is refused a policy whose
 * paramKind, or a binding whose paramRef, would let it read them: what kube-apiserver 1.34.4
 * answered to the same writes by the same user (alice, impersonated, with a ClusterRole on the
 * admissionregistration group only) is in fixtures/policy-param-access.json. A policy's update
 * that keeps its paramKind passes; a binding's update is checked again even when its paramRef
 * is unchanged, as in the reference. A member of system:masters is not asked.
 */
import type { KubeObject } from '../../../api/objects';
import { inProcessServerForSuite } from '../../helpers/in-process-server';
import recorded from './fixtures/policy-param-access.json';

const GROUP = 'admissionregistration.k8s.io';
const RULE = { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] };
const BY_NAME = { name: 'p', namespace: 'default', parameterNotFoundAction: 'Deny' };

interface Answer {
  readonly code: number;
  readonly message: string;
}

const pathOf = (object: { apiVersion: string; kind: string }) => {
  const version = object.apiVersion.split('/')[1];
  const plural = object.kind.endsWith('y')
    ? `${object.kind.toLowerCase().slice(0, -1)}ies`
    : `${object.kind.toLowerCase()}s`;
  return `/apis/${GROUP}/${version}/${plural}`;
};

async function send(
  method: string,
  path: string,
  object: object,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const answer = await server.request(method, path, {
    body: JSON.stringify(object),
    headers: { 'Content-Type': 'application/json', ...headers },
  });
  return { code: answer.status, message: answer.status < 300 ? '' : answer.json<{ message: string }>().message };
}

const asAlice = { 'Impersonate-User': 'alice' };

const validatingPolicy = (name: string, paramKind?: object) => ({
  apiVersion: `${GROUP}/v1`,
  kind: 'ValidatingAdmissionPolicy',
  metadata: { name },
  spec: { paramKind, matchConstraints: { resourceRules: [RULE] }, validations: [{ expression: 'true' }] },
});

const server = inProcessServerForSuite([
  '--runtime-config=admissionregistration.k8s.io/v1beta1=true',
  '--feature-gates=MutatingAdmissionPolicy=true',
]);

beforeAll(async () => {
  const rbac = '/apis/rbac.authorization.k8s.io/v1';
  const setup: [string, object][] = [
    [
      `${rbac}/clusterroles`,
      { metadata: { name: 'policy-writer' }, rules: [{ apiGroups: [GROUP], resources: ['*'], verbs: ['*'] }] },
    ],
    [
      `${rbac}/clusterrolebindings`,
      {
        metadata: { name: 'policy-writer' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'policy-writer' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' }],
      },
    ],
    [pathOf(validatingPolicy('')), validatingPolicy('with-param', { apiVersion: 'v1', kind: 'ConfigMap' })],
    [pathOf(validatingPolicy('')), validatingPolicy('unresolvable', { apiVersion: 'example.com/v1', kind: 'Foo' })],
    [pathOf(validatingPolicy('')), validatingPolicy('no-param')],
    [
      `/apis/${GROUP}/v1beta1/mutatingadmissionpolicies`,
      {
        metadata: { name: 'with-param' },
        spec: {
          paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
          matchConstraints: { resourceRules: [RULE] },
          reinvocationPolicy: 'Never',
          mutations: [
            {
              patchType: 'JSONPatch',
              jsonPatch: { expression: '[JSONPatch{op: "add", path: "/metadata/labels/a", value: "b"}]' },
            },
          ],
        },
      },
    ],
  ];
  for (const [path, object] of setup) expect(await send('POST', path, object)).toEqual({ code: 201, message: '' });
}, 60_000);

test.each(Object.entries(recorded.creates))('create %s', async (_id, { object, code, message }) => {
  expect(await send('POST', pathOf(object), object, asAlice)).toEqual({ code, message });
});

async function stored(path: string): Promise<KubeObject> {
  return (await server.request('GET', path)).json<KubeObject>();
}

test("a policy's update is checked when it changes the paramKind", async () => {
  const path = `/apis/${GROUP}/v1/validatingadmissionpolicies/with-param`;
  const policy = await stored(path);
  policy.metadata.labels = { changed: 'yes' };
  expect(await send('PUT', path, policy, asAlice)).toEqual(recorded.updates['vap-same-param-kind']);
  const again = await stored(path);
  (again.spec as { paramKind: object }).paramKind = { apiVersion: 'v1', kind: 'Secret' };
  expect(await send('PUT', path, again, asAlice)).toEqual(recorded.updates['vap-other-param-kind']);
});

test("a binding's update is checked even when its paramRef is the same", async () => {
  const binding = {
    apiVersion: `${GROUP}/v1`,
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name: 'admin-binding' },
    spec: { policyName: 'with-param', validationActions: ['Deny'], paramRef: BY_NAME },
  };
  expect((await send('POST', pathOf(binding), binding)).code).toBe(201);
  const path = `${pathOf(binding)}/admin-binding`;
  const current = await stored(path);
  current.metadata.labels = { changed: 'yes' };
  expect(await send('PUT', path, current, asAlice)).toEqual(recorded.updates['vapb-same-param-ref']);
  (current.spec as { paramRef: object }).paramRef = { ...BY_NAME, name: 'q' };
  expect(await send('PUT', path, current, asAlice)).toEqual(recorded.updates['vapb-other-param-ref']);
});

test('a member of system:masters is not asked', async () => {
  const policy = validatingPolicy('by-masters', { apiVersion: 'v1', kind: 'ConfigMap' });
  const headers = { 'Impersonate-User': 'bob', 'Impersonate-Group': 'system:masters' };
  expect(await send('POST', pathOf(policy), policy, headers)).toEqual({ code: 201, message: '' });
});
