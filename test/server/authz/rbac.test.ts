/**
 * RBAC's pieces on plain objects: rule matching, rule resolution through each kind of binding,
 * the authorizer's reasons, coverage for escalation checks, aggregation, and the bootstrap
 * policy's content.
 */
import type { KubeObject } from '../../../api/objects';
import type { UserInfo } from '../../../api/user-info';
import { aggregatedRules } from '../../../server/controllers/clusterrole-aggregation';
import { bootstrapPolicy, type BootstrapPolicy } from '../../../server/authz/rbac/bootstrap-policy';
import { featureGateReader } from '../../../server/config/feature-enabled';
import { uncoveredRules } from '../../../server/authz/rbac/covers';
import { checkBindingWrite, checkRoleWrite } from '../../../server/authz/rbac/escalation';
import { staticPolicySource } from '../../../server/authz/rbac/policy-source';
import { rbacAuthorizer } from '../../../server/authz/rbac/rbac-authorizer';
import { ruleAllows } from '../../../server/authz/rbac/rule-matching';
import { RuleResolver } from '../../../server/authz/rbac/rule-resolver';
import { serverAuthorizer } from '../../../server/authz/server-authorizer';
import { attributesFrom, type Attributes } from '../../../server/authz/types';
import { resolveRequestInfo } from '../../../server/request/request-info';

const alice: UserInfo = { name: 'alice', groups: ['dev', 'system:authenticated'] };
const robot: UserInfo = {
  name: 'system:serviceaccount:team:robot',
  groups: ['system:serviceaccounts', 'system:serviceaccounts:team', 'system:authenticated'],
};
const anonymous: UserInfo = { name: 'system:anonymous', groups: ['system:unauthenticated'] };

function request(user: UserInfo, method: string, path: string, query = ''): Attributes {
  return attributesFrom(resolveRequestInfo({ method, path, query }), user);
}

const rbac = (kind: string, name: string, rest: Record<string, unknown>, namespace?: string): KubeObject => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind,
  metadata: { name, ...(namespace ? { namespace } : {}) },
  ...rest,
});

describe('rule matching', () => {
  it.each([
    {
      rule: { verbs: ['get'], apiGroups: [''], resources: ['pods'] },
      method: 'GET',
      path: '/api/v1/namespaces/a/pods/p',
      allowed: true,
    },
    {
      rule: { verbs: ['get'], apiGroups: [''], resources: ['pods'] },
      method: 'GET',
      path: '/api/v1/namespaces/a/pods',
      allowed: false,
    },
    {
      rule: { verbs: ['*'], apiGroups: ['apps'], resources: ['*'] },
      method: 'DELETE',
      path: '/apis/apps/v1/namespaces/a/deployments/d',
      allowed: true,
    },
    {
      rule: { verbs: ['*'], apiGroups: ['apps'], resources: ['*'] },
      method: 'DELETE',
      path: '/api/v1/namespaces/a/pods/d',
      allowed: false,
    },
    {
      rule: { verbs: ['get'], apiGroups: [''], resources: ['pods'] },
      method: 'GET',
      path: '/api/v1/namespaces/a/pods/p/log',
      allowed: false,
    },
    {
      rule: { verbs: ['get'], apiGroups: [''], resources: ['pods/log'] },
      method: 'GET',
      path: '/api/v1/namespaces/a/pods/p/log',
      allowed: true,
    },
    {
      rule: { verbs: ['update'], apiGroups: ['*'], resources: ['*/scale'] },
      method: 'PUT',
      path: '/apis/apps/v1/namespaces/a/deployments/d/scale',
      allowed: true,
    },
    {
      rule: { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['one'] },
      method: 'GET',
      path: '/api/v1/namespaces/a/configmaps/one',
      allowed: true,
    },
    {
      rule: { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['one'] },
      method: 'GET',
      path: '/api/v1/namespaces/a/configmaps/two',
      allowed: false,
    },
    {
      rule: { verbs: ['create'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['one'] },
      method: 'POST',
      path: '/api/v1/namespaces/a/configmaps',
      allowed: false,
    },
    {
      rule: { verbs: ['list'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['one'] },
      method: 'GET',
      path: '/api/v1/namespaces/a/configmaps',
      query: 'fieldSelector=metadata.name%3Done',
      allowed: true,
    },
    { rule: { verbs: ['get'], nonResourceURLs: ['/healthz'] }, method: 'GET', path: '/healthz', allowed: true },
    { rule: { verbs: ['get'], nonResourceURLs: ['/healthz'] }, method: 'GET', path: '/healthz/etcd', allowed: false },
    { rule: { verbs: ['get'], nonResourceURLs: ['/healthz/*'] }, method: 'GET', path: '/healthz/etcd', allowed: true },
    {
      rule: { verbs: ['get'], nonResourceURLs: ['/healthz/*'] },
      method: 'POST',
      path: '/healthz/etcd',
      allowed: false,
    },
  ])('rule %# vs $method $path → $allowed', ({ rule, method, path, query, allowed }) => {
    expect(ruleAllows(request(alice, method, path, query), rule)).toBe(allowed);
  });
});

describe('rule resolution and the RBAC authorizer', () => {
  const objects = [
    rbac(
      'Role',
      'cm-reader',
      { rules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'] }] },
      'team',
    ),
    rbac(
      'RoleBinding',
      'alice-cm',
      {
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm-reader' },
        subjects: [{ kind: 'User', name: 'alice' }],
      },
      'team',
    ),
    rbac('ClusterRole', 'node-reader', { rules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['nodes'] }] }),
    rbac('ClusterRoleBinding', 'dev-nodes', {
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'node-reader' },
      subjects: [{ kind: 'Group', name: 'dev' }],
    }),
    rbac('ClusterRole', 'pod-reader', { rules: [{ verbs: ['list'], apiGroups: [''], resources: ['pods'] }] }),
    // A RoleBinding to a ClusterRole grants it in its namespace only; the account's namespace defaults to the binding's.
    rbac(
      'RoleBinding',
      'robot-pods',
      {
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'pod-reader' },
        subjects: [{ kind: 'ServiceAccount', name: 'robot' }],
      },
      'team',
    ),
    rbac(
      'RoleBinding',
      'dangling',
      {
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'gone' },
        subjects: [{ kind: 'User', name: 'alice' }],
      },
      'other',
    ),
  ];
  const resolver = new RuleResolver(staticPolicySource(objects));
  const authorizer = rbacAuthorizer(resolver);

  it('allows through a RoleBinding to a Role, in its namespace only', () => {
    expect(authorizer.authorize(request(alice, 'GET', '/api/v1/namespaces/team/configmaps'))).toEqual({
      decision: 'allow',
      reason: 'RBAC: allowed by RoleBinding "alice-cm/team" of Role "cm-reader" to User "alice"',
    });
    expect(authorizer.authorize(request(alice, 'GET', '/api/v1/namespaces/default/configmaps')).decision).toBe(
      'no-opinion',
    );
    expect(authorizer.authorize(request(alice, 'GET', '/api/v1/configmaps')).decision).toBe('no-opinion');
  });

  it('allows through a ClusterRoleBinding to a group, everywhere', () => {
    expect(authorizer.authorize(request(alice, 'GET', '/api/v1/nodes/n1')).reason).toBe(
      'RBAC: allowed by ClusterRoleBinding "dev-nodes" of ClusterRole "node-reader" to Group "dev"',
    );
    expect(authorizer.authorize(request(anonymous, 'GET', '/api/v1/nodes/n1')).decision).toBe('no-opinion');
  });

  it('allows a service account through a RoleBinding to a ClusterRole, in that namespace only', () => {
    expect(authorizer.authorize(request(robot, 'GET', '/api/v1/namespaces/team/pods')).decision).toBe('allow');
    expect(authorizer.authorize(request(robot, 'GET', '/api/v1/namespaces/default/pods')).decision).toBe('no-opinion');
    expect(authorizer.authorize(request(robot, 'GET', '/api/v1/pods')).decision).toBe('no-opinion');
  });

  it('says which bound roles are missing', () => {
    expect(authorizer.authorize(request(alice, 'GET', '/api/v1/namespaces/other/pods'))).toEqual({
      decision: 'no-opinion',
      reason: 'RBAC: role.rbac.authorization.k8s.io "gone" not found',
    });
  });

  it('lists the rules of a user in a namespace', () => {
    expect(resolver.rulesFor(alice, 'team').rules).toEqual([
      { verbs: ['get', 'list'], apiGroups: [''], resources: ['nodes'] },
      { verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'] },
    ]);
  });
});

describe('escalation checks', () => {
  const objects = [
    rbac(
      'Role',
      'role-writer',
      {
        rules: [
          {
            verbs: ['create', 'update'],
            apiGroups: ['rbac.authorization.k8s.io'],
            resources: ['roles', 'rolebindings'],
          },
          { verbs: ['get'], apiGroups: [''], resources: ['configmaps'] },
        ],
      },
      'team',
    ),
    rbac(
      'RoleBinding',
      'alice',
      {
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'role-writer' },
        subjects: [{ kind: 'User', name: 'alice' }],
      },
      'team',
    ),
    rbac('ClusterRole', 'cluster-admin', {
      rules: [
        { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
        { verbs: ['*'], nonResourceURLs: ['*'] },
      ],
    }),
    rbac('ClusterRole', 'secret-reader', { rules: [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }] }),
    rbac('ClusterRoleBinding', 'bob-binds', {
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'binder' },
      subjects: [{ kind: 'User', name: 'bob' }],
    }),
    rbac('ClusterRole', 'binder', {
      rules: [
        {
          verbs: ['bind'],
          apiGroups: ['rbac.authorization.k8s.io'],
          resources: ['clusterroles'],
          resourceNames: ['secret-reader'],
        },
      ],
    }),
  ];
  const resolver = new RuleResolver(staticPolicySource(objects));
  const authorizer = serverAuthorizer([rbacAuthorizer(resolver)]);
  const context = (user: UserInfo) => ({ user, resolver, authorizer });

  it('lets a user write a role with rules they hold, not one with more', async () => {
    expect(
      await checkRoleWrite(
        context(alice),
        rbac('Role', 'ok', { rules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }] }, 'team'),
      ),
    ).toBeUndefined();
    const refused = await checkRoleWrite(
      context(alice),
      rbac(
        'Role',
        'more',
        { rules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps', 'secrets'] }] },
        'team',
      ),
    );
    expect(refused?.status.code).toBe(403);
    expect(refused?.message).toBe(
      'roles.rbac.authorization.k8s.io "more" is forbidden: user "alice" (groups=["dev" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
        '{APIGroups:[""], Resources:["configmaps"], Verbs:["list"]}\n{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}',
    );
  });

  it('refuses a binding to a role the user does not hold, unless they may bind that role', async () => {
    const toAdmin = rbac(
      'RoleBinding',
      'b',
      {
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
        subjects: [{ kind: 'User', name: 'alice' }],
      },
      'team',
    );
    expect((await checkBindingWrite(context(alice), toAdmin))?.status.code).toBe(403);
    const bob: UserInfo = { name: 'bob', groups: ['system:authenticated'] };
    const toSecrets = rbac(
      'RoleBinding',
      'b',
      {
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'secret-reader' },
        subjects: [{ kind: 'User', name: 'x' }],
      },
      'team',
    );
    expect(await checkBindingWrite(context(bob), toSecrets)).toBeUndefined();
    expect((await checkBindingWrite(context(bob), toAdmin))?.status.code).toBe(403);
  });

  it('leaves a role reference that names no role of its scope to validation', async () => {
    // The reference's lookup answers these with a bare 500 or 400; validation refuses them with 422.
    for (const roleRef of [
      undefined,
      { name: 'secret-reader' },
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'Foo', name: 'secret-reader' },
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: '' },
    ]) {
      expect(await checkBindingWrite(context(alice), rbac('RoleBinding', 'b', { roleRef }, 'team'))).toBeUndefined();
    }
    const roleInCluster = rbac('ClusterRoleBinding', 'b', {
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'role-writer' },
    });
    expect(await checkBindingWrite(context(alice), roleInCluster)).toBeUndefined();
  });

  it('never checks system:masters', async () => {
    const admin: UserInfo = { name: 'admin', groups: ['system:masters'] };
    expect(
      await checkRoleWrite(
        context(admin),
        rbac('ClusterRole', 'all', { rules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }] }),
      ),
    ).toBeUndefined();
  });
});

describe('coverage', () => {
  it('breaks rules into atoms and finds the ones not granted', () => {
    const owned = [
      { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods', '*/status'] },
      { verbs: ['get'], nonResourceURLs: ['/logs/*'] },
    ];
    expect(uncoveredRules(owned, [{ verbs: ['get'], apiGroups: [''], resources: ['pods', 'nodes/status'] }])).toEqual(
      [],
    );
    expect(uncoveredRules(owned, [{ verbs: ['get'], nonResourceURLs: ['/logs/a', '/metrics'] }])).toEqual([
      { verbs: ['get'], nonResourceURLs: ['/metrics'] },
    ]);
    expect(
      uncoveredRules(
        [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] }],
        [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }],
      ),
    ).toHaveLength(1);
  });
});

describe('aggregation', () => {
  it('gathers the rules of matching cluster roles in name order, each once', () => {
    const view = rbac('ClusterRole', 'view', {
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'x/aggregate-to-view': 'true' } }] },
      rules: [],
    });
    const b = rbac('ClusterRole', 'b', { rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] });
    const a = rbac('ClusterRole', 'a', {
      rules: [
        { verbs: ['list'], apiGroups: [''], resources: ['pods'] },
        { verbs: ['get'], apiGroups: [''], resources: ['pods'] },
      ],
    });
    const other = rbac('ClusterRole', 'c', { rules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }] });
    for (const role of [a, b]) role.metadata.labels = { 'x/aggregate-to-view': 'true' };
    expect(aggregatedRules(view, [view, b, a, other])).toEqual([
      { verbs: ['list'], apiGroups: [''], resources: ['pods'] },
      { verbs: ['get'], apiGroups: [''], resources: ['pods'] },
    ]);
    expect(aggregatedRules(other, [view, a])).toBeUndefined();
  });

  it('orders the roles as the reference (Go string order: by byte, upper case before lower case)', () => {
    const view = rbac('ClusterRole', 'view', {
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'x/aggregate-to-view': 'true' } }] },
      rules: [],
    });
    const lower = rbac('ClusterRole', 'a-role', { rules: [{ verbs: ['list'], apiGroups: [''], resources: ['pods'] }] });
    const upper = rbac('ClusterRole', 'Z-role', { rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }] });
    for (const role of [lower, upper]) role.metadata.labels = { 'x/aggregate-to-view': 'true' };
    expect(aggregatedRules(view, [view, lower, upper])).toEqual([
      { verbs: ['get'], apiGroups: [''], resources: ['pods'] },
      { verbs: ['list'], apiGroups: [''], resources: ['pods'] },
    ]);
  });
});

describe('the bootstrap policy', () => {
  const policy = bootstrapPolicy(featureGateReader({}));
  const resolver = new RuleResolver(
    staticPolicySource([
      ...policy.clusterRoles,
      ...policy.clusterRoleBindings,
      ...policy.roles,
      ...policy.roleBindings,
    ]),
  );
  const authorizer = rbacAuthorizer(resolver);

  it('lets everyone read the public info, and authenticated users discovery and their own reviews', () => {
    for (const path of ['/healthz', '/livez', '/readyz', '/version', '/version/']) {
      expect(authorizer.authorize(request(anonymous, 'GET', path)).decision).toBe('allow');
    }
    expect(authorizer.authorize(request(anonymous, 'GET', '/livez/ping')).decision).toBe('no-opinion');
    expect(authorizer.authorize(request(anonymous, 'GET', '/apis')).decision).toBe('no-opinion');
    expect(authorizer.authorize(request(alice, 'GET', '/apis')).decision).toBe('allow');
    expect(authorizer.authorize(request(alice, 'GET', '/openapi/v3/apis/apps/v1')).decision).toBe('allow');
    expect(
      authorizer.authorize(request(alice, 'POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews')).decision,
    ).toBe('allow');
    expect(authorizer.authorize(request(alice, 'GET', '/metrics')).decision).toBe('no-opinion');
    expect(
      authorizer.authorize(request({ name: 'prom', groups: ['system:monitoring'] }, 'GET', '/metrics')).decision,
    ).toBe('allow');
  });

  it('carries the 1.34 component and controller roles with their bindings', () => {
    const names = new Set(policy.clusterRoles.map((role) => role.metadata.name));
    for (const name of [
      'cluster-admin',
      'admin',
      'edit',
      'view',
      'system:kube-scheduler',
      'system:kube-controller-manager',
      'system:node',
      'system:controller:deployment-controller',
      'system:controller:generic-garbage-collector',
    ]) {
      expect(names).toContain(name);
    }
    const scheduler: UserInfo = { name: 'system:kube-scheduler', groups: ['system:authenticated'] };
    expect(authorizer.authorize(request(scheduler, 'POST', '/api/v1/namespaces/a/pods/p/binding')).decision).toBe(
      'allow',
    );
    const deployments: UserInfo = {
      name: 'system:serviceaccount:kube-system:deployment-controller',
      groups: ['system:serviceaccounts', 'system:authenticated'],
    };
    expect(authorizer.authorize(request(deployments, 'POST', '/apis/apps/v1/namespaces/a/replicasets')).decision).toBe(
      'allow',
    );
    for (const object of Object.values(policy).flat()) {
      expect(object.metadata.labels?.['kubernetes.io/bootstrapping']).toBe('rbac-defaults');
      expect(object.metadata.annotations?.['rbac.authorization.kubernetes.io/autoupdate']).toBe('true');
    }
  });
});

describe('the bootstrap policy under gates turned off', () => {
  const rulesOfRole = (gates: Record<string, boolean>, name: string) =>
    bootstrapPolicy(featureGateReader(gates)).clusterRoles.find((role) => role.metadata.name === name)!.rules as {
      resources?: string[];
      verbs: string[];
    }[];
  const grants = (gates: Record<string, boolean>, name: string, resource: string, verb: string) =>
    rulesOfRole(gates, name).some((rule) => rule.resources?.includes(resource) && rule.verbs.includes(verb));

  it("KubeletFineGrainedAuthz: the kubelet API admin loses the kubelet's finer subresources", () => {
    for (const resource of ['nodes/pods', 'nodes/healthz', 'nodes/configz']) {
      expect(grants({}, 'system:kubelet-api-admin', resource, '*')).toBe(true);
      expect(grants({ KubeletFineGrainedAuthz: false }, 'system:kubelet-api-admin', resource, '*')).toBe(false);
    }
    expect(grants({ KubeletFineGrainedAuthz: false }, 'system:kubelet-api-admin', 'nodes/proxy', '*')).toBe(true);
  });

  it('KubeletServiceAccountTokenForCredentialProviders: a node no longer reads service accounts', () => {
    expect(grants({}, 'system:node', 'serviceaccounts', 'get')).toBe(true);
    const off = { KubeletServiceAccountTokenForCredentialProviders: false };
    expect(grants(off, 'system:node', 'serviceaccounts', 'get')).toBe(false);
    expect(rulesOfRole(off, 'system:node')).toHaveLength(rulesOfRole({}, 'system:node').length - 1);
  });
});

describe('the bootstrap policy with gates flipped, as the reference recorded it', () => {
  /** The gates kube-apiserver 1.34.4 was started with to record bootstrap-policy-gated.json. */
  const RECORDED = featureGateReader({
    ClusterTrustBundle: true,
    PodCertificateRequest: true,
    DRAExtendedResource: true,
    DRADeviceTaints: true,
    StorageVersionMigrator: true,
    ComponentFlagz: true,
    ComponentStatusz: true,
    SELinuxChangePolicy: false,
  });
  const names = (objects: readonly KubeObject[]) => objects.map((object) => object.metadata.name);

  it('has as many cluster roles and bindings as the reference had, its gated roles in, SELinux warnings out', () => {
    const policy = bootstrapPolicy(RECORDED);
    expect([policy.clusterRoles.length, policy.clusterRoleBindings.length]).toEqual([72, 53]);
    for (const name of [
      'system:cluster-trust-bundle-discovery',
      'system:controller:kube-apiserver-serving-clustertrustbundle-publisher',
      'system:controller:device-taint-eviction-controller',
      'system:controller:podcertificaterequestcleaner',
      'system:controller:storage-version-migrator-controller',
    ]) {
      expect(names(policy.clusterRoles)).toContain(name);
      expect(names(policy.clusterRoleBindings)).toContain(name);
    }
    expect(names(policy.clusterRoles)).not.toContain('system:controller:selinux-warning-controller');
    const discovery = policy.clusterRoleBindings.find(
      (binding) => binding.metadata.name === 'system:cluster-trust-bundle-discovery',
    );
    expect(discovery?.subjects).toEqual([
      { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'system:serviceaccounts' },
    ]);
  });

  it("puts the node's and the scheduler's gated rules where the reference has them", () => {
    const rulesOf = (policy: BootstrapPolicy, name: string) =>
      policy.clusterRoles.find((role) => role.metadata.name === name)!.rules as { resources?: string[] }[];
    const node = rulesOf(bootstrapPolicy(RECORDED), 'system:node').map((rule) => rule.resources?.[0]);
    expect(node.slice(22)).toEqual([
      'resourceclaims',
      'resourceslices',
      'clustertrustbundles',
      'serviceaccounts',
      'podcertificaterequests',
    ]);
    const withoutTokens = featureGateReader({
      ClusterTrustBundle: true,
      PodCertificateRequest: true,
      KubeletServiceAccountTokenForCredentialProviders: false,
    });
    expect(
      rulesOf(bootstrapPolicy(withoutTokens), 'system:node')
        .map((rule) => rule.resources?.[0])
        .slice(22),
    ).toEqual(['resourceclaims', 'resourceslices', 'clustertrustbundles', 'podcertificaterequests']);
    const scheduler = rulesOf(bootstrapPolicy(RECORDED), 'system:kube-scheduler');
    expect(scheduler.slice(-2)).toEqual([
      { apiGroups: ['resource.k8s.io'], resources: ['resourceclaims'], verbs: ['create', 'delete'] },
      { apiGroups: ['resource.k8s.io'], resources: ['devicetaintrules'], verbs: ['get', 'list', 'watch'] },
    ]);
    expect(rulesOf(bootstrapPolicy(RECORDED), 'system:monitoring').slice(-2)).toEqual([
      { nonResourceURLs: ['/flagz'], verbs: ['get'] },
      { nonResourceURLs: ['/statusz'], verbs: ['get'] },
    ]);
  });

  it('DynamicResourceAllocation off: no DRA rules, nor the claim controller, whatever the DRA gates under it', () => {
    const policy = bootstrapPolicy(
      featureGateReader({ DynamicResourceAllocation: false, DRAExtendedResource: true, ClusterTrustBundle: true }),
    );
    const resourcesOf = (name: string) =>
      policy.clusterRoles.find((role) => role.metadata.name === name)!.rules as {
        apiGroups?: string[];
        resources?: string[];
      }[];
    for (const name of ['system:node', 'system:kube-scheduler', 'system:aggregate-to-view', 'system:aggregate-to-edit'])
      expect(resourcesOf(name).filter((rule) => rule.apiGroups?.includes('resource.k8s.io'))).toEqual([]);
    expect(names(policy.clusterRoles)).not.toContain('system:controller:resource-claim-controller');
    expect(names(policy.clusterRoleBindings)).not.toContain('system:controller:resource-claim-controller');
    // Where the claims' rules were, the trust bundles' rule follows the runtime classes'.
    expect(
      resourcesOf('system:node')
        .map((rule) => rule.resources?.[0])
        .slice(21),
    ).toEqual(['runtimeclasses', 'clustertrustbundles', 'serviceaccounts']);
  });

  it('StorageVersionAPI with APIServerIdentity: the storage-version garbage collector, as the reference made it', () => {
    const GC = 'system:controller:storage-version-garbage-collector';
    const storageVersions = bootstrapPolicy(featureGateReader({ StorageVersionAPI: true }));
    // 69 cluster roles and 50 bindings, as kube-apiserver 1.34.4 had with the gate on; one each fewer without it.
    expect([storageVersions.clusterRoles.length, storageVersions.clusterRoleBindings.length]).toEqual([69, 50]);
    const role = storageVersions.clusterRoles.find((object) => object.metadata.name === GC);
    expect(role?.rules).toEqual([
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'list', 'watch'] },
      {
        apiGroups: ['internal.apiserver.k8s.io'],
        resources: ['storageversions'],
        verbs: ['delete', 'get', 'list', 'patch', 'update', 'watch'],
      },
      {
        apiGroups: ['internal.apiserver.k8s.io'],
        resources: ['storageversions/status'],
        verbs: ['get', 'patch', 'update'],
      },
    ]);
    const binding = storageVersions.clusterRoleBindings.find((object) => object.metadata.name === GC);
    expect(binding?.subjects).toEqual([
      { kind: 'ServiceAccount', name: 'storage-version-garbage-collector', namespace: 'kube-system' },
    ]);
    const others: Record<string, boolean>[] = [{}, { StorageVersionAPI: true, APIServerIdentity: false }];
    for (const gates of others) {
      const policy = bootstrapPolicy(featureGateReader(gates));
      expect([policy.clusterRoles.length, policy.clusterRoleBindings.length]).toEqual([68, 49]);
      expect(names(policy.clusterRoles)).not.toContain(GC);
    }
  });
});
