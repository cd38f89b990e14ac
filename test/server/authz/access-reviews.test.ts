/** The access reviews as plain functions over a real chain: system:masters, then RBAC over a fixed policy. */
import type { KubeObject } from '../../../api/objects';
import type { UserInfo } from '../../../api/user-info';
import {
  localSubjectAccessReview,
  selfSubjectAccessReview,
  selfSubjectRulesReview,
  subjectAccessReview,
} from '../../../server/authz/access-reviews';
import { alwaysDeny } from '../../../server/authz/always';
import { staticPolicySource } from '../../../server/authz/rbac/policy-source';
import { rbacAuthorizer } from '../../../server/authz/rbac/rbac-authorizer';
import { RuleResolver } from '../../../server/authz/rbac/rule-resolver';
import { serverAuthorizer } from '../../../server/authz/server-authorizer';
import type { StatusError } from '../../../server/status/status-error';

const policy: KubeObject[] = [
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: 'cm', namespace: 'team' },
    rules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'] }],
  },
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'devs', namespace: 'team' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm' },
    subjects: [{ kind: 'Group', name: 'dev' }],
  },
];
const authorizer = serverAuthorizer([rbacAuthorizer(new RuleResolver(staticPolicySource(policy)))]);
const alice: UserInfo = { name: 'alice', groups: ['dev', 'system:authenticated'] };

const review = (kind: string, spec: object, metadata: KubeObject['metadata'] = {}): KubeObject => ({
  apiVersion: 'authorization.k8s.io/v1',
  kind,
  metadata,
  spec,
});

async function rejection(run: () => Promise<unknown>): Promise<StatusError> {
  try {
    await run();
  } catch (error) {
    return error as StatusError;
  }
  throw new Error('expected a rejection');
}

describe('access reviews', () => {
  it('SubjectAccessReview asks the whole chain about any user, v1 groups or v1beta1 group', async () => {
    const allowed = await subjectAccessReview(
      review('SubjectAccessReview', {
        user: 'bob',
        groups: ['dev'],
        resourceAttributes: { namespace: 'team', verb: 'list', resource: 'configmaps' },
      }),
      authorizer,
    );
    expect(allowed.status).toEqual({
      allowed: true,
      reason: 'RBAC: allowed by RoleBinding "devs/team" of Role "cm" to Group "dev"',
    });
    const beta = await subjectAccessReview(
      {
        ...review('SubjectAccessReview', {
          user: 'bob',
          group: ['dev'],
          resourceAttributes: { namespace: 'team', verb: 'get', resource: 'configmaps', name: 'x' },
        }),
        apiVersion: 'authorization.k8s.io/v1beta1',
      },
      authorizer,
    );
    expect(beta.status).toEqual({ allowed: true, reason: expect.stringContaining('RBAC: allowed') });
    const notAllowed = await subjectAccessReview(
      review('SubjectAccessReview', {
        user: 'bob',
        resourceAttributes: { namespace: 'team', verb: 'list', resource: 'configmaps' },
      }),
      authorizer,
    );
    expect(notAllowed.status).toEqual({ allowed: false });
    const masters = await subjectAccessReview(
      review('SubjectAccessReview', {
        user: 'root',
        groups: ['system:masters'],
        nonResourceAttributes: { path: '/metrics', verb: 'get' },
      }),
      authorizer,
    );
    expect(masters.status).toEqual({ allowed: true });
    const denied = await subjectAccessReview(
      review('SubjectAccessReview', { user: 'bob', nonResourceAttributes: { path: '/metrics', verb: 'get' } }),
      serverAuthorizer([alwaysDeny]),
    );
    expect(denied.status).toEqual({ allowed: false, denied: true, reason: 'Everything is forbidden.' });
  });

  it('SubjectAccessReview refuses a spec with both or neither attribute kinds, or no subject', async () => {
    const both = await rejection(() =>
      subjectAccessReview(
        review('SubjectAccessReview', { user: 'bob', resourceAttributes: {}, nonResourceAttributes: {} }),
        authorizer,
      ),
    );
    expect(both.status.code).toBe(422);
    expect(both.message).toContain('spec.nonResourceAttributes: Invalid value');
    const none = await rejection(() =>
      subjectAccessReview(review('SubjectAccessReview', { resourceAttributes: { verb: 'get' } }), authorizer),
    );
    // Neither kind nor name, as the reference reads the review into a type without them.
    expect(none.message).toBe(
      '.authorization.k8s.io "" is invalid: spec.user: Invalid value: "": at least one of user or group must be specified',
    );
  });

  it('LocalSubjectAccessReview must name the namespace of its path', async () => {
    const spec = {
      user: 'bob',
      groups: ['dev'],
      resourceAttributes: { namespace: 'team', verb: 'list', resource: 'configmaps' },
    };
    expect(
      (
        await localSubjectAccessReview(
          review('LocalSubjectAccessReview', spec, { namespace: 'team' }),
          'team',
          authorizer,
        )
      ).status,
    ).toMatchObject({ allowed: true });
    const elsewhere = await rejection(() =>
      localSubjectAccessReview(review('LocalSubjectAccessReview', spec, { namespace: 'other' }), 'other', authorizer),
    );
    expect(elsewhere.message).toContain(
      'spec.resourceAttributes.namespace: Invalid value: "team": must match metadata.namespace',
    );
  });

  it('SelfSubjectAccessReview asks about the requester', async () => {
    const self = await selfSubjectAccessReview(
      review('SelfSubjectAccessReview', {
        resourceAttributes: { namespace: 'team', verb: 'get', resource: 'configmaps', name: 'x' },
      }),
      alice,
      authorizer,
    );
    expect(self.status).toMatchObject({ allowed: true });
    expect(self.spec).toEqual({
      resourceAttributes: { namespace: 'team', verb: 'get', resource: 'configmaps', name: 'x' },
    });
  });

  it('SelfSubjectRulesReview lists the rules of every mode, incomplete when one cannot tell', async () => {
    const rules = await selfSubjectRulesReview(
      review('SelfSubjectRulesReview', { namespace: 'team' }),
      alice,
      authorizer,
    );
    expect(rules.status).toEqual({
      resourceRules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'] }],
      nonResourceRules: [],
      incomplete: false,
    });
    const withWebhook = serverAuthorizer([{ authorize: () => ({ decision: 'no-opinion', reason: '' }) }]);
    expect(
      (await selfSubjectRulesReview(review('SelfSubjectRulesReview', { namespace: 'team' }), alice, withWebhook))
        .status,
    ).toMatchObject({ incomplete: true });
    const noNamespace = await rejection(() =>
      selfSubjectRulesReview(review('SelfSubjectRulesReview', {}), alice, authorizer),
    );
    // The reference's words (kube-apiserver 1.34.4, 2026-12-03): a 400, not a field error.
    expect([noNamespace.status.code, noNamespace.status.reason, noNamespace.message]).toEqual([
      400,
      'BadRequest',
      'no namespace on request',
    ]);
  });
});
