/**
 * A ClusterRole's aggregation selectors as kube-apiserver 1.34.4 checks them, cause for cause:
 * values of expressions included, and each selector LabelSelectorAsSelector refuses adds
 * `Invalid value: null: invalid label selector.`. Its update validation runs the whole check
 * twice, so an update shows every cause twice; a stored role whose selector is invalid (written
 * through a capstan beside it on one etcd) has its values spared, but not that cause.
 */
import type { KubeObject } from '../../../api/objects';
import { created, typeOf, updated } from './gated-fields/write-path';

const clusterRoles = typeOf('rbac.authorization.k8s.io', 'clusterroles');
const LABEL_VALUE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const KEY =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const AT = 'aggregationRule.clusterRoleSelectors';
const unparsed = (i: number) => `${AT}[${i}]: Invalid value: null: invalid label selector.`;

const BAD_VALUE = { matchLabels: { a: 'b' }, matchExpressions: [{ key: 'a', operator: 'In', values: ['b', '-bad-'] }] };
const BAD_OPERATOR = { matchLabels: { a: 'b' }, matchExpressions: [{ key: 'a', operator: 'Foo', values: ['b'] }] };
const BAD_KEY = { matchLabels: { a: 'b' }, matchExpressions: [{ key: '-k-', operator: 'Exists' }] };

const role = (selectors: unknown[]): KubeObject =>
  ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'x' },
    aggregationRule: { clusterRoleSelectors: selectors },
  }) as KubeObject;

const stored = (selectors: unknown[]): KubeObject => created(clusterRoles, role(selectors), {}).object;

test('a new role: an invalid value, then the selector refused', () => {
  expect(created(clusterRoles, role([BAD_VALUE]), {}).errors).toEqual([
    `${AT}[0].matchExpressions[0].values[1]: Invalid value: "-bad-": ${LABEL_VALUE}`,
    unparsed(0),
  ]);
});

test('an update to invalid selectors: each cause twice', () => {
  const update = updated(
    clusterRoles,
    stored([{ matchLabels: { a: 'b' } }]),
    (next) => (next.aggregationRule = { clusterRoleSelectors: [BAD_OPERATOR, BAD_KEY] }),
    {},
  );
  const once = [
    `${AT}[0].matchExpressions[0].operator: Invalid value: "Foo": not a valid selector operator`,
    unparsed(0),
    `${AT}[1].matchExpressions[0].key: Invalid value: "-k-": ${KEY}`,
    unparsed(1),
  ];
  expect(update.errors).toEqual([...once, ...once]);
});

test('an update of the rules: each cause twice', () => {
  const update = updated(
    clusterRoles,
    stored([{ matchLabels: { a: 'b' } }]),
    (next) => (next.rules = [{ apiGroups: [''], resources: ['pods'] }]),
    {},
  );
  const once = 'rules[0].verbs: Required value: verbs must contain at least one value';
  expect(update.errors).toEqual([once, once]);
});

test('a stored role with an invalid value: spared the value, not the refused selector', () => {
  const update = updated(clusterRoles, stored([BAD_VALUE]), (next) => (next.metadata.labels = { x: 'y' }), {});
  expect(update.errors).toEqual([unparsed(0), unparsed(0)]);
});
