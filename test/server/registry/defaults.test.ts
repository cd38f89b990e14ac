import type { KubeObject } from '../../../api/objects';
import { defaultImagePullPolicy } from '../../../server/registry/defaults/pod';
import { builtinRegistry } from '../../../server/builtin-types';
import { DEFAULT_CONTEXT } from '../../helpers/write-context';

const registry = builtinRegistry();

/** What a create does before admission: defaults on the storage version, then prepareForCreate. */
function created(group: string, resource: string, object: KubeObject): KubeObject {
  const type = registry.find({ group, version: group === 'autoscaling' ? 'v2' : 'v1' }, resource);
  if (!type) throw new Error(`no ${resource}`);
  const copy = structuredClone(object);
  type.strategy.applyDefaults?.(copy, type.storageVersion);
  type.strategy.prepareForCreate?.(copy, DEFAULT_CONTEXT);
  return copy;
}

const DEFAULTED_CONTAINER = {
  terminationMessagePath: '/dev/termination-log',
  terminationMessagePolicy: 'File',
  resources: {},
};

const DEFAULTED_TEMPLATE_SPEC = {
  restartPolicy: 'Always',
  terminationGracePeriodSeconds: 30,
  dnsPolicy: 'ClusterFirst',
  securityContext: {},
  schedulerName: 'default-scheduler',
};

describe('defaults of minimal objects equal the reference’s', () => {
  test('Deployment', () => {
    const deployment = created('apps', 'deployments', {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx' }] } },
      },
    });
    expect(deployment).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default', generation: 1 },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: {
            containers: [{ name: 'nginx', image: 'nginx', imagePullPolicy: 'Always', ...DEFAULTED_CONTAINER }],
            ...DEFAULTED_TEMPLATE_SPEC,
          },
        },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
        revisionHistoryLimit: 10,
        progressDeadlineSeconds: 600,
      },
      status: {},
    });
  });

  test('Pod', () => {
    const pod = created('', 'pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: 'default' },
      spec: { containers: [{ name: 'c', image: 'busybox:1.36', ports: [{ containerPort: 8080 }] }] },
      status: { phase: 'Running' },
    });
    expect(pod).toEqual({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', namespace: 'default', generation: 1 },
      spec: {
        containers: [
          {
            name: 'c',
            image: 'busybox:1.36',
            imagePullPolicy: 'IfNotPresent',
            ports: [{ containerPort: 8080, protocol: 'TCP' }],
            ...DEFAULTED_CONTAINER,
          },
        ],
        ...DEFAULTED_TEMPLATE_SPEC,
        enableServiceLinks: true,
      },
      status: { phase: 'Pending', qosClass: 'BestEffort' },
    });
  });

  test('Service', () => {
    const service = created('', 'services', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', namespace: 'default' },
      spec: { selector: { app: 'web' }, ports: [{ port: 80 }] },
    });
    expect(service).toEqual({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        selector: { app: 'web' },
        ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }],
        type: 'ClusterIP',
        sessionAffinity: 'None',
        internalTrafficPolicy: 'Cluster',
        // ipFamilies and ipFamilyPolicy come with the cluster IPs, from the allocator (cluster-ip.test.ts).
      },
      status: { loadBalancer: {} },
    });
  });

  test('Namespace', () => {
    expect(created('', 'namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' } })).toEqual({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'team-a', labels: { 'kubernetes.io/metadata.name': 'team-a' } },
      spec: { finalizers: ['kubernetes'] },
      status: { phase: 'Active' },
    });
  });

  test('Secret', () => {
    expect(
      created('', 'secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'default' } }),
    ).toEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's', namespace: 'default' },
      type: 'Opaque',
    });
  });

  test('Job: counts, backoff, selector and template labels from its uid', () => {
    const job = created('batch', 'jobs', {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'pi', namespace: 'default', uid: 'u-1' },
      spec: { template: { spec: { containers: [{ name: 'pi', image: 'perl:5.34' }], restartPolicy: 'Never' } } },
    });
    const labels = {
      'batch.kubernetes.io/controller-uid': 'u-1',
      'batch.kubernetes.io/job-name': 'pi',
      'controller-uid': 'u-1',
      'job-name': 'pi',
    };
    expect(job).toEqual({
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'pi', namespace: 'default', uid: 'u-1', generation: 1 },
      spec: {
        completions: 1,
        parallelism: 1,
        backoffLimit: 6,
        completionMode: 'NonIndexed',
        suspend: false,
        podReplacementPolicy: 'TerminatingOrFailed',
        manualSelector: false,
        selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': 'u-1' } },
        template: {
          metadata: { labels },
          spec: {
            containers: [{ name: 'pi', image: 'perl:5.34', imagePullPolicy: 'IfNotPresent', ...DEFAULTED_CONTAINER }],
            ...DEFAULTED_TEMPLATE_SPEC,
            restartPolicy: 'Never',
          },
        },
      },
      status: {},
    });
  });

  test("a Job without labels takes its template's, and with them the selector labels added to the template", () => {
    // As the reference 1.34.4 answered the same create on 2026-11-29.
    const job = created('batch', 'jobs', {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'pi', namespace: 'default', uid: 'u-1' },
      spec: {
        template: {
          metadata: { labels: { a: 'b' } },
          spec: { containers: [{ name: 'c', image: 'x' }], restartPolicy: 'Never' },
        },
      },
    });
    const labels = {
      a: 'b',
      'batch.kubernetes.io/controller-uid': 'u-1',
      'batch.kubernetes.io/job-name': 'pi',
      'controller-uid': 'u-1',
      'job-name': 'pi',
    };
    expect(job.metadata.labels).toEqual(labels);
    expect((job.spec as { template: { metadata: unknown } }).template.metadata).toEqual({ labels });
  });

  test('StatefulSet and DaemonSet strategies', () => {
    const template = { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'i:1' }] } };
    const sts = created('apps', 'statefulsets', {
      metadata: { name: 's', namespace: 'd' },
      spec: { selector: { matchLabels: { app: 'a' } }, template },
    });
    expect(sts.spec).toMatchObject({
      podManagementPolicy: 'OrderedReady',
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
      replicas: 1,
      revisionHistoryLimit: 10,
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
    });
    const ds = created('apps', 'daemonsets', {
      metadata: { name: 'd', namespace: 'd' },
      spec: { selector: { matchLabels: { app: 'a' } }, template },
    });
    expect(ds.spec).toMatchObject({
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } },
      revisionHistoryLimit: 10,
    });
    expect(ds.status).toEqual({
      currentNumberScheduled: 0,
      numberMisscheduled: 0,
      desiredNumberScheduled: 0,
      numberReady: 0,
    });
  });

  test('CronJob', () => {
    const cronJob = created('batch', 'cronjobs', {
      metadata: { name: 'c', namespace: 'd' },
      spec: {
        schedule: '*/1 * * * *',
        jobTemplate: {
          spec: { template: { spec: { containers: [{ name: 'c', image: 'i' }], restartPolicy: 'OnFailure' } } },
        },
      },
    });
    expect(cronJob.spec).toMatchObject({
      concurrencyPolicy: 'Allow',
      suspend: false,
      successfulJobsHistoryLimit: 3,
      failedJobsHistoryLimit: 1,
    });
  });

  test('HorizontalPodAutoscaler v2', () => {
    const hpa = created('autoscaling', 'horizontalpodautoscalers', {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'h', namespace: 'd' },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
        maxReplicas: 5,
        behavior: { scaleDown: { stabilizationWindowSeconds: 60 } },
      },
    });
    expect(hpa.spec).toEqual({
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      minReplicas: 1,
      maxReplicas: 5,
      metrics: [
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } },
      ],
      behavior: {
        scaleUp: {
          stabilizationWindowSeconds: 0,
          selectPolicy: 'Max',
          policies: [
            { type: 'Pods', value: 4, periodSeconds: 15 },
            { type: 'Percent', value: 100, periodSeconds: 15 },
          ],
        },
        scaleDown: {
          stabilizationWindowSeconds: 60,
          selectPolicy: 'Max',
          policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }],
        },
      },
    });
  });
});

describe('image pull policy', () => {
  test.each([
    ['nginx', 'Always'],
    ['nginx:latest', 'Always'],
    ['nginx:1.27', 'IfNotPresent'],
    ['localhost:5000/app', 'Always'],
    ['localhost:5000/app:v2', 'IfNotPresent'],
    ['nginx@sha256:abc', 'IfNotPresent'],
  ])('%s → %s', (image, policy) => {
    expect(defaultImagePullPolicy(image)).toBe(policy);
  });
});

describe('resource.k8s.io defaults, in the shape of the version they are applied in', () => {
  // Every version served, as `--runtime-config=resource.k8s.io/v1beta1=true` (and v1beta2) serve them.
  const everyVersion = builtinRegistry({ enabled: () => true });
  const defaulted = (resource: string, version: string, object: KubeObject): KubeObject => {
    const type = everyVersion.find({ group: 'resource.k8s.io', version }, resource);
    if (!type) throw new Error(`no ${resource}`);
    const copy = structuredClone(object);
    type.strategy.applyDefaults?.(copy, version);
    return copy;
  };
  const slice = (version: string, device: Record<string, unknown>): KubeObject => ({
    apiVersion: `resource.k8s.io/${version}`,
    kind: 'ResourceSlice',
    metadata: { name: 's' },
    spec: { driver: 'd', devices: [device] },
  });
  const taint = { key: 'k', effect: 'NoSchedule' };
  const devicesOf = (object: KubeObject) => (object.spec as { devices: unknown[] }).devices;

  test('a device taint is stamped with the time it was added, to the second; a given time is kept', () => {
    const before = Date.now();
    const [device] = devicesOf(defaulted('resourceslices', 'v1', slice('v1', { name: 'x', taints: [taint] }))) as {
      taints: { timeAdded: string }[];
    }[];
    const stamped = device.taints[0].timeAdded;
    expect(stamped).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(Date.parse(stamped)).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    const given = { ...taint, timeAdded: '2025-01-01T00:00:00Z' };
    expect(devicesOf(defaulted('resourceslices', 'v1', slice('v1', { name: 'x', taints: [given] })))).toEqual([
      { name: 'x', taints: [given] },
    ]);
  });

  test('in v1beta1 the taints are under `basic`', () => {
    const [device] = devicesOf(
      defaulted('resourceslices', 'v1beta1', slice('v1beta1', { name: 'x', basic: { taints: [taint] } })),
    ) as { basic: { taints: { timeAdded?: string }[] } }[];
    expect(device.basic.taints[0].timeAdded).toBeDefined();
  });

  test('a flat v1beta1 request is defaulted when it names a class, not when it is made of alternatives', () => {
    const claim = defaulted('resourceclaims', 'v1beta1', {
      apiVersion: 'resource.k8s.io/v1beta1',
      kind: 'ResourceClaim',
      metadata: { name: 'c', namespace: 'default' },
      spec: {
        devices: {
          requests: [
            { name: 'one', deviceClassName: 'gpu' },
            { name: 'either', firstAvailable: [{ name: 'a', deviceClassName: 'gpu' }] },
          ],
        },
      },
    });
    expect((claim.spec as { devices: unknown }).devices).toEqual({
      requests: [
        { name: 'one', deviceClassName: 'gpu', allocationMode: 'ExactCount', count: 1 },
        {
          name: 'either',
          firstAvailable: [{ name: 'a', deviceClassName: 'gpu', allocationMode: 'ExactCount', count: 1 }],
        },
      ],
    });
  });
});
