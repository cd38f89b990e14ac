/**
 * A new pod's label values merged into its scheduling selectors, as kube-apiserver 1.34.4
 * stored the same pod with its default gates and with MatchLabelKeysInPodTopologySpreadSelectorMerge
 * off: `matchLabelKeys` the pod has a label for become `In` requirements appended to the
 * selector (an absent key adds nothing), pod affinity's `mismatchLabelKeys` become `NotIn`
 * ones; turning the merge gate off leaves spread constraints alone but not affinity (its gate,
 * MatchLabelKeysInPodAffinity, is locked on); a Deployment's template is stored as sent, and
 * an update of the pod merges nothing more.
 */
import type { KubeObject } from '../../../api/objects';
import { created, typeOf, updated } from './gated-fields/write-path';

type Json = Record<string, any>;

const LABELS = { app: 'a', 'pod-template-hash': 'h1', tier: 'web' };
const constraintSelector = { matchLabels: { app: 'a' }, matchExpressions: [{ key: 'x', operator: 'Exists' }] };
const appSelector = { matchLabels: { app: 'a' } };
const spec = {
  containers: [{ name: 'c', image: 'busybox' }],
  topologySpreadConstraints: [
    {
      maxSkew: 1,
      topologyKey: 'zone',
      whenUnsatisfiable: 'DoNotSchedule',
      labelSelector: constraintSelector,
      matchLabelKeys: ['pod-template-hash', 'absent'],
    },
  ],
  affinity: {
    podAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: [
        {
          labelSelector: appSelector,
          topologyKey: 'zone',
          matchLabelKeys: ['pod-template-hash'],
          mismatchLabelKeys: ['tier'],
        },
      ],
    },
    podAntiAffinity: {
      preferredDuringSchedulingIgnoredDuringExecution: [
        {
          weight: 1,
          podAffinityTerm: { labelSelector: appSelector, topologyKey: 'host', matchLabelKeys: ['pod-template-hash'] },
        },
      ],
    },
  },
};
const HASH_IN = { key: 'pod-template-hash', operator: 'In', values: ['h1'] };
const TIER_NOT_IN = { key: 'tier', operator: 'NotIn', values: ['web'] };

const pods = typeOf('', 'pods');
/** As decoded from a request: no two fields share an object (structuredClone would keep them shared). */
function decoded<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

const pod = decoded({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'ns', labels: LABELS },
  spec,
}) as KubeObject;

function selectors(stored: KubeObject) {
  const storedSpec = stored.spec as Json;
  return {
    spread: storedSpec.topologySpreadConstraints[0].labelSelector,
    affinity: storedSpec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector,
    antiAffinity:
      storedSpec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm
        .labelSelector,
  };
}

const merged = {
  affinity: { ...appSelector, matchExpressions: [HASH_IN, TIER_NOT_IN] },
  antiAffinity: { ...appSelector, matchExpressions: [HASH_IN] },
};

test('default gates: every selector gets the pod values of its keys, once', () => {
  const { object, errors } = created(pods, pod, {});
  expect(errors).toEqual([]);
  expect(selectors(object)).toEqual({
    spread: { ...constraintSelector, matchExpressions: [...constraintSelector.matchExpressions, HASH_IN] },
    ...merged,
  });
  const relabelled = updated(pods, object, (next) => (next.metadata.labels = { ...LABELS, t: 'y' }), {});
  expect(selectors(relabelled.object)).toEqual(selectors(object));
});

test('MatchLabelKeysInPodTopologySpreadSelectorMerge off: spread constraints keep their selector', () => {
  const { object } = created(pods, pod, { MatchLabelKeysInPodTopologySpreadSelectorMerge: false });
  expect(selectors(object)).toEqual({ spread: constraintSelector, ...merged });
});

test('a pod template is stored as sent', () => {
  const deployment = decoded({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd', namespace: 'ns' },
    spec: { selector: appSelector, template: { metadata: { labels: LABELS }, spec } },
  }) as KubeObject;
  const { object, errors } = created(typeOf('apps', 'deployments'), deployment, {});
  expect(errors).toEqual([]);
  expect(selectors({ ...object, spec: (object.spec as Json).template.spec })).toEqual({
    spread: constraintSelector,
    affinity: appSelector,
    antiAffinity: appSelector,
  });
});
