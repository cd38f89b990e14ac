/**
 * One small object per built-in kind that a 1.34 server accepts on create (in the corpus's
 * namespace where the kind is namespaced): the base the corpus breaks one member of at a time.
 * Kinds that need nothing beyond a name get none here.
 */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

const container = { name: 'c', image: 'nginx' };
const labels = { app: 'corpus' };
const podTemplate = { metadata: { labels }, spec: { containers: [container] } };
const selector = { matchLabels: labels };

/** Members beyond apiVersion, kind and metadata.name, by `<group>/<kind>`. */
export const VALID_BODIES: Readonly<Record<string, JsonObject>> = {
  '/ConfigMap': { data: { a: 'b' } },
  '/Endpoints': { subsets: [{ addresses: [{ ip: '10.1.2.3' }], ports: [{ port: 80 }] }] },
  '/Event': { involvedObject: { kind: 'Pod', name: 'p', namespace: 'corpus' }, reason: 'R', message: 'm' },
  '/LimitRange': { spec: { limits: [{ type: 'Container', max: { cpu: '2' } }] } },
  '/PersistentVolumeClaim': { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } },
  '/PersistentVolume': {
    spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/pv' } },
  },
  '/Pod': { spec: { containers: [container] } },
  '/PodTemplate': { template: podTemplate },
  '/ReplicationController': { spec: { replicas: 1, selector: labels, template: podTemplate } },
  '/ResourceQuota': { spec: { hard: { pods: '10' } } },
  '/Secret': { type: 'Opaque', data: { a: 'Yg==' } },
  // Headless: a cluster IP would be allocated, and the reference with no controller manager never answers then.
  '/Service': { spec: { clusterIP: 'None', ports: [{ port: 80, targetPort: 8080 }], selector: labels } },
  'apps/ControllerRevision': { revision: 1, data: { a: 'b' } },
  'apps/DaemonSet': { spec: { selector, template: podTemplate } },
  'apps/Deployment': { spec: { replicas: 1, selector, template: podTemplate } },
  'apps/ReplicaSet': { spec: { replicas: 1, selector, template: podTemplate } },
  'apps/StatefulSet': { spec: { serviceName: 's', replicas: 1, selector, template: podTemplate } },
  'autoscaling/HorizontalPodAutoscaler': {
    spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'd' }, minReplicas: 1, maxReplicas: 3 },
  },
  'batch/CronJob': {
    spec: {
      schedule: '*/5 * * * *',
      jobTemplate: { spec: { template: { spec: { containers: [container], restartPolicy: 'Never' } } } },
    },
  },
  'batch/Job': { spec: { template: { spec: { containers: [container], restartPolicy: 'Never' } } } },
  'flowcontrol.apiserver.k8s.io/FlowSchema': {
    spec: {
      priorityLevelConfiguration: { name: 'global-default' },
      matchingPrecedence: 5000,
      rules: [
        {
          subjects: [{ kind: 'User', user: { name: 'corpus' } }],
          resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], namespaces: ['corpus'] }],
        },
      ],
    },
  },
  'flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration': {
    spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1, limitResponse: { type: 'Reject' } } },
  },
  'certificates.k8s.io/CertificateSigningRequest': {
    spec: { request: 'bm90IGEgcmVxdWVzdA==', signerName: 'example.com/signer', usages: ['client auth'] },
  },
  'coordination.k8s.io/Lease': { spec: { holderIdentity: 'h', leaseDurationSeconds: 15 } },
  'discovery.k8s.io/EndpointSlice': {
    addressType: 'IPv4',
    endpoints: [{ addresses: ['10.1.2.3'] }],
    ports: [{ port: 80 }],
  },
  'events.k8s.io/Event': {
    eventTime: '2026-01-01T00:00:00.000000Z',
    reportingController: 'example.com/c',
    reportingInstance: 'i',
    action: 'A',
    reason: 'R',
    regarding: { kind: 'Pod', name: 'p', namespace: 'corpus' },
  },
  'networking.k8s.io/IngressClass': { spec: { controller: 'example.com/ingress' } },
  'networking.k8s.io/Ingress': { spec: { defaultBackend: { service: { name: 's', port: { number: 80 } } } } },
  'networking.k8s.io/NetworkPolicy': { spec: { podSelector: selector, policyTypes: ['Ingress'] } },
  'policy/PodDisruptionBudget': { spec: { minAvailable: 1, selector } },
  'rbac.authorization.k8s.io/ClusterRoleBinding': {
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
    subjects: [{ kind: 'User', name: 'u', apiGroup: 'rbac.authorization.k8s.io' }],
  },
  'rbac.authorization.k8s.io/ClusterRole': { rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] },
  'rbac.authorization.k8s.io/RoleBinding': {
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' },
    subjects: [{ kind: 'User', name: 'u', apiGroup: 'rbac.authorization.k8s.io' }],
  },
  'rbac.authorization.k8s.io/Role': { rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] },
  'scheduling.k8s.io/PriorityClass': { value: 1000 },
  'storage.k8s.io/StorageClass': { provisioner: 'example.com/p' },
};
