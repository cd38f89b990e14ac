/**
 * The pod fields of the gates off by default in 1.34, as a 1.34.4 kube-apiserver treated them:
 * pods created with the gates on, the server restarted on the same etcd with its defaults, then
 * new pods created and the old ones updated. New pods lost the gated fields (an image volume
 * took its mounts with it; a projected source, a lifecycle with other handlers and a sidecar's
 * `restartPolicy: Always` stayed); updates of the pods that had them kept them; device health
 * in a container status was dropped whatever the stored pod had. Pod templates of every
 * workload kind lose the same fields.
 */
import type { KubeObject } from '../../../../api/objects';
import { created, typeOf, updated } from './write-path';

const GATES = [
  'ClusterTrustBundleProjection',
  'ContainerRestartRules',
  'ContainerStopSignals',
  'DRAExtendedResource',
  'EnvFiles',
  'HostnameOverride',
  'ImageVolume',
  'PodCertificateRequest',
  'ResourceHealthStatus',
];
const ON = Object.fromEntries(GATES.map((gate) => [gate, true]));
const OFF = Object.fromEntries(GATES.map((gate) => [gate, false]));

type Json = Record<string, any>;

const pods = typeOf('', 'pods');

function pod(spec: Json): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns' }, spec } as KubeObject;
}

const container = (extra: Json = {}) => ({ name: 'c', image: 'busybox', ...extra });
const RULES = [{ action: 'Restart', exitCodes: { operator: 'In', values: [42] } }];
const touch = (next: KubeObject) => (next.metadata.labels = { touched: 'yes' });
const deployments = typeOf('apps', 'deployments');

/** A Deployment running `spec`, its template labelled to match, with the template annotations given. */
function deploymentOf(spec: Json, annotations?: Record<string, string>): KubeObject {
  const labels = { a: 'b' };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd', namespace: 'ns' },
    spec: { selector: { matchLabels: labels }, template: { metadata: { labels, annotations }, spec } },
  } as KubeObject;
}

/** The stored pod's spec, with the gates on, then off (create), then an update under off of the one made under on. */
function threeWays(spec: Json): { on: Json; off: Json; kept: Json } {
  const on = created(pods, pod(spec), ON);
  expect(on.errors).toEqual([]);
  const off = created(pods, pod(spec), OFF);
  expect(off.errors).toEqual([]);
  const kept = updated(pods, on.object, touch, OFF);
  expect(kept.errors).toEqual([]);
  return { on: on.object.spec as Json, off: off.object.spec as Json, kept: kept.object.spec as Json };
}

test('ContainerRestartRules: container policies and rules go; a sidecar keeps Always', () => {
  const spec = {
    initContainers: [
      { name: 'i', image: 'busybox', restartPolicy: 'Never', restartPolicyRules: RULES },
      { name: 's', image: 'busybox', restartPolicy: 'Always' },
    ],
    containers: [container({ restartPolicy: 'Never', restartPolicyRules: RULES })],
  };
  const { on, off, kept } = threeWays(spec);
  for (const stored of [on, kept]) {
    expect(stored.initContainers[0]).toMatchObject({ restartPolicy: 'Never', restartPolicyRules: RULES });
    expect(stored.containers[0]).toMatchObject({ restartPolicy: 'Never', restartPolicyRules: RULES });
  }
  expect(off.initContainers[0]).not.toHaveProperty('restartPolicy');
  expect(off.initContainers[0]).not.toHaveProperty('restartPolicyRules');
  expect(off.initContainers[1].restartPolicy).toBe('Always');
  expect(off.containers[0]).not.toHaveProperty('restartPolicy');
  expect(off.containers[0]).not.toHaveProperty('restartPolicyRules');

  // A regular container's policy alone is a use of the fields.
  const policyOnly = threeWays({ containers: [container({ restartPolicy: 'Always' })] });
  expect(policyOnly.off.containers[0]).not.toHaveProperty('restartPolicy');
  expect(policyOnly.kept.containers[0].restartPolicy).toBe('Always');
});

test('ContainerStopSignals: the signal goes, and a lifecycle left empty with it', () => {
  const preStop = { exec: { command: ['x'] } };
  const { on, off, kept } = threeWays({
    os: { name: 'linux' },
    containers: [
      container({ lifecycle: { stopSignal: 'SIGUSR1' } }),
      container({ name: 'd', lifecycle: { stopSignal: 'SIGUSR1', preStop } }),
    ],
  });
  for (const stored of [on, kept]) {
    expect(stored.containers[0].lifecycle).toEqual({ stopSignal: 'SIGUSR1' });
    expect(stored.containers[1].lifecycle).toEqual({ stopSignal: 'SIGUSR1', preStop });
  }
  expect(off.containers[0]).not.toHaveProperty('lifecycle');
  expect(off.containers[1].lifecycle).toEqual({ preStop });
});

test('HostnameOverride: dropped from a new pod, kept by one that has it', () => {
  const { on, off, kept } = threeWays({ hostnameOverride: 'my-host', containers: [container()] });
  expect(on.hostnameOverride).toBe('my-host');
  expect(kept.hostnameOverride).toBe('my-host');
  expect(off).not.toHaveProperty('hostnameOverride');

  // An update adding it to a pod without it is accepted without it.
  const plain = created(pods, pod({ containers: [container()] }), OFF).object;
  const late = updated(pods, plain, (next) => ((next.spec as Json).hostnameOverride = 'late'), OFF);
  expect(late.errors).toEqual([]);
  expect(late.object.spec).not.toHaveProperty('hostnameOverride');
  // Dropped before generation is counted: nothing changed.
  expect(late.object.metadata.generation).toBe(1);
});

/**
 * EnvFiles: a variable read from a file loses its only source, and the emptied `valueFrom` is
 * refused; the message names `fileKeyRef` only where the gate is on or the stored spec reads a
 * file (kube-apiserver 1.34.4, gate on and off, gave each text below).
 */
describe('EnvFiles', () => {
  const FILE = { fileKeyRef: { volumeName: 'cfg', path: 'env', key: 'K' } };
  const CONFIG_MAP = { configMapKeyRef: { name: 'cm', key: 'k' } };
  const withEnv = (...env: Json[]) => ({
    volumes: [{ name: 'cfg', emptyDir: {} }],
    containers: [container({ env })],
  });
  const SHORT = 'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`';
  const LONG = 'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef`, `secretKeyRef` or `fileKeyRef`';
  const at = (index: number) => `spec.containers[0].env[${index}].valueFrom: Invalid value: ""`;

  test('on: kept; off: dropped and refused; an update of a pod that reads a file keeps it', () => {
    const on = created(pods, pod(withEnv({ name: 'F', valueFrom: FILE })), ON);
    expect(on.errors).toEqual([]);
    expect((on.object.spec as Json).containers[0].env[0].valueFrom.fileKeyRef).toMatchObject(FILE.fileKeyRef);
    expect(created(pods, pod(withEnv({ name: 'F', valueFrom: FILE })), OFF).errors).toEqual([`${at(0)}: ${SHORT}`]);
    const kept = updated(pods, on.object, touch, OFF);
    expect(kept.errors).toEqual([]);
    expect(kept.object.spec).toEqual(on.object.spec);
  });

  test('off: a second source left beside a file is accepted alone', () => {
    const { object, errors } = created(pods, pod(withEnv({ name: 'F', valueFrom: { ...CONFIG_MAP, ...FILE } })), OFF);
    expect(errors).toEqual([]);
    expect((object.spec as Json).containers[0].env[0].valueFrom).toEqual(CONFIG_MAP);
  });

  test('valueFrom names exactly one source, and then no value', () => {
    const errorsOf = (env: Json, gates: Record<string, boolean>) => created(pods, pod(withEnv(env)), gates).errors;
    expect(errorsOf({ name: 'F', valueFrom: {} }, ON)).toEqual([`${at(0)}: ${LONG}`]);
    expect(errorsOf({ name: 'F', valueFrom: {} }, OFF)).toEqual([`${at(0)}: ${SHORT}`]);
    expect(errorsOf({ name: 'F', value: 'x', valueFrom: CONFIG_MAP }, OFF)).toEqual([
      `${at(0)}: may not be specified when \`value\` is not empty`,
    ]);
    expect(errorsOf({ name: 'F', valueFrom: { ...CONFIG_MAP, ...FILE } }, ON)).toEqual([
      `${at(0)}: may not have more than one field specified at a time`,
    ]);
  });

  test('a Deployment: refused under off, and the stored template that reads a file widens the message', () => {
    const deployment = (env: Json[]) => deploymentOf(withEnv(...env));
    const path = (index: number) => `spec.template.${at(index)}`;
    expect(created(deployments, deployment([{ name: 'F', valueFrom: FILE }]), OFF).errors).toEqual([
      `${path(0)}: ${SHORT}`,
    ]);
    const stored = created(deployments, deployment([{ name: 'F', valueFrom: FILE }]), ON).object;
    const emptied = updated(
      deployments,
      stored,
      (next) => (next.spec as Json).template.spec.containers[0].env.push({ name: 'G', valueFrom: {} }),
      OFF,
    );
    expect(emptied.errors).toEqual([`${path(1)}: ${LONG}`]);
  });
});

test('ImageVolume: an image volume goes with every mount of it', () => {
  const imageVolume = { name: 'img', image: { reference: 'busybox:1', pullPolicy: 'IfNotPresent' } };
  const { on, off, kept } = threeWays({
    volumes: [imageVolume, { name: 'e', emptyDir: {} }],
    containers: [
      container({
        volumeMounts: [
          { name: 'img', mountPath: '/img' },
          { name: 'e', mountPath: '/e' },
        ],
      }),
      container({ name: 'd', volumeMounts: [{ name: 'img', mountPath: '/img' }] }),
    ],
  });
  for (const stored of [on, kept]) {
    expect(stored.volumes[0]).toEqual(imageVolume);
    expect(stored.containers[0].volumeMounts.map((mount: Json) => mount.name)).toEqual(['img', 'e']);
  }
  expect(off.volumes).toEqual([{ name: 'e', emptyDir: {} }]);
  expect(off.containers[0].volumeMounts.map((mount: Json) => mount.name)).toEqual(['e']);
  expect(off.containers[1]).not.toHaveProperty('volumeMounts');
});

test.each([
  ['ClusterTrustBundleProjection', { clusterTrustBundle: { name: 'b', path: 'ctb.pem' } }],
  [
    'PodCertificateRequest',
    { podCertificate: { signerName: 'example.com/s', keyType: 'ED25519', credentialBundlePath: 'cred.pem' } },
  ],
])('%s: the projected source is emptied and stays', (_gate, source) => {
  const { on, off, kept } = threeWays({
    volumes: [{ name: 'p', projected: { sources: [source, { configMap: { name: 'cm' } }] } }],
    containers: [container()],
  });
  expect(on.volumes[0].projected.sources).toEqual([source, { configMap: { name: 'cm' } }]);
  expect(kept.volumes[0].projected.sources).toEqual([source, { configMap: { name: 'cm' } }]);
  expect(off.volumes[0].projected.sources).toEqual([{}, { configMap: { name: 'cm' } }]);
});

describe('pod status', () => {
  const gpu = { limits: { 'example.com/gpu': '1' }, requests: { 'example.com/gpu': '1' } };
  const health = [{ name: 'example.com/gpu', resources: [{ resourceID: 'r1', health: 'Healthy' }] }];
  const claimStatus = {
    resourceClaimName: 'rc',
    requestMappings: [{ containerName: 'c', resourceName: 'example.com/gpu', requestName: 'container-0-request-0' }],
  };
  const report = (status: Json) => (next: KubeObject) =>
    (next.status = {
      ...status,
      containerStatuses: [
        {
          name: 'c',
          image: 'busybox',
          imageID: '',
          ready: false,
          restartCount: 0,
          state: { waiting: {} },
          allocatedResourcesStatus: health,
        },
      ],
      extendedResourceClaimStatus: claimStatus,
    });

  test('on: device health and the extended-resource claim are kept', () => {
    const stored = created(pods, pod({ containers: [container({ resources: gpu })] }), ON).object;
    const written = updated(pods, stored, report(stored.status as Json), ON, 'status').object.status as Json;
    expect(written.containerStatuses[0].allocatedResourcesStatus).toEqual(health);
    expect(written.extendedResourceClaimStatus).toEqual(claimStatus);
  });

  test('off: both are dropped from a pod without them', () => {
    const stored = created(pods, pod({ containers: [container({ resources: gpu })] }), OFF).object;
    const written = updated(pods, stored, report(stored.status as Json), OFF, 'status').object.status as Json;
    expect(written.containerStatuses[0]).not.toHaveProperty('allocatedResourcesStatus');
    expect(written).not.toHaveProperty('extendedResourceClaimStatus');
  });

  test('off: a pod that has them keeps its claim status, never its device health', () => {
    const stored = created(pods, pod({ containers: [container({ resources: gpu })] }), ON).object;
    const reported = updated(pods, stored, report(stored.status as Json), ON, 'status').object;
    const relabelled = updated(pods, reported, touch, OFF).object.status as Json;
    expect(relabelled.containerStatuses[0]).not.toHaveProperty('allocatedResourcesStatus');
    expect(relabelled.extendedResourceClaimStatus).toEqual(claimStatus);
    const rereported = updated(pods, reported, report(reported.status as Json), OFF, 'status').object.status as Json;
    expect(rereported.containerStatuses[0]).not.toHaveProperty('allocatedResourcesStatus');
    expect(rereported.extendedResourceClaimStatus).toEqual(claimStatus);
  });
});

describe('pod templates', () => {
  const template = {
    metadata: { labels: { a: 'b' } },
    spec: { hostnameOverride: 'my-host', containers: [container()] },
  };
  const jobTemplate = { ...template, spec: { ...template.spec, restartPolicy: 'Never' } };
  const selector = { matchLabels: { a: 'b' } };
  const kinds: [string, string, string, Json, (object: Json) => Json][] = [
    ['Deployment', 'apps', 'deployments', { spec: { selector, template } }, (o) => o.spec.template.spec],
    ['ReplicaSet', 'apps', 'replicasets', { spec: { selector, template } }, (o) => o.spec.template.spec],
    [
      'StatefulSet',
      'apps',
      'statefulsets',
      { spec: { selector, serviceName: 's', template } },
      (o) => o.spec.template.spec,
    ],
    ['DaemonSet', 'apps', 'daemonsets', { spec: { selector, template } }, (o) => o.spec.template.spec],
    ['Job', 'batch', 'jobs', { spec: { template: jobTemplate } }, (o) => o.spec.template.spec],
    [
      'CronJob',
      'batch',
      'cronjobs',
      { spec: { schedule: '* * * * *', jobTemplate: { spec: { template: jobTemplate } } } },
      (o) => o.spec.jobTemplate.spec.template.spec,
    ],
    ['PodTemplate', '', 'podtemplates', { template }, (o) => o.template.spec],
    [
      'ReplicationController',
      '',
      'replicationcontrollers',
      { spec: { selector: { a: 'b' }, template } },
      (o) => o.spec.template.spec,
    ],
  ];

  test.each(kinds)(
    '%s: off drops the field on create; an update keeps it where it is',
    (kind, group, resource, body, specOf) => {
      const type = typeOf(group, resource);
      const sent = {
        apiVersion: group === '' ? 'v1' : `${group}/v1`,
        kind,
        metadata: { name: 'w', namespace: 'ns' },
        ...body,
      } as KubeObject;
      const off = created(type, sent, OFF);
      expect(off.errors).toEqual([]);
      expect(specOf(off.object as Json)).not.toHaveProperty('hostnameOverride');
      const on = created(type, sent, ON);
      expect(on.errors).toEqual([]);
      expect(specOf(on.object as Json).hostnameOverride).toBe('my-host');
      // An update that only adds the field under off changes nothing: generation stays.
      const added = updated(type, off.object, (next) => (specOf(next as Json).hostnameOverride = 'late'), OFF);
      expect(added.errors).toEqual([]);
      expect(added.object.metadata.generation).toBe(off.object.metadata.generation);
      const kept = updated(type, on.object, touch, OFF);
      expect(kept.errors).toEqual([]);
      expect(specOf(kept.object as Json).hostnameOverride).toBe('my-host');
    },
  );
});

/**
 * The gates on by default, turned off: kube-apiserver 1.34.4 started with its defaults took a
 * pod using every field, then restarted with the nine gates off on the same etcd took the same
 * pod anew and a status write to each. The new pod lost the fields (a procMount became
 * `Default`: the reference never clears it), its status write lost the container statuses'
 * resources, allocated resources and user, the claim statuses and every observedGeneration;
 * the first pod kept them all through a relabelling and a status write. A Deployment's
 * template lost the same fields.
 */
describe('gates on by default, turned off', () => {
  const DEFAULT_ON = [
    'UserNamespacesSupport',
    'SupplementalGroupsPolicy',
    'PodLevelResources',
    'ProcMountType',
    'MatchLabelKeysInPodTopologySpread',
    'DynamicResourceAllocation',
    'InPlacePodVerticalScaling',
    'SELinuxChangePolicy',
    'PodObservedGenerationTracking',
  ];
  const TURNED_OFF = Object.fromEntries(DEFAULT_ON.map((gate) => [gate, false]));
  const constraint = {
    maxSkew: 1,
    topologyKey: 'zone',
    whenUnsatisfiable: 'DoNotSchedule',
    labelSelector: { matchLabels: { app: 'a' } },
  };
  const spec = {
    hostUsers: false,
    securityContext: { supplementalGroupsPolicy: 'Strict', seLinuxChangePolicy: 'Recursive' },
    resources: { limits: { cpu: '1' }, requests: { cpu: '1' } },
    resourceClaims: [{ name: 'gpu', resourceClaimName: 'rc' }],
    topologySpreadConstraints: [{ ...constraint, matchLabelKeys: ['absent-key'] }],
    containers: [
      container({
        securityContext: { procMount: 'Unmasked' },
        resizePolicy: [{ resourceName: 'cpu', restartPolicy: 'NotRequired' }],
        resources: { claims: [{ name: 'gpu' }] },
      }),
    ],
  };
  const status = {
    phase: 'Pending',
    observedGeneration: 1,
    conditions: [{ type: 'Ready', status: 'False', observedGeneration: 1 }],
    resourceClaimStatuses: [{ name: 'gpu', resourceClaimName: 'rc' }],
    containerStatuses: [
      {
        name: 'c',
        image: 'busybox',
        imageID: '',
        ready: false,
        restartCount: 0,
        state: { waiting: {} },
        resources: { limits: { cpu: '1' } },
        allocatedResources: { cpu: '1' },
        user: { linux: { uid: 0, gid: 0 } },
      },
    ],
  };
  const report = (next: KubeObject) => (next.status = structuredClone(status));

  function expectNone(stored: Json) {
    expect(stored).not.toHaveProperty('hostUsers');
    expect(stored.securityContext).toEqual({});
    expect(stored).not.toHaveProperty('resources');
    expect(stored).not.toHaveProperty('resourceClaims');
    expect(stored.topologySpreadConstraints).toEqual([constraint]);
    expect(stored.containers[0].securityContext).toEqual({ procMount: 'Default' });
    expect(stored.containers[0]).not.toHaveProperty('resizePolicy');
    expect(stored.containers[0].resources).toEqual({});
  }

  function expectAll(stored: Json) {
    expect(stored).toMatchObject(spec);
  }

  test('a new pod and its status writes lose them', () => {
    const off = created(pods, pod(spec), TURNED_OFF);
    expect(off.errors).toEqual([]);
    expectNone(off.object.spec as Json);
    const written = updated(pods, off.object, report, TURNED_OFF, 'status').object.status as Json;
    expect(written).not.toHaveProperty('observedGeneration');
    expect(written).not.toHaveProperty('resourceClaimStatuses');
    expect(written.conditions).toEqual([{ type: 'Ready', status: 'False' }]);
    for (const field of ['resources', 'allocatedResources', 'user'])
      expect(written.containerStatuses[0]).not.toHaveProperty(field);
  });

  test('a pod that has them keeps them through updates and status writes', () => {
    const on = created(pods, pod(spec), {});
    expect(on.errors).toEqual([]);
    expectAll(on.object.spec as Json);
    const reported = updated(pods, on.object, report, {}, 'status').object;
    expect(reported.status).toMatchObject(status);
    const relabelled = updated(pods, reported, touch, TURNED_OFF);
    expect(relabelled.errors).toEqual([]);
    expectAll(relabelled.object.spec as Json);
    expect(relabelled.object.status).toMatchObject(status);
    expect(updated(pods, reported, report, TURNED_OFF, 'status').object.status).toMatchObject(status);
  });

  test('a Deployment template loses them', () => {
    const deployment = deploymentOf(spec);
    const off = created(deployments, deployment, TURNED_OFF);
    expect(off.errors).toEqual([]);
    expectNone((off.object.spec as Json).template.spec);
  });
});

/**
 * SELinuxMount, off by default, is a validation option: a new pod may then ask only for the
 * `Recursive` SELinux change policy, while a stored pod that sets one may keep any valid one.
 * kube-apiserver 1.34.4 with SELinuxMount on, then off over the same etcd, gave each text below.
 */
describe('SELinuxMount', () => {
  const withPolicy = (seLinuxChangePolicy: string) =>
    pod({ securityContext: { seLinuxChangePolicy }, containers: [container()] });
  const at = 'spec.securityContext.seLinuxChangePolicy';

  test('off: a new pod may ask only for Recursive', () => {
    expect(created(pods, withPolicy('MountOption'), {}).errors).toEqual([
      `${at}: Unsupported value: "MountOption": supported values: "Recursive"`,
    ]);
    expect(created(pods, withPolicy('Bogus'), {}).errors).toEqual([
      `${at}: Unsupported value: "Bogus": supported values: "Recursive"`,
    ]);
    expect(created(pods, withPolicy('Recursive'), {}).errors).toEqual([]);
  });

  test('on: any valid policy; off: a pod that has one keeps it', () => {
    const on = created(pods, withPolicy('MountOption'), { SELinuxMount: true });
    expect(on.errors).toEqual([]);
    expect(created(pods, withPolicy('Bogus'), { SELinuxMount: true }).errors).toEqual([
      `${at}: Unsupported value: "Bogus": supported values: "MountOption", "Recursive"`,
    ]);
    expect(updated(pods, on.object, touch, {}).errors).toEqual([]);
  });

  test('a Deployment template under off', () => {
    const deployment = deploymentOf(withPolicy('MountOption').spec as Json);
    expect(created(deployments, deployment, {}).errors).toEqual([
      `spec.template.${at}: Unsupported value: "MountOption": supported values: "Recursive"`,
    ]);
    const stored = created(deployments, deployment, { SELinuxMount: true }).object;
    const bogus = updated(
      deployments,
      stored,
      (next) => ((next.spec as Json).template.spec.securityContext.seLinuxChangePolicy = 'Bogus'),
      {},
    );
    expect(bogus.errors).toEqual([
      `spec.template.${at}: Unsupported value: "Bogus": supported values: "MountOption", "Recursive"`,
    ]);
  });
});

/**
 * PodDeletionCost, on by default, is a validation option: the pod-deletion-cost annotation must
 * be a 32-bit integer without a plus sign or leading zeros, unless the gate is off or the stored
 * pod's is already invalid. kube-apiserver 1.34.4 with the gate off, then on over the same
 * etcd, gave each answer below.
 */
describe('PodDeletionCost', () => {
  const KEY = 'controller.kubernetes.io/pod-deletion-cost';
  const costly = (cost: string) =>
    ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: 'ns', annotations: { [KEY]: cost } },
      spec: { containers: [container()] },
    }) as KubeObject;
  const refusal = (path: string, cost: string) => `${path}[${KEY}]: Invalid value: "${cost}": must be a 32bit integer`;

  test.each(['abc', '+1', '007', '2147483648', '', '1_0'])('on: %j is refused', (cost) => {
    expect(created(pods, costly(cost), {}).errors).toEqual([refusal('metadata.annotations', cost)]);
  });

  test.each(['-2147483648', '0', '-0', '-007'])('on: %j is a cost', (cost) => {
    expect(created(pods, costly(cost), {}).errors).toEqual([]);
  });

  test('off: anything; on: a pod stored with an invalid cost may change it to another', () => {
    const stored = created(pods, costly('abc'), { PodDeletionCost: false });
    expect(stored.errors).toEqual([]);
    const changed = updated(pods, stored.object, (next) => (next.metadata.annotations = { [KEY]: 'def' }), {});
    expect(changed.errors).toEqual([]);
  });

  test("a template's cost is checked where the reference names it", () => {
    const deployment = deploymentOf({ containers: [container()] }, { [KEY]: 'abc' });
    expect(created(deployments, deployment, {}).errors).toEqual([refusal('spec.template.annotations', 'abc')]);
    const stored = created(deployments, deployment, { PodDeletionCost: false });
    expect(stored.errors).toEqual([]);
    const retagged = updated(
      deployments,
      stored.object,
      (next) => ((next.spec as Json).template.spec.containers[0].image = 'busybox:2'),
      {},
    );
    expect(retagged.errors).toEqual([]);
  });
});
