/**
 * The audit policy: the file is checked as the reference checks it (messages recorded from
 * kube-apiserver 1.34 with the same files), and a request's level is the first matching rule's.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadAuditPolicy, type AuditPolicy } from '../../../../server/audit/record/policy';
import { evaluatePolicy } from '../../../../server/audit/record/policy-rules';
import type { RequestInfo } from '../../../../server/request/request-info';
import type { UserInfo } from '../../../../api/user-info';

let dir: string;
beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'audit-policy-'))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function policyFile(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('loading', () => {
  test.each([
    [
      'v1beta1 is no longer registered',
      'apiVersion: audit.k8s.io/v1beta1\nkind: Policy\nrules:\n- level: Metadata\n',
      'failed decoding: no kind "Policy" is registered for version "audit.k8s.io/v1beta1"',
    ],
    ['no rules', 'apiVersion: audit.k8s.io/v1\nkind: Policy\n', 'loaded illegal policy with 0 rules'],
    [
      'an unknown level and stage, all problems at once',
      'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Bogus\n- level: Metadata\n  omitStages: ["Nope"]\n',
      '[rules[0].level: Unsupported value: "Bogus": supported values: "None", "Metadata", "Request", "RequestResponse", rules[1].omitStages[0]: Invalid value: "Nope": allowed stages are RequestReceived,ResponseStarted,ResponseComplete,Panic]',
    ],
    [
      'a URL without its slash',
      'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  nonResourceURLs: ["healthz"]\n',
      `rules[0].nonResourceURLs[0]: Invalid value: "healthz": non-resource URL rules must begin with a '/' character`,
    ],
    [
      'a wildcard inside a URL',
      'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  nonResourceURLs: ["/a*/b"]\n',
      `rules[0].nonResourceURLs[0]: Invalid value: "/a*/b": non-resource URL wildcards '*' must be the final character of the rule`,
    ],
    [
      'resources and URLs in one rule',
      'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  nonResourceURLs: ["/x"]\n  namespaces: ["a"]\n',
      'rules[0].nonResourceURLs: Invalid value: ["/x"]: rules cannot apply to both regular resources and non-resource URLs',
    ],
    [
      'names without resources',
      'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  resources: [{group: "", resourceNames: ["a"]}]\n',
      'rules[0].resources[0].resourceNames: Invalid value: ["a"]: using resourceNames requires at least one resource',
    ],
  ])('%s', (_name, text, message) => {
    const path = policyFile('bad.yaml', text);
    expect(() => loadAuditPolicy(path)).toThrow(`loading audit policy file: ${message}: from file ${path}`);
  });

  test('a missing file names the file', () => {
    expect(() => loadAuditPolicy(join(dir, 'absent.yaml'))).toThrow(
      /^loading audit policy file: failed to read file: .*absent\.yaml/,
    );
  });

  test('JSON is read too, and the policy omitStages join each rule', () => {
    const path = policyFile(
      'p.json',
      JSON.stringify({
        apiVersion: 'audit.k8s.io/v1',
        kind: 'Policy',
        omitStages: ['RequestReceived'],
        rules: [{ level: 'Metadata', omitStages: ['Panic'] }],
      }),
    );
    expect(loadAuditPolicy(path).rules[0].omitStages).toEqual(['RequestReceived', 'Panic']);
  });
});

describe('evaluation', () => {
  let policy: AuditPolicy;
  beforeAll(() => {
    policy = loadAuditPolicy(
      policyFile(
        'rules.yaml',
        `apiVersion: audit.k8s.io/v1
kind: Policy
omitManagedFields: true
rules:
- level: None
  users: ["system:kube-proxy"]
- level: None
  nonResourceURLs: ["/healthz*", "/version"]
- level: RequestResponse
  resources: [{group: "", resources: ["pods/log", "*/status"]}]
- level: Request
  verbs: ["create"]
  userGroups: ["devs"]
  namespaces: ["team"]
  omitManagedFields: false
- level: Metadata
  resources: [{group: "", resources: ["secrets"], resourceNames: ["token"]}]
- level: RequestResponse
  resources: [{group: "apps", resources: ["deployments/*"]}]
- level: Request
  resources: [{group: "rbac.authorization.k8s.io"}]
  omitStages: ["RequestReceived"]
`,
      ),
    );
  });

  const alice: UserInfo = { name: 'alice', groups: ['devs', 'system:authenticated'] };
  const info = (fields: Partial<RequestInfo>): RequestInfo => ({
    isResourceRequest: true,
    path: '/',
    verb: 'get',
    apiPrefix: 'api',
    apiGroup: '',
    apiVersion: 'v1',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
    parts: [],
    ...fields,
  });

  test.each<[string, UserInfo, Partial<RequestInfo>, string]>([
    ['a listed user, whatever the request', { name: 'system:kube-proxy', groups: [] }, { resource: 'pods' }, 'None'],
    ['a URL by prefix', alice, { isResourceRequest: false, path: '/healthz/etcd', apiPrefix: '' }, 'None'],
    ['an exact URL', alice, { isResourceRequest: false, path: '/version', apiPrefix: '' }, 'None'],
    [
      'a URL no rule names: the last rules are for resources, so nothing matches',
      alice,
      { isResourceRequest: false, path: '/metrics', apiPrefix: '' },
      'None',
    ],
    ['a subresource by name', alice, { resource: 'pods', subresource: 'log', namespace: 'a' }, 'RequestResponse'],
    ['any resource`s status', alice, { resource: 'nodes', subresource: 'status' }, 'RequestResponse'],
    ['but not the resource itself', alice, { resource: 'pods', namespace: 'a' }, 'None'],
    [
      'verb, group and namespace together',
      alice,
      { verb: 'create', resource: 'configmaps', namespace: 'team' },
      'Request',
    ],
    ['another namespace does not match', alice, { verb: 'create', resource: 'configmaps', namespace: 'other' }, 'None'],
    ['a resource name', alice, { resource: 'secrets', name: 'token', namespace: 'a' }, 'Metadata'],
    ['another name does not match', alice, { resource: 'secrets', name: 'other', namespace: 'a' }, 'None'],
    [
      'resource/* takes every subresource',
      alice,
      { apiGroup: 'apps', resource: 'deployments', subresource: 'scale', namespace: 'a' },
      'RequestResponse',
    ],
    ['a whole group', alice, { apiGroup: 'rbac.authorization.k8s.io', resource: 'roles', namespace: 'a' }, 'Request'],
  ])('%s', (_name, user, fields, level) => {
    expect(evaluatePolicy(policy, user, info(fields)).level).toBe(level);
  });

  test('omitManagedFields: the rule`s own, else the policy`s; omitStages: the rule`s', () => {
    expect(
      evaluatePolicy(policy, alice, info({ verb: 'create', resource: 'configmaps', namespace: 'team' }))
        .omitManagedFields,
    ).toBe(false);
    const rbac = evaluatePolicy(policy, alice, info({ apiGroup: 'rbac.authorization.k8s.io', resource: 'roles' }));
    expect(rbac).toEqual({ level: 'Request', omitStages: ['RequestReceived'], omitManagedFields: true });
  });
});
