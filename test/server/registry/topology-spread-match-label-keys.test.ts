/**
 * A topology spread constraint's matchLabelKeys, as kube-apiserver 1.34.4 checked them (its
 * answers written beside each case). With the selector merge on (MatchLabelKeysInPodTopologySpread
 * and ...SelectorMerge, both on by default), a new pod's selector has been given an `In`
 * requirement per key it has a label of, and a key the selector already selects on shows up
 * twice: refused at the constraint's path indexed by the key. A template gets no merge. A stored
 * spec that breaks that rule has its update checked by the legacy one instead (a key may not be
 * selected on at all), as the reference's OldPodViolatesMatchLabelKeysValidation does; the
 * reference refused both updates below, the stored object written straight into its etcd.
 */
import type { KubeObject } from '../../../api/objects';
import { created, typeOf, updated } from './gated-fields/write-path';

const NAME_PART =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const spread = (extra: object) => [{ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', ...extra }];
const inMatchLabels = { labelSelector: { matchLabels: { app: 'a' } }, matchLabelKeys: ['app'] };
const selectedTwice = {
  labelSelector: { matchLabels: { app: 'a' }, matchExpressions: [{ key: 'app', operator: 'Exists' }] },
  matchLabelKeys: ['app'],
};

const pods = typeOf('', 'pods');
const deployments = typeOf('apps', 'deployments');
const pod = (extra: object, labels?: Record<string, string>) =>
  ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 't', namespace: 'default', labels },
    spec: { containers: [{ name: 'c', image: 'nginx' }], topologySpreadConstraints: spread(extra) },
  }) as KubeObject;
const deployment = (extra: object) =>
  ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 't', namespace: 'default' },
    spec: {
      selector: { matchLabels: { app: 'a' } },
      template: {
        metadata: { labels: { app: 'a' } },
        spec: { containers: [{ name: 'c', image: 'nginx' }], topologySpreadConstraints: spread(extra) },
      },
    },
  }) as KubeObject;

test.each([
  [
    'a pod with a label of a key its selector selects on',
    pod({ labelSelector: { matchLabels: { app: 'a' } }, matchLabelKeys: ['x', 'app'] }, { app: 'b', x: 'y' }),
    ['spec.topologySpreadConstraints[0][1]: Invalid value: "app": exists in both matchLabelKeys and labelSelector'],
  ],
  ['a pod without that label', pod(inMatchLabels), []],
  [
    'keys without a selector',
    pod({ matchLabelKeys: ['a'] }),
    [
      'spec.topologySpreadConstraints[0].matchLabelKeys: Forbidden: must not be specified when labelSelector is not set',
    ],
  ],
  [
    'a key that is no label key',
    pod({ labelSelector: { matchLabels: { app: 'a' } }, matchLabelKeys: ['bad key'] }),
    [`spec.topologySpreadConstraints[0].matchLabelKeys[0]: Invalid value: "bad key": ${NAME_PART}`],
  ],
  ['a template whose selector has the key in matchLabels', deployment(inMatchLabels), []],
  [
    'a template whose selector selects on the key twice',
    deployment(selectedTwice),
    [
      'spec.template.spec.topologySpreadConstraints[0][0]: Invalid value: "app": exists in both matchLabelKeys and labelSelector',
    ],
  ],
])('create: %s', (_name, object, errors) => {
  const type = object.kind === 'Pod' ? pods : deployments;
  expect(created(type, object, {}).errors).toEqual(errors);
});

const LEGACY_REFUSAL =
  'spec.template.spec.topologySpreadConstraints[0].matchLabelKeys[0]: Invalid value: "app": exists in both matchLabelKeys and labelSelector';

test.each([
  ['a new label', (next: KubeObject) => (next.metadata.labels = { x: 'y' })],
  [
    'the selector made one the merged rule accepts',
    (next: KubeObject) => {
      const template = (next.spec as { template: { spec: Record<string, unknown> } }).template;
      template.spec.topologySpreadConstraints = spread(inMatchLabels);
    },
  ],
])('update of a stored template that breaks the merged rule, %s: the legacy rule refuses it', (_name, change) => {
  const stored = created(deployments, deployment(selectedTwice), {}).object;
  expect(updated(deployments, stored, change, {}).errors).toEqual([LEGACY_REFUSAL]);
});

describe('without the selector merge (asked of a reference started with it off)', () => {
  const gates = { MatchLabelKeysInPodTopologySpreadSelectorMerge: false };

  test('a template: a key its selector selects on is refused', () => {
    expect(created(deployments, deployment(inMatchLabels), gates).errors).toEqual([LEGACY_REFUSAL]);
  });

  test('a pod: its selector is not given the requirement, and the key is refused where it is', () => {
    const labelled = pod(
      { labelSelector: { matchLabels: { app: 'a' } }, matchLabelKeys: ['x', 'app'] },
      { app: 'b', x: 'y' },
    );
    expect(created(pods, labelled, gates).errors).toEqual([
      'spec.topologySpreadConstraints[0].matchLabelKeys[1]: Invalid value: "app": exists in both matchLabelKeys and labelSelector',
    ]);
  });
});
