/** Realistic objects of the built-in kinds, as a server stores and serves them. */
import type { JsonObject } from '../../../server/codec/protobuf';

const created = '2025-03-01T10:00:00Z';

function meta(name: string, extra: JsonObject = {}): JsonObject {
  return {
    name,
    namespace: 'default',
    uid: '6b1f2c1e-0d6a-4f57-9d43-2b4fd1f8a001',
    resourceVersion: '1234',
    generation: 2,
    creationTimestamp: created,
    labels: { app: 'web', 'tier.example.com/z': 'last', a: 'first' },
    annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"x":1}\n' },
    managedFields: [
      {
        manager: 'kubectl',
        operation: 'Apply',
        apiVersion: 'v1',
        time: created,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:metadata': { 'f:labels': { 'f:app': {} } } },
      },
    ],
    ...extra,
  };
}

export const podTemplate: JsonObject = {
  metadata: { labels: { app: 'web' } },
  spec: {
    containers: [
      {
        name: 'web',
        image: 'nginx:1.27',
        ports: [{ containerPort: 80, protocol: 'TCP', name: 'http' }],
        resources: { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '250m' } },
        env: [
          { name: 'A', value: 'b' },
          { name: 'POD', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
        ],
        readinessProbe: {
          httpGet: { path: '/', port: 'http', scheme: 'HTTP' },
          periodSeconds: 10,
          timeoutSeconds: 1,
          successThreshold: 1,
          failureThreshold: 3,
        },
        livenessProbe: { tcpSocket: { port: 80 }, initialDelaySeconds: 3 },
        terminationMessagePath: '/dev/termination-log',
        terminationMessagePolicy: 'File',
        imagePullPolicy: 'IfNotPresent',
        securityContext: { privileged: false, runAsUser: 0 },
        volumeMounts: [{ name: 'config', mountPath: '/etc/config', readOnly: true }],
      },
    ],
    volumes: [
      { name: 'config', configMap: { name: 'web-config', defaultMode: 420 } },
      { name: 'scratch', emptyDir: {} },
    ],
    restartPolicy: 'Always',
    terminationGracePeriodSeconds: 30,
    dnsPolicy: 'ClusterFirst',
    securityContext: {},
    schedulerName: 'default-scheduler',
    tolerations: [
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    ],
  },
};

export const pod: JsonObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: meta('web-0', {
    ownerReferences: [
      {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        name: 'web-abc',
        uid: 'u-1',
        controller: true,
        blockOwnerDeletion: true,
      },
    ],
  }),
  spec: { ...(podTemplate.spec as JsonObject), nodeName: 'node-1', priority: 0, enableServiceLinks: true },
  status: {
    phase: 'Running',
    podIP: '10.0.0.5',
    podIPs: [{ ip: '10.0.0.5' }],
    startTime: created,
    conditions: [{ type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: created }],
    containerStatuses: [
      {
        name: 'web',
        ready: true,
        restartCount: 2,
        image: 'nginx:1.27',
        imageID: 'docker.io/library/nginx@sha256:abc',
        started: true,
        state: { running: { startedAt: created } },
        lastState: { terminated: { exitCode: 137, reason: 'OOMKilled', startedAt: created, finishedAt: created } },
      },
    ],
    qosClass: 'Burstable',
  },
};

export const deployment: JsonObject = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: meta('web'),
  spec: {
    replicas: 0,
    selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }] },
    template: podTemplate,
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: 1 } },
    revisionHistoryLimit: 10,
    progressDeadlineSeconds: 600,
  },
  status: {
    observedGeneration: 2,
    replicas: 3,
    updatedReplicas: 3,
    readyReplicas: 2,
    availableReplicas: 2,
    conditions: [
      {
        type: 'Available',
        status: 'True',
        lastUpdateTime: created,
        lastTransitionTime: created,
        reason: 'MinimumReplicasAvailable',
        message: 'ok',
      },
    ],
  },
};

export const service: JsonObject = {
  apiVersion: 'v1',
  kind: 'Service',
  metadata: meta('web'),
  spec: {
    type: 'NodePort',
    selector: { app: 'web' },
    ports: [
      { name: 'http', protocol: 'TCP', port: 80, targetPort: 'http', nodePort: 30080 },
      { name: 'metrics', protocol: 'TCP', port: 9090, targetPort: 9090 },
    ],
    clusterIP: '10.96.0.20',
    clusterIPs: ['10.96.0.20'],
    sessionAffinity: 'None',
    ipFamilies: ['IPv4'],
    ipFamilyPolicy: 'SingleStack',
    externalTrafficPolicy: 'Cluster',
    internalTrafficPolicy: 'Cluster',
  },
  status: { loadBalancer: {} },
};

export const configMap: JsonObject = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: meta('web-config'),
  data: { 'a.conf': 'x=1\n', empty: '' },
  binaryData: { blob: Buffer.from([0, 1, 2, 255]).toString('base64') },
};

export const secret: JsonObject = {
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: meta('web-secret'),
  type: 'Opaque',
  data: { password: Buffer.from('s3cret').toString('base64') },
};

export const namespace: JsonObject = {
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: {
    name: 'team-a',
    uid: 'u-ns',
    resourceVersion: '7',
    creationTimestamp: created,
    labels: { 'kubernetes.io/metadata.name': 'team-a' },
  },
  spec: { finalizers: ['kubernetes'] },
  status: { phase: 'Active' },
};

export const node: JsonObject = {
  apiVersion: 'v1',
  kind: 'Node',
  metadata: {
    name: 'node-1',
    uid: 'u-node',
    resourceVersion: '8',
    creationTimestamp: created,
    labels: { 'node-role.kubernetes.io/control-plane': '' },
  },
  spec: { podCIDR: '10.244.0.0/24', taints: [{ key: 'k', value: 'v', effect: 'NoSchedule' }] },
  status: {
    capacity: { cpu: '2', memory: '4041000Ki', pods: '110' },
    allocatable: { cpu: '2', memory: '3938600Ki', pods: '110' },
    conditions: [
      {
        type: 'Ready',
        status: 'True',
        lastHeartbeatTime: created,
        lastTransitionTime: created,
        reason: 'KubeletReady',
        message: 'ready',
      },
    ],
    addresses: [{ type: 'InternalIP', address: '172.18.0.2' }],
    nodeInfo: {
      machineID: 'm',
      systemUUID: 's',
      bootID: 'b',
      kernelVersion: '6.1.0',
      osImage: 'Debian GNU/Linux 12',
      containerRuntimeVersion: 'containerd://1.7.0',
      kubeletVersion: 'v1.34.0',
      kubeProxyVersion: '',
      operatingSystem: 'linux',
      architecture: 'amd64',
    },
  },
};

export const job: JsonObject = {
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: meta('pi'),
  spec: {
    completions: 1,
    parallelism: 1,
    backoffLimit: 6,
    template: { ...podTemplate, spec: { ...(podTemplate.spec as JsonObject), restartPolicy: 'Never' } },
    completionMode: 'NonIndexed',
    suspend: false,
  },
  status: {
    succeeded: 1,
    startTime: created,
    completionTime: '2025-03-01T10:01:05Z',
    ready: 0,
    terminating: 0,
    uncountedTerminatedPods: {},
  },
};

export const cronJob: JsonObject = {
  apiVersion: 'batch/v1',
  kind: 'CronJob',
  metadata: meta('nightly'),
  spec: {
    schedule: '0 3 * * *',
    concurrencyPolicy: 'Forbid',
    suspend: false,
    jobTemplate: { spec: job.spec as JsonObject },
    successfulJobsHistoryLimit: 3,
    failedJobsHistoryLimit: 1,
  },
  status: {
    lastScheduleTime: created,
    active: [{ kind: 'Job', namespace: 'default', name: 'nightly-1', uid: 'u-j', apiVersion: 'batch/v1' }],
  },
};

export const hpa: JsonObject = {
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  metadata: meta('web'),
  spec: {
    scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
    minReplicas: 1,
    maxReplicas: 10,
    metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }],
  },
  status: {
    currentReplicas: 2,
    desiredReplicas: 2,
    currentMetrics: [
      { type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 40, averageValue: '100m' } } },
    ],
  },
};

export const event: JsonObject = {
  apiVersion: 'v1',
  kind: 'Event',
  metadata: meta('web.17f'),
  involvedObject: {
    kind: 'Pod',
    namespace: 'default',
    name: 'web-0',
    uid: 'u-1',
    apiVersion: 'v1',
    resourceVersion: '5',
    fieldPath: 'spec.containers{web}',
  },
  reason: 'Pulled',
  message: 'Container image already present',
  source: { component: 'kubelet', host: 'node-1' },
  firstTimestamp: created,
  lastTimestamp: created,
  count: 3,
  type: 'Normal',
  eventTime: '2025-03-01T10:00:00.123456Z',
  reportingComponent: 'kubelet',
  reportingInstance: 'node-1',
};

export const role: JsonObject = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'Role',
  metadata: meta('reader'),
  rules: [
    { apiGroups: [''], resources: ['pods', 'pods/log'], verbs: ['get', 'list', 'watch'] },
    { nonResourceURLs: ['/healthz'], verbs: ['get'] },
  ],
};

export const lease: JsonObject = {
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  metadata: meta('leader'),
  spec: {
    holderIdentity: 'replica-1',
    leaseDurationSeconds: 15,
    acquireTime: '2025-03-01T10:00:00.000000Z',
    renewTime: '2025-03-01T10:00:05.500000Z',
    leaseTransitions: 4,
  },
};

export const ingress: JsonObject = {
  apiVersion: 'networking.k8s.io/v1',
  kind: 'Ingress',
  metadata: meta('web'),
  spec: {
    ingressClassName: 'nginx',
    tls: [{ hosts: ['a.example.com'], secretName: 'tls' }],
    rules: [
      {
        host: 'a.example.com',
        http: {
          paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }],
        },
      },
    ],
  },
  status: { loadBalancer: { ingress: [{ ip: '192.0.2.1' }] } },
};

export const statefulSet: JsonObject = {
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: meta('db'),
  spec: {
    replicas: 3,
    serviceName: 'db',
    selector: { matchLabels: { app: 'web' } },
    template: podTemplate,
    updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0, maxUnavailable: 1 } },
    volumeClaimTemplates: [
      {
        metadata: { name: 'data' },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
        status: {},
      },
    ],
    podManagementPolicy: 'OrderedReady',
  },
  status: { replicas: 3, readyReplicas: 3, currentReplicas: 3, updatedReplicas: 3, availableReplicas: 3 },
};

export const crd: JsonObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: {
    name: 'widgets.example.com',
    uid: 'u-crd',
    resourceVersion: '9',
    generation: 1,
    creationTimestamp: created,
  },
  spec: {
    group: 'example.com',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['wd'] },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  size: { type: 'integer', minimum: 1, maximum: 10.5 },
                  tags: { type: 'array', items: { type: 'string' } },
                },
                additionalProperties: false,
                'x-kubernetes-preserve-unknown-fields': true,
              },
              extra: { type: 'object', additionalProperties: { type: 'string' }, default: { a: 'b' } },
            },
            required: ['spec'],
          },
        },
        subresources: { status: {} },
        additionalPrinterColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }],
      },
    ],
    conversion: { strategy: 'None' },
  },
  status: {
    acceptedNames: { plural: 'widgets', kind: 'Widget' },
    storedVersions: ['v1'],
    conditions: [
      {
        type: 'Established',
        status: 'True',
        lastTransitionTime: created,
        reason: 'InitialNamesAccepted',
        message: 'ok',
      },
    ],
  },
};

export const ALL_FIXTURES: Record<string, JsonObject> = {
  pod,
  deployment,
  service,
  configMap,
  secret,
  namespace,
  node,
  job,
  cronJob,
  hpa,
  event,
  role,
  lease,
  ingress,
  statefulSet,
  crd,
};
