/**
 * The values of a selector's expressions must be label values, except where the stored object
 * already has invalid ones: kube-apiserver 1.34.4 refused these creates with these causes and
 * took a label update of the same objects stored through a capstan beside it on one etcd
 * (DaemonSet: the stored selector has an invalid value; PodDisruptionBudget: the stored selector
 * is invalid in any way). NetworkPolicy's own rule is in network-policy.test.ts.
 */
import type { KubeObject } from '../../../api/objects';
import { created, typeOf, updated } from './gated-fields/write-path';

const LABEL_VALUE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const SELECTOR = { matchLabels: { a: 'b' }, matchExpressions: [{ key: 'a', operator: 'In', values: ['b', '-bad-'] }] };
const TEMPLATE = { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } };

const cases: [string, ReturnType<typeof typeOf>, KubeObject][] = [
  [
    'DaemonSet',
    typeOf('apps', 'daemonsets'),
    {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'x', namespace: 'default' },
      spec: { selector: SELECTOR, template: TEMPLATE },
    } as KubeObject,
  ],
  [
    'PodDisruptionBudget',
    typeOf('policy', 'poddisruptionbudgets'),
    {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'x', namespace: 'default' },
      spec: { selector: SELECTOR, minAvailable: 1 },
    } as KubeObject,
  ],
];

describe.each(cases)('%s', (_kind, type, object) => {
  test('a new one with an invalid value is refused', () => {
    expect(created(type, object, {}).errors).toEqual([
      `spec.selector.matchExpressions[0].values[1]: Invalid value: "-bad-": ${LABEL_VALUE}`,
    ]);
  });

  test('a stored one keeps its invalid value through an update', () => {
    expect(updated(type, object, (next) => (next.metadata.labels = { x: 'y' }), {}).errors).toEqual([]);
  });
});

// The order the reference answered the update corpus's apps/DaemonSet/selectorValue with.
test('a DaemonSet update: the changed selector is immutable first, then its value is refused', () => {
  const daemonSets = typeOf('apps', 'daemonsets');
  const valid = {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'x', namespace: 'default' },
    spec: { selector: { matchLabels: { a: 'b' } }, template: TEMPLATE },
  } as KubeObject;
  const stored = created(daemonSets, valid, {}).object;
  const update = updated(
    daemonSets,
    stored,
    (next) => ((next.spec as Record<string, unknown>).selector = SELECTOR),
    {},
  );
  expect(update.errors).toEqual([
    'spec.selector: Invalid value: {"matchLabels":{"a":"b"},"matchExpressions":[{"key":"a","operator":"In","values":["b","-bad-"]}]}: field is immutable',
    `spec.selector.matchExpressions[0].values[1]: Invalid value: "-bad-": ${LABEL_VALUE}`,
  ]);
});
