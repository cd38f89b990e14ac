/**
 * A pod spec's `affinity` in every kind that holds one, against what kube-apiserver 1.34.4
 * answered (fixtures/affinity-validation.json: each create's object, code and causes; each
 * update's stored object, written straight into the reference's etcd, the affinity and labels
 * the update sent, and the answer). Stored invalid label values are spared on update: those of
 * pod (anti-)affinity selectors and those of required node affinity, each on its own.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject } from '../../../api/objects';
import { created, typeOf, updated } from './gated-fields/write-path';

interface Answer {
  readonly code: number;
  readonly causes: readonly string[];
}

interface Recorded {
  readonly creates: Readonly<Record<string, Answer & { readonly object: KubeObject }>>;
  readonly updates: Readonly<
    Record<
      string,
      Answer & { readonly stored: KubeObject; readonly affinity: unknown; readonly labels?: Record<string, string> }
    >
  >;
}

const recorded: Recorded = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'affinity-validation.json'), 'utf8'));

/** Where each kind keeps its resource and its pod spec. */
const KINDS: Readonly<
  Record<string, { group: string; resource: string; podSpec: (object: KubeObject) => { affinity?: unknown } }>
> = {
  Pod: { group: '', resource: 'pods', podSpec: (o) => o.spec as object },
  PodTemplate: { group: '', resource: 'podtemplates', podSpec: (o) => (o.template as { spec: object }).spec },
  ReplicationController: { group: '', resource: 'replicationcontrollers', podSpec: templateSpec },
  ReplicaSet: { group: 'apps', resource: 'replicasets', podSpec: templateSpec },
  Deployment: { group: 'apps', resource: 'deployments', podSpec: templateSpec },
  StatefulSet: { group: 'apps', resource: 'statefulsets', podSpec: templateSpec },
  DaemonSet: { group: 'apps', resource: 'daemonsets', podSpec: templateSpec },
  Job: { group: 'batch', resource: 'jobs', podSpec: templateSpec },
  CronJob: {
    group: 'batch',
    resource: 'cronjobs',
    podSpec: (o) =>
      (o.spec as { jobTemplate: { spec: { template: { spec: object } } } }).jobTemplate.spec.template.spec,
  },
};

function templateSpec(object: KubeObject): { affinity?: unknown } {
  return (object.spec as { template: { spec: object } }).template.spec;
}

function kindOf(object: KubeObject) {
  const kind = KINDS[object.kind ?? ''];
  if (kind === undefined) throw new Error(`no pod spec known in a ${object.kind}`);
  return kind;
}

function inDefault(object: KubeObject): KubeObject {
  return { ...object, metadata: { ...object.metadata, namespace: 'default' } };
}

const causesOf = ({ code, causes }: Answer) => (code < 300 ? [] : causes);

test('every kind with a pod template is covered', () => {
  const kinds = new Set(Object.values(recorded.creates).map(({ object }) => object.kind));
  expect([...kinds].sort()).toEqual(Object.keys(KINDS).sort());
});

test.each(Object.entries(recorded.creates))('create %s', (_id, answer) => {
  const { group, resource } = kindOf(answer.object);
  expect(created(typeOf(group, resource), inDefault(answer.object), {}).errors).toEqual(causesOf(answer));
});

test.each(Object.entries(recorded.updates))('update %s', (_id, answer) => {
  const { group, resource, podSpec } = kindOf(answer.stored);
  const type = typeOf(group, resource);
  const stored = created(type, inDefault(answer.stored), {}).object;
  const update = updated(
    type,
    stored,
    (next) => {
      podSpec(next).affinity = structuredClone(answer.affinity);
      if (answer.labels !== undefined) next.metadata.labels = answer.labels;
    },
    {},
  );
  expect(update.errors).toEqual(causesOf(answer));
});
