/** RBAC's index of bindings by subject: a check sees only the bindings that may name its user, in their first-added order. */
import { BindingIndex } from '../../../server/authz/rbac/binding-index';
import type { KubeObject } from '../../../api/objects';

const binding = (name: string, subjects: object[], namespace?: string): KubeObject => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: namespace === undefined ? 'ClusterRoleBinding' : 'RoleBinding',
  metadata: { name, ...(namespace === undefined ? {} : { namespace }) },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
  subjects,
});
const names = (bindings: KubeObject[]) => bindings.map((found) => found.metadata.name);

describe('BindingIndex', () => {
  it('finds bindings by user, by group and by service account, and no others', () => {
    const index = new BindingIndex();
    index.upsert(binding('to-alice', [{ kind: 'User', name: 'alice' }], 'team'));
    index.upsert(binding('to-devs', [{ kind: 'Group', name: 'devs' }], 'team'));
    // A service account subject without a namespace is in its binding's.
    index.upsert(binding('to-builder', [{ kind: 'ServiceAccount', name: 'builder' }], 'team'));
    index.upsert(
      binding('to-other-builder', [{ kind: 'ServiceAccount', name: 'builder', namespace: 'elsewhere' }], 'team'),
    );
    index.upsert(
      binding(
        'to-bob',
        [
          { kind: 'User', name: 'bob' },
          { kind: 'Group', name: 'devs' },
        ],
        'team',
      ),
    );
    expect(names(index.candidates({ name: 'alice', groups: ['devs'] }))).toEqual(['to-alice', 'to-devs', 'to-bob']);
    expect(names(index.candidates({ name: 'system:serviceaccount:team:builder', groups: [] }))).toEqual(['to-builder']);
    expect(names(index.candidates({ name: 'carol', groups: ['ops'] }))).toEqual([]);
  });

  it('keeps a binding at its place when it changes, and forgets it when its subjects or itself go', () => {
    const index = new BindingIndex();
    index.upsert(binding('first', [{ kind: 'Group', name: 'devs' }]));
    index.upsert(binding('second', [{ kind: 'Group', name: 'devs' }]));
    index.upsert(
      binding('first', [
        { kind: 'Group', name: 'devs' },
        { kind: 'User', name: 'alice' },
      ]),
    );
    expect(names(index.candidates({ name: 'alice', groups: ['devs'] }))).toEqual(['first', 'second']);
    index.upsert(binding('first', [{ kind: 'User', name: 'alice' }]));
    expect(names(index.candidates({ name: 'dave', groups: ['devs'] }))).toEqual(['second']);
    index.remove(binding('second', []));
    expect(names(index.candidates({ name: 'dave', groups: ['devs'] }))).toEqual([]);
    // A cluster-wide service account subject must say its namespace to name anyone.
    index.upsert(binding('nowhere', [{ kind: 'ServiceAccount', name: 'builder' }]));
    expect(names(index.candidates({ name: 'system:serviceaccount::builder', groups: [] }))).toEqual([]);
  });
});
