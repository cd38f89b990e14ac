/**
 * RBAC's cost per check when a namespace holds many RoleBindings (one per team member, the
 * usual shape of a large multi-tenant cluster): a request the policy denies, one allowed by the
 * binding of one of the user's groups, and one by a service account's binding. In process, on
 * the authorizer over a fixed policy, so the figures are the authorizer's own. Each is measured
 * with the subject index and, for comparison, over a source that hands every binding to the
 * resolver (what it visited before the index), side by side under the same load.
 */
import { performance } from 'node:perf_hooks';
import { rbacAuthorizer } from '../server/authz/rbac/rbac-authorizer';
import { staticPolicySource, type PolicySource } from '../server/authz/rbac/policy-source';
import { RuleResolver } from '../server/authz/rbac/rule-resolver';
import type { Attributes } from '../server/authz/types';
import type { UserInfo } from '../api/user-info';
import type { KubeObject } from '../api/objects';
import type { Benchmark } from './benchmark';

const BINDINGS = 1000;
const NAMESPACE = 'tenants';
const MAX_MS = 2000;
const MAX_CHECKS = 200_000;
const RBAC = 'rbac.authorization.k8s.io/v1';

function policy(): KubeObject[] {
  const objects: KubeObject[] = [
    {
      apiVersion: RBAC,
      kind: 'Role',
      metadata: { name: 'reader', namespace: NAMESPACE },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] }],
    },
    // A few cluster-wide bindings every cluster has, none naming the users below.
    ...['system:masters', 'system:nodes', 'system:kube-controller-manager'].map((group, index): KubeObject => ({
      apiVersion: RBAC,
      kind: 'ClusterRoleBinding',
      metadata: { name: `cluster-${index}` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [{ kind: 'Group', name: group }],
    })),
    {
      apiVersion: RBAC,
      kind: 'ClusterRole',
      metadata: { name: 'cluster-admin' },
      rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }],
    },
  ];
  for (let index = 0; index < BINDINGS; index++) {
    const subject =
      index === BINDINGS - 1
        ? { kind: 'Group', name: 'team-last' }
        : index === BINDINGS - 2
          ? { kind: 'ServiceAccount', name: 'builder' }
          : { kind: 'User', name: `member-${index}` };
    objects.push({
      apiVersion: RBAC,
      kind: 'RoleBinding',
      metadata: { name: `member-${index}`, namespace: NAMESPACE },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' },
      subjects: [subject],
    });
  }
  return objects;
}

/** The same policy without the index: every binding is a candidate, as in a plain scan. */
function scanningSource(objects: readonly KubeObject[]): PolicySource {
  const indexed = staticPolicySource(objects);
  const clusterBindings = objects.filter((object) => object.kind === 'ClusterRoleBinding');
  const roleBindings = objects.filter((object) => object.kind === 'RoleBinding');
  return {
    clusterRole: (name) => indexed.clusterRole(name),
    role: (namespace, name) => indexed.role(namespace, name),
    clusterRoleBindingsFor: () => clusterBindings,
    roleBindingsFor: (namespace) => roleBindings.filter((binding) => binding.metadata.namespace === namespace),
  };
}

function checksPerSecond(check: () => void): { microseconds: number; checks: number } {
  const begin = performance.now();
  let checks = 0;
  while (checks < MAX_CHECKS && performance.now() - begin < MAX_MS) {
    check();
    checks++;
  }
  return { microseconds: ((performance.now() - begin) * 1000) / checks, checks };
}

type Figure = ReturnType<typeof checksPerSecond>;

export function measureRbacChecks(source: PolicySource): { denied: Figure; byGroup: Figure; byServiceAccount: Figure } {
  const authorizer = rbacAuthorizer(new RuleResolver(source));
  const attributes = (user: UserInfo): Attributes => ({
    user,
    verb: 'get',
    isResourceRequest: true,
    path: '',
    namespace: NAMESPACE,
    apiGroup: '',
    apiVersion: 'v1',
    resource: 'configmaps',
    subresource: '',
    name: 'settings',
  });
  const outsider = attributes({ name: 'outsider', groups: ['developers', 'system:authenticated'] });
  const grouped = attributes({ name: 'newcomer', groups: ['team-last', 'system:authenticated'] });
  const builder = attributes({
    name: `system:serviceaccount:${NAMESPACE}:builder`,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${NAMESPACE}`, 'system:authenticated'],
  });
  const expect = (input: Attributes, decision: string) => () => {
    if (authorizer.authorize(input).decision !== decision)
      throw new Error(`expected ${decision} for ${input.user.name}`);
  };
  return {
    denied: checksPerSecond(expect(outsider, 'no-opinion')),
    byGroup: checksPerSecond(expect(grouped, 'allow')),
    byServiceAccount: checksPerSecond(expect(builder, 'allow')),
  };
}

export const rbacBenchmark: Benchmark = {
  name: 'rbac',
  description: `RBAC authorizer cost per check with ${BINDINGS} RoleBindings in the namespace (in process, one core)`,
  async run(context) {
    context.log('measuring');
    const objects = policy();
    const indexed = measureRbacChecks(staticPolicySource(objects));
    const scanned = measureRbacChecks(scanningSource(objects));
    const row = (metric: string, figure: Figure) => ({
      metric,
      value: Number(figure.microseconds.toFixed(2)),
      unit: 'µs/check',
      note: `${figure.checks} checks`,
    });
    context.report({
      title: `RBAC checks, ${BINDINGS} RoleBindings in one namespace`,
      rows: [
        row('denied (no binding names the user or its groups), indexed', indexed.denied),
        row('denied, every binding visited', scanned.denied),
        row("allowed by a group's binding (the last one listed), indexed", indexed.byGroup),
        row("allowed by a group's binding, every binding visited", scanned.byGroup),
        row("allowed by a service account's binding, indexed", indexed.byServiceAccount),
        row("allowed by a service account's binding, every binding visited", scanned.byServiceAccount),
      ],
    });
  },
};
