/** Impersonation asked of RBAC: allowed only with `impersonate` on exactly what is taken on. */
import type { KubeObject } from '../../../api/objects';
import type { UserInfo } from '../../../api/user-info';
import { forbiddenMessage } from '../../../server/authz/forbidden';
import { impersonationAttributes } from '../../../server/authz/impersonation';
import { staticPolicySource } from '../../../server/authz/rbac/policy-source';
import { rbacAuthorizer } from '../../../server/authz/rbac/rbac-authorizer';
import { RuleResolver } from '../../../server/authz/rbac/rule-resolver';
import { serverAuthorizer } from '../../../server/authz/server-authorizer';

const policy: KubeObject[] = [
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'impersonator' },
    rules: [
      { verbs: ['impersonate'], apiGroups: [''], resources: ['users'], resourceNames: ['jane'] },
      { verbs: ['impersonate'], apiGroups: [''], resources: ['groups'], resourceNames: ['dev'] },
      {
        verbs: ['impersonate'],
        apiGroups: ['authentication.k8s.io'],
        resources: ['userextras/scopes'],
        resourceNames: ['view'],
      },
    ],
  },
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'ops' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'impersonator' },
    subjects: [{ kind: 'User', name: 'ops' }],
  },
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: 'sa', namespace: 'ci' },
    rules: [{ verbs: ['impersonate'], apiGroups: [''], resources: ['serviceaccounts'], resourceNames: ['builder'] }],
  },
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'ops-sa', namespace: 'ci' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'sa' },
    subjects: [{ kind: 'User', name: 'ops' }],
  },
];
const authorizer = serverAuthorizer([rbacAuthorizer(new RuleResolver(staticPolicySource(policy)))]);
const ops: UserInfo = { name: 'ops', groups: ['system:authenticated'] };
const dev: UserInfo = { name: 'dev1', groups: ['system:authenticated'] };

describe('impersonation through the authorizer', () => {
  it.each([
    { who: ops, part: { kind: 'user', name: 'jane' } as const, decision: 'allow' },
    { who: ops, part: { kind: 'user', name: 'admin' } as const, decision: 'no-opinion' },
    { who: ops, part: { kind: 'group', name: 'dev' } as const, decision: 'allow' },
    { who: ops, part: { kind: 'group', name: 'system:masters' } as const, decision: 'no-opinion' },
    { who: ops, part: { kind: 'extra', key: 'scopes', value: 'view' } as const, decision: 'allow' },
    { who: ops, part: { kind: 'extra', key: 'scopes', value: 'admin' } as const, decision: 'no-opinion' },
    { who: ops, part: { kind: 'user', name: 'system:serviceaccount:ci:builder' } as const, decision: 'allow' },
    { who: ops, part: { kind: 'user', name: 'system:serviceaccount:prod:builder' } as const, decision: 'no-opinion' },
    { who: dev, part: { kind: 'user', name: 'jane' } as const, decision: 'no-opinion' },
  ])('$who.name impersonating $part.kind $part.name$part.value → $decision', async ({ who, part, decision }) => {
    expect((await authorizer.authorize(impersonationAttributes(who, part))).decision).toBe(decision);
  });

  it('a refusal reads as the reference words it', () => {
    expect(forbiddenMessage(impersonationAttributes(dev, { kind: 'user', name: 'jane' }), '')).toBe(
      'User "dev1" cannot impersonate resource "users" in API group "" at the cluster scope',
    );
  });
});
