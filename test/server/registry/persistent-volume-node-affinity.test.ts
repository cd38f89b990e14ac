/**
 * A PersistentVolume's node affinity, as kube-apiserver 1.34.4 checked it (its answers written
 * beside each case): a required node selector with the pod node selectors' rules, and a local
 * volume must have one. An update spares invalid label values the stored volume already has
 * (the reference accepted a label change of such a volume written straight into its etcd).
 */
import type { KubeObject } from '../../../api/objects';
import { created, typeOf, updated } from './gated-fields/write-path';

const LABEL_VALUE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const TERMS = 'spec.nodeAffinity.required.nodeSelectorTerms';
const volumes = typeOf('', 'persistentvolumes');
const volume = (spec: object) =>
  ({
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: 'pv' },
    spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/pv' }, ...spec },
  }) as KubeObject;
const terms = (...nodeSelectorTerms: object[]) => ({ required: { nodeSelectorTerms } });
const local = { hostPath: undefined, local: { path: '/mnt/disk' } };

test.each([
  [
    'a node affinity without its required selector',
    volume({ nodeAffinity: {} }),
    ['spec.nodeAffinity.required: Required value: must specify required node constraints'],
  ],
  [
    'a selector without terms',
    volume({ nodeAffinity: terms() }),
    [`${TERMS}: Required value: must have at least one node selector term`],
  ],
  [
    'requirements of every kind wrong',
    volume({
      nodeAffinity: terms({
        matchExpressions: [{ key: 'zone', operator: 'Near', values: ['-bad-'] }],
        matchFields: [{ key: 'metadata.name', operator: 'In', values: ['a', 'b'] }],
      }),
    }),
    [
      `${TERMS}[0].matchExpressions[0].operator: Invalid value: "Near": not a valid selector operator`,
      `${TERMS}[0].matchExpressions[0].values[0]: Invalid value: "-bad-": ${LABEL_VALUE}`,
      `${TERMS}[0].matchFields[0].values: Required value: must be only one value when \`operator\` is 'In' or 'NotIn' for node field selector`,
    ],
  ],
  [
    'a local volume without node affinity',
    volume(local),
    ['spec.nodeAffinity: Required value: Local volume requires node affinity'],
  ],
  [
    'a local volume with node affinity',
    volume({
      ...local,
      nodeAffinity: terms({ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['n'] }] }),
    }),
    [],
  ],
])('create: %s', (_name, object, errors) => {
  expect(created(volumes, object, {}).errors).toEqual(errors);
});

test('a stored invalid label value is spared by an update', () => {
  const affinity = terms({ matchExpressions: [{ key: 'zone', operator: 'In', values: ['-bad-'] }] });
  const stored = created(volumes, volume({ nodeAffinity: affinity }), {}).object;
  expect(updated(volumes, stored, (next) => (next.metadata.labels = { changed: 'yes' }), {}).errors).toEqual([]);
});
