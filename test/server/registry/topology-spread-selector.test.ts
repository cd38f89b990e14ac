/**
 * A topology spread constraint's labelSelector is checked strictly, values of expressions
 * included: kube-apiserver 1.34.4 refused these pods and Deployments with these causes. A
 * stored spec with an invalid one leaves every such selector of an update unchecked, as the
 * reference's AllowInvalidTopologySpreadConstraintLabelSelector (set from the old pod spec, or
 * the old template's for a PodTemplate) does.
 */
import type { KubeObject } from '../../../api/objects';
import { created, typeOf, updated } from './gated-fields/write-path';

const LABEL_VALUE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const BAD_VALUE = { matchLabels: { a: 'b' }, matchExpressions: [{ key: 'a', operator: 'In', values: ['b', '-bad-'] }] };
const spread = (labelSelector: unknown) => [
  { maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector },
];
const podSpec = (labelSelector: unknown) => ({
  containers: [{ name: 'c', image: 'i' }],
  topologySpreadConstraints: spread(labelSelector),
});

const pods = typeOf('', 'pods');
const deployments = typeOf('apps', 'deployments');
const pod = (labelSelector: unknown) =>
  ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'x', namespace: 'default' },
    spec: podSpec(labelSelector),
  }) as KubeObject;
const deployment = (labelSelector: unknown) =>
  ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'x', namespace: 'default' },
    spec: {
      selector: { matchLabels: { a: 'b' } },
      template: { metadata: { labels: { a: 'b' } }, spec: podSpec(labelSelector) },
    },
  }) as KubeObject;

test('a new pod with an invalid value', () => {
  expect(created(pods, pod(BAD_VALUE), {}).errors).toEqual([
    `spec.topologySpreadConstraints[0].labelSelector.matchExpressions[0].values[1]: Invalid value: "-bad-": ${LABEL_VALUE}`,
  ]);
});

test("a new Deployment with an invalid value in its template's constraint", () => {
  expect(created(deployments, deployment(BAD_VALUE), {}).errors).toEqual([
    `spec.template.spec.topologySpreadConstraints[0].labelSelector.matchExpressions[0].values[1]: Invalid value: "-bad-": ${LABEL_VALUE}`,
  ]);
});

test('a stored Deployment with an invalid one: its selectors go unchecked through an update', () => {
  const stored = created(deployments, deployment(BAD_VALUE), {}).object;
  const update = updated(deployments, stored, (next) => (next.metadata.labels = { x: 'y' }), {});
  expect(update.errors).toEqual([]);
});

test('a stored PodTemplate with an invalid one: its selectors go unchecked through an update', () => {
  const podTemplates = typeOf('', 'podtemplates');
  const template = {
    apiVersion: 'v1',
    kind: 'PodTemplate',
    metadata: { name: 'x', namespace: 'default' },
    template: { spec: podSpec(BAD_VALUE) },
  } as KubeObject;
  expect(created(podTemplates, template, {}).errors).toEqual([
    `template.spec.topologySpreadConstraints[0].labelSelector.matchExpressions[0].values[1]: Invalid value: "-bad-": ${LABEL_VALUE}`,
  ]);
  const stored = created(podTemplates, template, {}).object;
  expect(updated(podTemplates, stored, (next) => (next.metadata.labels = { x: 'y' }), {}).errors).toEqual([]);
});
