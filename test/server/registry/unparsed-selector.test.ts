/**
 * A workload selector the reference's LabelSelectorAsSelector refuses, or none at all: what
 * kube-apiserver 1.34.4 answered to these objects, cause for cause and in order. Deployments and
 * ReplicaSets add `invalid label selector` and skip the template; StatefulSets add the same
 * cause without a detail and skip the pod template's checks; DaemonSets add nothing and skip
 * only the label match. A stored Deployment, ReplicaSet or StatefulSet with such a selector
 * (written through a capstan beside it on one etcd) was refused a label update with the causes
 * of its create. Selectors and labels print as JSON. A ReplicationController checks its selector
 * map for nothing but emptiness, and shows each cause of an update twice.
 */
import type { KubeObject } from '../../../api/objects';
import { created, typeOf, updated } from './gated-fields/write-path';

const LABEL_VALUE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const CONTAINER_NAME =
  "spec.template.spec.containers[0].name: Invalid value: \"C\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const RESTART_POLICY = 'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"';
const NO_MATCH = 'spec.template.metadata.labels: Invalid value: {"a":"b"}: `selector` does not match template `labels`';

const BAD_VALUE = { matchLabels: { a: 'b' }, matchExpressions: [{ key: 'a', operator: 'In', values: ['b', '-bad-'] }] };
const BAD_VALUE_JSON =
  '{"matchLabels":{"a":"b"},"matchExpressions":[{"key":"a","operator":"In","values":["b","-bad-"]}]}';
const BAD_VALUE_CAUSE = `spec.selector.matchExpressions[0].values[1]: Invalid value: "-bad-": ${LABEL_VALUE}`;
// The operator comes after the key in the JSON, as Go's struct declares them, whatever order was sent.
const BAD_OPERATOR = { matchExpressions: [{ operator: 'Foo', values: ['b'], key: 'a' }], matchLabels: { a: 'b' } };
const BAD_OPERATOR_JSON = '{"matchLabels":{"a":"b"},"matchExpressions":[{"key":"a","operator":"Foo","values":["b"]}]}';
const BAD_OPERATOR_CAUSE =
  'spec.selector.matchExpressions[0].operator: Invalid value: "Foo": not a valid selector operator';

const TEMPLATE = { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } };
const BAD_TEMPLATE = {
  metadata: { labels: { a: 'b' } },
  spec: { restartPolicy: 'Never', containers: [{ name: 'C', image: 'i' }] },
};

type Make = (spec: Record<string, unknown>) => KubeObject;
const workload =
  (kind: string): Make =>
  (spec) =>
    ({ apiVersion: 'apps/v1', kind, metadata: { name: 'x', namespace: 'default' }, spec }) as KubeObject;

interface Expected {
  readonly badValue: string[];
  readonly badOperator: string[];
  readonly noSelector: string[];
  readonly empty: string[];
}

const kinds: [string, Make, Expected][] = [
  [
    'deployments',
    workload('Deployment'),
    {
      badValue: [BAD_VALUE_CAUSE, `spec.selector: Invalid value: ${BAD_VALUE_JSON}: invalid label selector`],
      badOperator: [BAD_OPERATOR_CAUSE, `spec.selector: Invalid value: ${BAD_OPERATOR_JSON}: invalid label selector`],
      noSelector: ['spec.selector: Required value', NO_MATCH, CONTAINER_NAME, RESTART_POLICY],
      empty: ['spec.selector: Invalid value: {}: empty selector is invalid for deployment'],
    },
  ],
  [
    'replicasets',
    workload('ReplicaSet'),
    {
      badValue: [BAD_VALUE_CAUSE, `spec.selector: Invalid value: ${BAD_VALUE_JSON}: invalid label selector`],
      badOperator: [BAD_OPERATOR_CAUSE, `spec.selector: Invalid value: ${BAD_OPERATOR_JSON}: invalid label selector`],
      noSelector: ['spec.selector: Required value', NO_MATCH, CONTAINER_NAME, RESTART_POLICY],
      empty: ['spec.selector: Invalid value: {}: empty selector is invalid for deployment'],
    },
  ],
  [
    'statefulsets',
    workload('StatefulSet'),
    {
      badValue: [BAD_VALUE_CAUSE, `spec.selector: Invalid value: ${BAD_VALUE_JSON}`, RESTART_POLICY],
      badOperator: [BAD_OPERATOR_CAUSE, `spec.selector: Invalid value: ${BAD_OPERATOR_JSON}`, RESTART_POLICY],
      noSelector: ['spec.selector: Required value', NO_MATCH, CONTAINER_NAME, RESTART_POLICY],
      empty: ['spec.selector: Invalid value: {}: empty selector is invalid for statefulset'],
    },
  ],
  [
    'daemonsets',
    workload('DaemonSet'),
    {
      badValue: [BAD_VALUE_CAUSE, CONTAINER_NAME, RESTART_POLICY],
      badOperator: [BAD_OPERATOR_CAUSE, CONTAINER_NAME, RESTART_POLICY],
      noSelector: [NO_MATCH, CONTAINER_NAME, RESTART_POLICY],
      empty: ['spec.selector: Invalid value: {}: empty selector is invalid for daemonset'],
    },
  ],
];

describe.each(kinds)('%s', (resource, make, expected) => {
  const type = typeOf('apps', resource);
  const errorsOf = (spec: Record<string, unknown>) => created(type, make(spec), {}).errors;

  test('an invalid value in an expression', () => {
    expect(errorsOf({ selector: BAD_VALUE, template: BAD_TEMPLATE })).toEqual(expected.badValue);
  });

  test('an unknown operator', () => {
    expect(errorsOf({ selector: BAD_OPERATOR, template: BAD_TEMPLATE })).toEqual(expected.badOperator);
  });

  test('no selector: nothing matches the template', () => {
    expect(errorsOf({ template: BAD_TEMPLATE })).toEqual(expected.noSelector);
  });

  test('an empty selector', () => {
    expect(errorsOf({ selector: {}, template: TEMPLATE })).toEqual(expected.empty);
  });
});

describe.each(kinds.slice(0, 3))('a stored %s with an invalid value', (resource, make, expected) => {
  test('is refused a label update with the causes of its create', () => {
    const type = typeOf('apps', resource);
    // As stored: defaulted, never validated.
    const stored = created(type, make({ selector: BAD_VALUE, template: TEMPLATE }), {}).object;
    const update = updated(type, stored, (next) => (next.metadata.labels = { x: 'y' }), {});
    // The template is valid here, so the StatefulSet's restartPolicy cause is not among them.
    expect(update.errors).toEqual(expected.badValue.filter((cause) => cause !== RESTART_POLICY));
  });
});

describe('replicationcontrollers', () => {
  const controllers = typeOf('', 'replicationcontrollers');
  const controller = (spec: Record<string, unknown>) =>
    ({
      apiVersion: 'v1',
      kind: 'ReplicationController',
      metadata: { name: 'x', namespace: 'default' },
      spec,
    }) as KubeObject;

  test('the selector is a map whose keys and values go unchecked: only the template is refused', () => {
    const { errors } = created(
      controllers,
      controller({ selector: { a: '-b-', '-k-': 'v' }, template: BAD_TEMPLATE }),
      {},
    );
    expect(errors).toEqual([NO_MATCH, CONTAINER_NAME, RESTART_POLICY]);
  });

  test('an update is checked twice, as the reference checks it', () => {
    const stored = created(controllers, controller({ selector: { a: 'b' }, template: TEMPLATE }), {}).object;
    const update = updated(
      controllers,
      stored,
      (next) => ((next.spec as Record<string, unknown>).template = BAD_TEMPLATE),
      {},
    );
    expect(update.errors).toEqual([CONTAINER_NAME, RESTART_POLICY, CONTAINER_NAME, RESTART_POLICY]);
  });
});
