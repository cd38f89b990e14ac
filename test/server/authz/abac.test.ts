/** The ABAC mode on policy files written as operators write them. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { abacAuthorizer, readPolicyFile } from '../../../server/authz/abac';
import { attributesFrom } from '../../../server/authz/types';
import type { UserInfo } from '../../../api/user-info';
import { resolveRequestInfo } from '../../../server/request/request-info';

const POLICY = [
  '# comments and blank lines are skipped',
  '',
  '{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "alice", "namespace": "*", "resource": "*", "apiGroup": "*"}}',
  '{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "bob", "namespace": "projectCaribou", "resource": "pods", "apiGroup": "", "readonly": true}}',
  '{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"group": "system:authenticated", "readonly": true, "nonResourcePath": "/apis/*"}}',
  '{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "*", "readonly": true, "nonResourcePath": "/version"}}',
  '{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "system:serviceaccount:kube-system:default", "namespace": "*", "resource": "*", "apiGroup": "*"}}',
  '{"user": "carol", "resource": "events"}',
].join('\n');

const alice: UserInfo = { name: 'alice', groups: ['system:authenticated'] };
const bob: UserInfo = { name: 'bob', groups: ['system:authenticated'] };
const carol: UserInfo = { name: 'carol', groups: ['system:authenticated'] };
const anonymous: UserInfo = { name: 'system:anonymous', groups: ['system:unauthenticated'] };

describe('ABAC', () => {
  let dir: string;
  let authorizer: ReturnType<typeof abacAuthorizer>;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'capstan-abac-'));
    writeFileSync(join(dir, 'policy.jsonl'), POLICY);
    authorizer = abacAuthorizer(readPolicyFile(join(dir, 'policy.jsonl')));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const decide = (user: UserInfo, method: string, path: string) =>
    authorizer.authorize(attributesFrom(resolveRequestInfo({ method, path, query: '' }), user));

  it.each([
    { user: alice, method: 'DELETE', path: '/apis/apps/v1/namespaces/x/deployments/d', decision: 'allow' },
    { user: bob, method: 'GET', path: '/api/v1/namespaces/projectCaribou/pods', decision: 'allow' },
    { user: bob, method: 'POST', path: '/api/v1/namespaces/projectCaribou/pods', decision: 'no-opinion' },
    { user: bob, method: 'GET', path: '/api/v1/namespaces/other/pods', decision: 'no-opinion' },
    { user: bob, method: 'GET', path: '/apis/apps/v1', decision: 'allow' },
    { user: bob, method: 'POST', path: '/apis/apps/v1', decision: 'no-opinion' },
    { user: anonymous, method: 'GET', path: '/apis/apps/v1', decision: 'no-opinion' },
    // `*` user means every authenticated user, not anonymous ones.
    { user: bob, method: 'GET', path: '/version', decision: 'allow' },
    { user: anonymous, method: 'GET', path: '/version', decision: 'no-opinion' },
    // v0 line: any namespace and group, and no non-resource paths since it names a resource.
    { user: carol, method: 'POST', path: '/api/v1/namespaces/a/events', decision: 'allow' },
    { user: carol, method: 'GET', path: '/api/v1/namespaces/a/pods', decision: 'no-opinion' },
    { user: carol, method: 'GET', path: '/healthz', decision: 'no-opinion' },
  ])('$user.name $method $path → $decision', ({ user, method, path, decision }) => {
    const result = decide(user, method, path);
    expect(result).toEqual(
      decision === 'allow' ? { decision, reason: '' } : { decision, reason: 'No policy matched.' },
    );
  });

  it('lists the rules a user holds in a namespace', async () => {
    const rules = await authorizer.rulesFor!(bob, 'projectCaribou');
    expect(rules.resourceRules).toEqual([{ verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods'] }]);
    expect(rules.nonResourceRules).toEqual([
      { verbs: ['get', 'list', 'watch'], nonResourceURLs: ['/apis/*'] },
      { verbs: ['get', 'list', 'watch'], nonResourceURLs: ['/version'] },
    ]);
  });

  it('refuses a file with a bad line, naming it', () => {
    writeFileSync(
      join(dir, 'bad.jsonl'),
      `${POLICY}\n{"apiVersion": "abac.authorization.kubernetes.io/v1", "kind": "Policy", "spec": {}}\n`,
    );
    expect(() => readPolicyFile(join(dir, 'bad.jsonl'))).toThrow(
      /bad\.jsonl:9: unable to read the ABAC policy: unknown apiVersion/,
    );
    writeFileSync(join(dir, 'broken.jsonl'), '{"apiVersion": \n');
    expect(() => readPolicyFile(join(dir, 'broken.jsonl'))).toThrow(/broken\.jsonl:1:/);
  });
});
