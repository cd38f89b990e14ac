/**
 * The update-validation corpus: for each built-in kind, a valid object is created and then one
 * thing about it changes in a PUT of what the server answered. The changes are of three sources:
 * those written below for the fields the reference's `ValidateUpdate` treats as immutable (and a
 * change every kind must accept, a new label), those generated from the schema (every scalar the
 * object was created with, changed to another value of its type), and for every kind a bad label
 * and a bad annotation in the object and in its status (and a namespace's finalize), a bad label
 * in its Scale and in its template, and bad metadata together with broken rules of the kind's own
 * (ORDER_BREAKS), whose causes come in an order of the kind's. The same list is sent to the
 * reference (update-record.ts writes its answers into update-expected.json) and to capstan
 * (update-corpus.test.ts compares). Deterministic: ids, order, names and bodies never depend on
 * time or randomness.
 */
import type { ResourceType } from '../../server/registry/types';
import { schemaData } from '../../server/schema/definitions';
import {
  collectionPath,
  NAMESPACE,
  pathText,
  schemaPaths,
  servedTypes,
  validObject,
  type CorpusRequest,
} from './cases';
import type { Answer, Sender } from './send';
import type { JsonObject, JsonValue } from './valid-objects';

/** One member set (or, with `value` undefined, removed) in the object the create answered with. */
export interface Edit {
  readonly path: readonly (string | number)[];
  readonly value: JsonValue | undefined;
}

export interface UpdateCase {
  readonly id: string;
  readonly type: ResourceType;
  readonly name: string;
  /** The create request's body. */
  readonly object: JsonObject;
  readonly edits: readonly Edit[];
  /** Read and written through this subresource rather than the object itself. */
  readonly subresource?: 'status' | 'scale' | 'finalize';
}

const JSON_TYPE = { 'content-type': 'application/json' };
const definitions = schemaData().definitions;

const set = (path: string, value: JsonValue | undefined): Edit => ({ path: parsePath(path), value });

/** `spec.drivers[0].nodeID` → ['spec', 'drivers', 0, 'nodeID']. */
function parsePath(text: string): (string | number)[] {
  return text
    .split('.')
    .flatMap((part) => part.split(/\[(\d+)\]/).filter((piece) => piece !== ''))
    .map((piece) => (/^\d+$/.test(piece) ? Number(piece) : piece));
}

const container = { name: 'c', image: 'nginx' };
const labels = { app: 'corpus' };
const jobPod = { spec: { containers: [container], restartPolicy: 'Never' } };
/** A PEM certificate request for CN=corpus (an EC key made once; the request only needs to parse). */
const CERTIFICATE_REQUEST =
  'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlITE1ITUNBUUF3RVRFUE1BMEdBMVVFQXd3R1kyOXljSFZ6TUZrd0V3WUhLb1pJemowQ0FRWUlLb1pJemowRApBUWNEUWdBRXYwQ1Iwcjh2NDRTQllIOWVMTjVNYVZDYm40Nm5EQXozWS9VQjlIN2pWcURHbkpscy9uTXZHWk0yCjQ4MVh3VUxoM09xMGprcE5TaEFtMW1uMGVuVk52YUFBTUFvR0NDcUdTTTQ5QkFNQ0EwZ0FNRVVDSVFDR2t4eWgKNjJFcUpIWitreFZyV0xBR2hIRVR2b3h0QUhhd1NlV3NjeEhEYlFJZ2M5eTRRbituTkRSL3ZkNEcxN201OUZlegpWalVtWWNYTjJUYjd3U1RmNmVrPQotLS0tLUVORCBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0K';
const claimSpec = { devices: { requests: [{ name: 'r', exactly: { deviceClassName: 'dc' } }] } };
/** A selector expression whose value is no label value: the reference refuses it, with causes of each kind's own. */
const invalidValueExpressions = [{ key: 'app', operator: 'In', values: ['corpus', '-bad-'] }];
const invalidSelectorValue = [set('spec.selector.matchExpressions', invalidValueExpressions)];
const invalidValueSelector = { matchExpressions: invalidValueExpressions };
/** A webhook a server accepts, to break a selector of. */
const webhook = {
  name: 'corpus.example.com',
  clientConfig: { url: 'https://example.com' },
  sideEffects: 'None',
  admissionReviewVersions: ['v1'],
};

/** A pod spec's affinity of every sort, valid, for the changes that make one part of it invalid. */
const affinity = {
  nodeAffinity: {
    requiredDuringSchedulingIgnoredDuringExecution: {
      nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }],
    },
    preferredDuringSchedulingIgnoredDuringExecution: [
      { weight: 10, preference: { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n'] }] } },
    ],
  },
  podAntiAffinity: {
    requiredDuringSchedulingIgnoredDuringExecution: [
      { labelSelector: { matchLabels: labels }, topologyKey: 'zone', matchLabelKeys: ['tier'] },
    ],
    preferredDuringSchedulingIgnoredDuringExecution: [
      { weight: 50, podAffinityTerm: { labelSelector: { matchLabels: labels }, topologyKey: 'zone' } },
    ],
  },
};
const nodeRequirement =
  'nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0]';
const podTerm = 'podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]';
/** Each affinity rule class broken by an update, in the pod spec at `at`. */
const affinityChanges = (at: string): Record<string, readonly Edit[]> => ({
  nodeOperator: [set(`${at}.${nodeRequirement}.operator`, 'Equals')],
  nodeValue: [set(`${at}.${nodeRequirement}.values`, ['-bad-'])],
  nodeExistsWithValues: [set(`${at}.${nodeRequirement}.operator`, 'Exists')],
  nodeFieldKey: [
    set(
      `${at}.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference.matchFields[0].key`,
      'spec.x',
    ),
  ],
  nodeWeight: [set(`${at}.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight`, 101)],
  podWeight: [set(`${at}.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight`, 0)],
  topologyKey: [set(`${at}.${podTerm}.topologyKey`, '')],
  namespaces: [set(`${at}.${podTerm}.namespaces`, ['Bad_NS'])],
  selectorValue: [set(`${at}.${podTerm}.labelSelector.matchExpressions`, invalidValueExpressions)],
  mismatchLabelKeys: [set(`${at}.${podTerm}.mismatchLabelKeys`, ['tier'])],
  matchLabelKeysInSelector: [
    set(`${at}.${podTerm}.labelSelector.matchExpressions`, [
      { key: 'tier', operator: 'Exists' },
      { key: 'tier', operator: 'In', values: ['a'] },
    ]),
  ],
});

/**
 * A kind's object for this corpus (in `variant`, a second shape of the same kind) and its
 * written changes by label; without `body`, the create corpus's valid object.
 */
interface UpdateGroup {
  readonly kind: string;
  readonly variant?: string;
  readonly body?: JsonObject;
  /** The object's name for the case's number, where a kind's names have a form of their own. */
  readonly name?: (n: number) => string;
  readonly changes: Readonly<Record<string, readonly Edit[]>>;
}

const GROUPS: readonly UpdateGroup[] = [
  { kind: '/ConfigMap', changes: { data: [set('data.a', 'c')] } },
  {
    kind: '/ConfigMap',
    variant: 'immutable',
    body: { data: { a: 'b' }, immutable: true },
    changes: {
      data: [set('data.a', 'c')],
      binaryData: [set('binaryData', { b: 'Yg==' })],
      immutable: [set('immutable', false)],
    },
  },
  { kind: '/Endpoints', changes: {} },
  { kind: '/Event', changes: { reason: [set('reason', 'R2')], message: [set('message', 'm2')] } },
  { kind: '/LimitRange', changes: {} },
  { kind: '/Namespace', changes: {} },
  {
    kind: '/Node',
    body: { spec: { providerID: 'example://n', podCIDR: '10.244.1.0/24', podCIDRs: ['10.244.1.0/24'] } },
    changes: {
      providerID: [set('spec.providerID', 'example://other')],
      podCIDRs: [set('spec.podCIDR', '10.244.2.0/24'), set('spec.podCIDRs', ['10.244.2.0/24'])],
      externalID: [set('spec.externalID', 'x')],
      unschedulable: [set('spec.unschedulable', true)],
    },
  },
  {
    kind: '/PersistentVolume',
    changes: {
      source: [set('spec.hostPath.path', '/tmp/other')],
      volumeMode: [set('spec.volumeMode', 'Block')],
      capacity: [set('spec.capacity.storage', '2Gi')],
      reclaimPolicy: [set('spec.persistentVolumeReclaimPolicy', 'Delete')],
    },
  },
  {
    kind: '/PersistentVolume',
    variant: 'affinity',
    body: {
      spec: {
        capacity: { storage: '1Gi' },
        accessModes: ['ReadWriteOnce'],
        csi: { driver: 'example.com.csi', volumeHandle: 'handle' },
        nodeAffinity: {
          required: {
            nodeSelectorTerms: [
              { matchExpressions: [{ key: 'failure-domain.beta.kubernetes.io/zone', operator: 'In', values: ['a'] }] },
            ],
          },
        },
        volumeAttributesClassName: 'gold',
      },
    },
    changes: {
      affinityToGALabel: [
        set('spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].key', 'topology.kubernetes.io/zone'),
      ],
      affinityToOtherLabel: [
        set('spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].key', 'example.com/zone'),
      ],
      affinityValues: [set('spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values', ['b'])],
      affinityRemoved: [set('spec.nodeAffinity', undefined)],
      volumeAttributesClassChanged: [set('spec.volumeAttributesClassName', 'silver')],
      volumeAttributesClassRemoved: [set('spec.volumeAttributesClassName', undefined)],
    },
  },
  {
    kind: '/PersistentVolume',
    variant: 'unpinned',
    body: { spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/pv' } } },
    changes: {
      affinitySet: [
        set('spec.nodeAffinity', {
          required: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/os', operator: 'In', values: ['linux'] }] }],
          },
        }),
      ],
      volumeAttributesClassSet: [set('spec.volumeAttributesClassName', 'gold')],
    },
  },
  {
    kind: '/PersistentVolumeClaim',
    changes: {
      accessModes: [set('spec.accessModes', ['ReadWriteMany'])],
      storage: [set('spec.resources.requests.storage', '2Gi')],
      volumeMode: [set('spec.volumeMode', 'Block')],
      storageClassName: [set('spec.storageClassName', 'other')],
    },
  },
  {
    kind: '/Pod',
    changes: {
      restartPolicy: [set('spec.restartPolicy', 'Never')],
      activeDeadlineSeconds: [set('spec.activeDeadlineSeconds', 30)],
      tolerations: [set('spec.tolerations', [{ key: 'k', operator: 'Exists', effect: 'NoSchedule' }])],
      containers: [set('spec.containers[1]', { name: 'd', image: 'nginx' })],
    },
  },
  {
    kind: '/Pod',
    variant: 'affinity',
    body: { spec: { containers: [container], affinity } },
    changes: { nodeValue: affinityChanges('spec.affinity').nodeValue },
  },
  {
    kind: '/Pod',
    variant: 'gated',
    body: {
      spec: {
        containers: [container],
        schedulingGates: [{ name: 'example.com/gate' }],
        nodeSelector: { disk: 'ssd' },
        affinity: { nodeAffinity: affinity.nodeAffinity },
      },
    },
    changes: {
      gateRemoved: [set('spec.schedulingGates', undefined)],
      gateAdded: [set('spec.schedulingGates[1]', { name: 'example.com/other' })],
      nodeSelectorAdded: [set('spec.nodeSelector.zone', 'a')],
      nodeSelectorChanged: [set('spec.nodeSelector.disk', 'hdd')],
      requirementAdded: [
        set(`spec.affinity.${nodeRequirement.replace(/\[0\]$/, '[1]')}`, { key: 'rack', operator: 'Exists' }),
      ],
      termAdded: [
        set('spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[1]', {
          matchExpressions: [{ key: 'rack', operator: 'Exists' }],
        }),
      ],
      podAffinityAdded: [set('spec.affinity.podAffinity', affinity.podAntiAffinity)],
    },
  },
  { kind: '/PodTemplate', changes: {} },
  { kind: '/ReplicationController', changes: { selector: [set('spec.selector', { app: 'other' })] } },
  {
    kind: '/ResourceQuota',
    body: { spec: { hard: { pods: '10' }, scopes: ['BestEffort'] } },
    changes: { scopes: [set('spec.scopes', ['NotBestEffort'])], hard: [set('spec.hard.pods', '20')] },
  },
  {
    kind: '/Secret',
    changes: { type: [set('type', 'example.com/other')], data: [set('data.a', 'Yw==')] },
  },
  {
    kind: '/Secret',
    variant: 'immutable',
    body: { type: 'Opaque', data: { a: 'Yg==' }, immutable: true },
    changes: { data: [set('data.a', 'Yw==')], immutable: [set('immutable', false)] },
  },
  { kind: '/ServiceAccount', changes: {} },
  {
    kind: '/Service',
    changes: {
      clusterIP: [set('spec.clusterIP', '10.96.0.50'), set('spec.clusterIPs', ['10.96.0.50'])],
      ports: [set('spec.ports[0].port', 81)],
    },
  },
  {
    kind: 'admissionregistration.k8s.io/ValidatingAdmissionPolicy',
    body: {
      spec: {
        matchConstraints: {
          resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }],
        },
        validations: [{ expression: 'true' }],
      },
    },
    changes: {
      message: [set('spec.validations[0].message', 'm')],
      namespaceSelectorValue: [set('spec.matchConstraints.namespaceSelector', invalidValueSelector)],
    },
  },
  {
    kind: 'admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding',
    body: { spec: { policyName: 'p', validationActions: ['Deny'] } },
    changes: {
      policyName: [set('spec.policyName', 'q')],
      matchResourcesValue: [set('spec.matchResources', { objectSelector: invalidValueSelector })],
      paramSelectorValue: [set('spec.paramRef', { selector: invalidValueSelector, parameterNotFoundAction: 'Deny' })],
    },
  },
  { kind: 'admissionregistration.k8s.io/ValidatingWebhookConfiguration', changes: {} },
  { kind: 'admissionregistration.k8s.io/MutatingWebhookConfiguration', changes: {} },
  ...['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration'].map((kind): UpdateGroup => ({
    kind: `admissionregistration.k8s.io/${kind}`,
    variant: 'selectors',
    body: { webhooks: [webhook] },
    changes: {
      namespaceSelectorValue: [set('webhooks[0].namespaceSelector', invalidValueSelector)],
      objectSelectorOperator: [
        set('webhooks[0].objectSelector', { matchExpressions: [{ key: 'app', operator: 'Equals' }] }),
      ],
    },
  })),
  {
    kind: 'apps/ControllerRevision',
    changes: { data: [set('data', { a: 'c' })], revision: [set('revision', 2)] },
  },
  ...['DaemonSet', 'Deployment', 'ReplicaSet'].map((kind): UpdateGroup => ({
    kind: `apps/${kind}`,
    changes: {
      selector: [
        set('spec.selector', { matchLabels: { app: 'other' } }),
        set('spec.template.metadata.labels', { app: 'other' }),
      ],
      image: [set('spec.template.spec.containers[0].image', 'nginx:2')],
      selectorValue: invalidSelectorValue,
    },
  })),
  {
    kind: 'apps/Deployment',
    variant: 'affinity',
    body: {
      spec: {
        selector: { matchLabels: labels },
        template: { metadata: { labels }, spec: { containers: [container], affinity } },
      },
    },
    changes: affinityChanges('spec.template.spec.affinity'),
  },
  {
    kind: 'apps/StatefulSet',
    changes: {
      serviceName: [set('spec.serviceName', 'other')],
      podManagementPolicy: [set('spec.podManagementPolicy', 'Parallel')],
      replicas: [set('spec.replicas', 2)],
      minReadySeconds: [set('spec.minReadySeconds', 5)],
      selectorValue: invalidSelectorValue,
    },
  },
  { kind: 'autoscaling/HorizontalPodAutoscaler', changes: { maxReplicas: [set('spec.maxReplicas', 5)] } },
  { kind: 'batch/CronJob', changes: { schedule: [set('spec.schedule', '*/10 * * * *')] } },
  {
    kind: 'batch/Job',
    body: { spec: { template: jobPod } },
    changes: {
      completions: [set('spec.completions', 2)],
      completionMode: [set('spec.completionMode', 'Indexed')],
      managedBy: [set('spec.managedBy', 'example.com/controller')],
      podFailurePolicy: [
        set('spec.podFailurePolicy', { rules: [{ action: 'FailJob', onExitCodes: { operator: 'In', values: [1] } }] }),
      ],
      template: [set('spec.template.spec.containers[0].image', 'nginx:2')],
      parallelism: [set('spec.parallelism', 2)],
      activeDeadlineSeconds: [set('spec.activeDeadlineSeconds', 60)],
      selectorValue: invalidSelectorValue,
    },
  },
  {
    kind: 'batch/Job',
    variant: 'indexed',
    body: {
      spec: { completionMode: 'Indexed', completions: 2, parallelism: 1, backoffLimitPerIndex: 1, template: jobPod },
    },
    changes: {
      backoffLimitPerIndex: [set('spec.backoffLimitPerIndex', 2)],
      successPolicy: [set('spec.successPolicy', { rules: [{ succeededIndexes: '0' }] })],
      scale: [set('spec.completions', 3), set('spec.parallelism', 2)],
      completions: [set('spec.completions', 3)],
    },
  },
  {
    kind: 'certificates.k8s.io/CertificateSigningRequest',
    body: { spec: { request: CERTIFICATE_REQUEST, signerName: 'example.com/signer', usages: ['client auth'] } },
    changes: { signerName: [set('spec.signerName', 'example.com/other')] },
  },
  { kind: 'coordination.k8s.io/Lease', changes: { holderIdentity: [set('spec.holderIdentity', 'other')] } },
  {
    kind: 'discovery.k8s.io/EndpointSlice',
    changes: { addressType: [set('addressType', 'IPv6')], addresses: [set('endpoints[0].addresses', ['10.1.2.4'])] },
  },
  {
    kind: 'events.k8s.io/Event',
    body: {
      eventTime: '2026-01-01T00:00:00.000000Z',
      reportingController: 'example.com/c',
      reportingInstance: 'i',
      action: 'A',
      reason: 'R',
      note: 'n',
      type: 'Normal',
      regarding: { kind: 'Pod', name: 'p', namespace: NAMESPACE },
    },
    changes: {
      regarding: [set('regarding.name', 'q')],
      reason: [set('reason', 'R2')],
      note: [set('note', 'n2')],
      type: [set('type', 'Warning')],
      eventTime: [set('eventTime', '2026-01-01T00:00:01.000000Z')],
      action: [set('action', 'B')],
      related: [set('related', { kind: 'Pod', name: 'r', namespace: NAMESPACE })],
      reportingController: [set('reportingController', 'example.com/d')],
      reportingInstance: [set('reportingInstance', 'j')],
      deprecatedCount: [set('deprecatedCount', 2)],
      deprecatedSource: [set('deprecatedSource', { component: 'x' })],
      series: [set('series', { count: 2, lastObservedTime: '2026-01-01T00:00:02.000000Z' })],
    },
  },
  { kind: 'flowcontrol.apiserver.k8s.io/FlowSchema', changes: {} },
  { kind: 'flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration', changes: {} },
  { kind: 'networking.k8s.io/Ingress', changes: {} },
  {
    kind: 'networking.k8s.io/IngressClass',
    changes: { controller: [set('spec.controller', 'example.com/other')] },
  },
  {
    kind: 'networking.k8s.io/IPAddress',
    name: (n) => `10.99.${Math.floor(n / 250)}.${(n % 250) + 1}`,
    body: { spec: { parentRef: { group: '', resource: 'services', namespace: NAMESPACE, name: 's' } } },
    changes: { parentRef: [set('spec.parentRef.name', 't')] },
  },
  { kind: 'networking.k8s.io/NetworkPolicy', changes: {} },
  {
    kind: 'networking.k8s.io/ServiceCIDR',
    body: { spec: { cidrs: ['10.200.0.0/24'] } },
    changes: {
      cidr: [set('spec.cidrs[0]', '10.201.0.0/24')],
      dualStack: [set('spec.cidrs[1]', 'fd00:10:200::/64')],
      removed: [set('spec.cidrs', [])],
    },
  },
  {
    kind: 'node.k8s.io/RuntimeClass',
    body: { handler: 'h' },
    changes: { handler: [set('handler', 'h2')], overhead: [set('overhead', { podFixed: { cpu: '100m' } })] },
  },
  { kind: 'policy/PodDisruptionBudget', changes: { minAvailable: [set('spec.minAvailable', 2)] } },
  {
    kind: 'rbac.authorization.k8s.io/ClusterRoleBinding',
    changes: { roleRef: [set('roleRef.name', 'edit')], subject: [set('subjects[0].name', 'v')] },
  },
  {
    kind: 'rbac.authorization.k8s.io/ClusterRole',
    changes: {
      aggregationSelectorValue: [
        set('aggregationRule', { clusterRoleSelectors: [{ matchExpressions: invalidValueExpressions }] }),
      ],
    },
  },
  {
    kind: 'rbac.authorization.k8s.io/RoleBinding',
    changes: { roleRef: [set('roleRef.name', 'r2')], subject: [set('subjects[0].name', 'v')] },
  },
  { kind: 'rbac.authorization.k8s.io/Role', changes: {} },
  {
    kind: 'resource.k8s.io/DeviceClass',
    body: { spec: {} },
    changes: { selectors: [set('spec.selectors', [{ cel: { expression: 'true' } }])] },
  },
  {
    kind: 'resource.k8s.io/ResourceClaim',
    body: { spec: claimSpec },
    changes: { deviceClassName: [set('spec.devices.requests[0].exactly.deviceClassName', 'dc2')] },
  },
  {
    kind: 'resource.k8s.io/ResourceClaimTemplate',
    body: { spec: { spec: claimSpec } },
    changes: {
      deviceClassName: [set('spec.spec.devices.requests[0].exactly.deviceClassName', 'dc2')],
      labels: [set('spec.metadata', { labels: { a: 'b' } })],
    },
  },
  {
    kind: 'resource.k8s.io/ResourceSlice',
    body: {
      spec: { driver: 'example.com', pool: { name: 'p', generation: 1, resourceSliceCount: 1 }, nodeName: 'n1' },
    },
    changes: {
      driver: [set('spec.driver', 'example.org')],
      pool: [set('spec.pool.name', 'p2')],
      nodeName: [set('spec.nodeName', 'n2')],
      generation: [set('spec.pool.generation', 2)],
      devices: [set('spec.devices', [{ name: 'd' }])],
    },
  },
  {
    kind: 'scheduling.k8s.io/PriorityClass',
    body: { value: 1000, preemptionPolicy: 'PreemptLowerPriority' },
    changes: {
      value: [set('value', 2000)],
      preemptionPolicy: [set('preemptionPolicy', 'Never')],
      description: [set('description', 'd')],
    },
  },
  {
    kind: 'storage.k8s.io/CSIDriver',
    body: { spec: { attachRequired: true } },
    changes: {
      attachRequired: [set('spec.attachRequired', false)],
      volumeLifecycleModes: [set('spec.volumeLifecycleModes', ['Ephemeral'])],
      podInfoOnMount: [set('spec.podInfoOnMount', true)],
      fsGroupPolicy: [set('spec.fsGroupPolicy', 'File')],
    },
  },
  {
    kind: 'storage.k8s.io/CSINode',
    body: { spec: { drivers: [{ name: 'example.com', nodeID: 'n1', topologyKeys: ['k'] }] } },
    changes: {
      nodeID: [set('spec.drivers[0].nodeID', 'n2')],
      topologyKeys: [set('spec.drivers[0].topologyKeys', ['k', 'l'])],
      allocatable: [set('spec.drivers[0].allocatable', { count: 5 })],
      added: [set('spec.drivers[1]', { name: 'example.org', nodeID: 'n1' })],
      removed: [set('spec.drivers', [])],
    },
  },
  {
    kind: 'storage.k8s.io/CSIStorageCapacity',
    body: { storageClassName: 'sc', nodeTopology: { matchLabels: { a: 'b' } }, capacity: '1Gi' },
    changes: {
      storageClassName: [set('storageClassName', 'sc2')],
      nodeTopology: [set('nodeTopology.matchLabels.a', 'c')],
      capacity: [set('capacity', '2Gi')],
      maximumVolumeSize: [set('maximumVolumeSize', '1Gi')],
    },
  },
  {
    kind: 'storage.k8s.io/StorageClass',
    body: {
      provisioner: 'example.com/p',
      parameters: { a: 'b' },
      reclaimPolicy: 'Retain',
      volumeBindingMode: 'WaitForFirstConsumer',
    },
    changes: {
      parameters: [set('parameters.a', 'c')],
      provisioner: [set('provisioner', 'example.com/other')],
      reclaimPolicy: [set('reclaimPolicy', 'Delete')],
      volumeBindingMode: [set('volumeBindingMode', 'Immediate')],
      allowVolumeExpansion: [set('allowVolumeExpansion', true)],
      mountOptions: [set('mountOptions', ['ro'])],
    },
  },
  {
    kind: 'storage.k8s.io/VolumeAttachment',
    body: { spec: { attacher: 'example.com', nodeName: 'n1', source: { persistentVolumeName: 'pv' } } },
    changes: {
      nodeName: [set('spec.nodeName', 'n2')],
      source: [set('spec.source.persistentVolumeName', 'pv2')],
    },
  },
  {
    kind: 'storage.k8s.io/VolumeAttributesClass',
    body: { driverName: 'example.com', parameters: { a: 'b' } },
    changes: { driverName: [set('driverName', 'example.org')], parameters: [set('parameters.a', 'c')] },
  },
];

/** A change every kind accepts: a label added. */
const MUTABLE: readonly Edit[] = [set('metadata.labels.changed', 'yes')];

/** Another value of the same kind as `value`: the next enum value, a number one up, a string one off. */
function changed(value: string | number | boolean, enumValues: readonly unknown[] | undefined): JsonValue {
  if (typeof value === 'boolean') return !value;
  if (typeof value === 'number') return value + 1;
  const others = (enumValues ?? []).filter((v): v is string => typeof v === 'string' && v !== value);
  if (others.length > 0) return others[0];
  // A number in the text (an address, a quantity, a time) counts one up, its width kept.
  const digits = /(\d+)(\D*)$/.exec(value);
  if (digits !== null) {
    const next = String(Number(digits[1]) + 1).padStart(digits[1].length, '0');
    return value.slice(0, digits.index) + next + digits[2];
  }
  return `${value}x`;
}

function valueAt(object: JsonValue, path: readonly (string | number)[]): JsonValue | undefined {
  let current: JsonValue | undefined = object;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string | number, JsonValue>)[segment];
  }
  return current;
}

/** Every scalar the object was created with (metadata aside), changed: the schema's cases. */
function schemaChanges(type: ResourceType, object: JsonObject): Record<string, readonly Edit[]> {
  const changes: Record<string, readonly Edit[]> = {};
  for (const { segments, schema } of schemaPaths(definitions[type.versions[0].definition])) {
    if (segments[0] === 'metadata') continue;
    const value = valueAt(object, segments);
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') continue;
    changes[`schema/${pathText(segments)}`] = [{ path: segments, value: changed(value, schema.enum) }];
  }
  return changes;
}

/** A label value and an annotation key no server takes. */
const BAD_LABEL_VALUE = '-bad-';
const BAD_ANNOTATION_KEY = 'bad key!';

/**
 * For each kind, what breaks its own rules in an update as well as its metadata: an invalid value
 * its update validation checks and, where it has one, a change of what may not change; `status`
 * breaks its status rules in a status write. The reference reports such an update's causes in the
 * order its ValidateXUpdate runs its passes, which may put metadata's between the spec's.
 */
interface OrderBreaks {
  readonly spec?: readonly Edit[];
  readonly status?: readonly Edit[];
}

const BAD_QUALIFIED_NAME = 'bad name!';
const badWebhooks = [set('webhooks', [{ ...webhook, name: 'bad', sideEffects: 'Bogus' }])];
const negativeReplicas = [set('status.replicas', -1)];

const ORDER_BREAKS: Readonly<Record<string, OrderBreaks>> = {
  '/ConfigMap': { spec: [set(`data.${BAD_QUALIFIED_NAME}`, 'x')] },
  '/Endpoints': { spec: [set('subsets[0].addresses[0].ip', 'not-an-ip'), set('subsets[0].ports[0].port', 0)] },
  '/Event': { spec: [set('reason', 'R2'), set('message', 'm2')] },
  '/LimitRange': { spec: [set('spec.limits[1]', { type: 'Container', max: { cpu: '2' } })] },
  '/Namespace': { spec: [set('metadata.finalizers', [BAD_QUALIFIED_NAME])], status: [set('status.phase', 'Bogus')] },
  '/Node': {
    spec: [
      set('spec.providerID', 'example://other'),
      set('spec.taints', [{ key: BAD_QUALIFIED_NAME, effect: 'NoSchedule' }]),
    ],
  },
  '/PersistentVolume': {
    spec: [set('spec.hostPath.path', '/tmp/other'), set('spec.accessModes', ['Bogus'])],
    status: [set('status.phase', 'Bogus')],
  },
  '/PersistentVolumeClaim': {
    spec: [set('spec.accessModes', ['Bogus']), set('spec.volumeMode', 'Bogus')],
  },
  '/Pod': {
    spec: [set('spec.containers[0].image', ''), set('spec.restartPolicy', 'Never')],
    status: [set('status.podIPs', [{ ip: 'not-an-ip' }])],
  },
  '/PodTemplate': {
    spec: [set('template.spec.containers[0].image', ''), set('template.spec.restartPolicy', 'Bogus')],
  },
  '/ReplicationController': {
    spec: [set('spec.replicas', -1), set('spec.template.spec.containers[0].image', '')],
    status: negativeReplicas,
  },
  '/ResourceQuota': {
    spec: [
      set('spec.scopes', ['NotBestEffort']),
      set('spec.scopeSelector', { matchExpressions: [{ scopeName: 'Bogus', operator: 'Exists' }] }),
    ],
  },
  '/Secret': { spec: [set('type', 'example.com/other'), set(`data.${BAD_QUALIFIED_NAME}`, 'Yg==')] },
  '/ServiceAccount': {},
  '/Service': {
    spec: [set('spec.ports[0].protocol', 'Bogus'), set('spec.sessionAffinity', 'Bogus')],
    status: [set('status.loadBalancer', { ingress: [{ ip: 'not-an-ip' }] })],
  },
  'admissionregistration.k8s.io/ValidatingAdmissionPolicy': {
    spec: [set('spec.validations[0].expression', ''), set('spec.failurePolicy', 'Bogus')],
    status: [set('status.observedGeneration', -1)],
  },
  'admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding': {
    spec: [set('spec.policyName', ''), set('spec.validationActions', ['Bogus'])],
  },
  'admissionregistration.k8s.io/ValidatingWebhookConfiguration': { spec: badWebhooks },
  'admissionregistration.k8s.io/MutatingWebhookConfiguration': { spec: badWebhooks },
  'apps/ControllerRevision': { spec: [set('data', { a: 'c' }), set('revision', -1)] },
  'apps/DaemonSet': {
    spec: [set('spec.selector', { matchLabels: { app: 'other' } }), set('spec.template.spec.containers[0].image', '')],
    status: [set('status.numberReady', -1)],
  },
  'apps/Deployment': {
    spec: [set('spec.selector', { matchLabels: { app: 'other' } }), set('spec.replicas', -1)],
    status: negativeReplicas,
  },
  'apps/ReplicaSet': {
    spec: [set('spec.selector', { matchLabels: { app: 'other' } }), set('spec.replicas', -1)],
    status: negativeReplicas,
  },
  'apps/StatefulSet': {
    spec: [set('spec.serviceName', 'other'), set('spec.replicas', -1)],
    status: negativeReplicas,
  },
  'autoscaling/HorizontalPodAutoscaler': {
    spec: [set('spec.maxReplicas', 0), set('spec.scaleTargetRef.kind', '')],
  },
  'batch/CronJob': {
    spec: [set('spec.schedule', 'bad'), set('spec.jobTemplate.spec.template.spec.containers[0].image', '')],
    status: [set('status.active', [{ kind: 'Job', name: '' }])],
  },
  'batch/Job': {
    spec: [set('spec.completions', 2), set('spec.parallelism', -1)],
    status: [set('status.succeeded', -1)],
  },
  'certificates.k8s.io/CertificateSigningRequest': {
    spec: [set('spec.signerName', 'example.com/other'), set('spec.usages', ['bogus'])],
    status: [set('status.certificate', 'Yg==')],
  },
  'coordination.k8s.io/Lease': { spec: [set('spec.leaseDurationSeconds', 0)] },
  'discovery.k8s.io/EndpointSlice': {
    spec: [set('addressType', 'IPv6'), set('endpoints[0].addresses', ['not-an-ip'])],
  },
  'events.k8s.io/Event': { spec: [set('reason', 'R2'), set('type', 'Bogus')] },
  'flowcontrol.apiserver.k8s.io/FlowSchema': {
    spec: [set('spec.matchingPrecedence', 0), set('spec.rules[0].subjects[0].kind', 'Bogus')],
    status: [set('status.conditions', [{ type: '', status: 'True' }])],
  },
  'flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration': {
    spec: [set('spec.limited.nominalConcurrencyShares', -1), set('spec.limited.limitResponse.type', 'Bogus')],
    status: [set('status.conditions', [{ type: '', status: 'True' }])],
  },
  'networking.k8s.io/Ingress': {
    spec: [set('spec.defaultBackend.service.port.number', 0), set('spec.defaultBackend.service.name', 'Bad_Name')],
    status: [set('status.loadBalancer', { ingress: [{ ip: 'not-an-ip' }] })],
  },
  'networking.k8s.io/IngressClass': {
    spec: [set('spec.controller', 'example.com/other'), set('spec.parameters', { kind: '', name: 'p' })],
  },
  'networking.k8s.io/IPAddress': {
    spec: [set('spec.parentRef.name', 't'), set('spec.parentRef.resource', '')],
  },
  'networking.k8s.io/NetworkPolicy': {
    spec: [set('spec.podSelector', invalidValueSelector), set('spec.policyTypes', ['Bogus'])],
  },
  'networking.k8s.io/ServiceCIDR': {
    spec: [set('spec.cidrs', ['not-a-cidr'])],
    status: [set('status.conditions', [{ type: '', status: 'True' }])],
  },
  'node.k8s.io/RuntimeClass': {
    spec: [set('handler', 'Bad_H'), set('scheduling', { nodeSelector: { [BAD_QUALIFIED_NAME]: 'x' } })],
  },
  'policy/PodDisruptionBudget': {
    spec: [set('spec.minAvailable', -1), set('spec.selector', invalidValueSelector)],
    status: [set('status.currentHealthy', -1)],
  },
  'rbac.authorization.k8s.io/ClusterRoleBinding': {
    spec: [set('roleRef.name', 'edit'), set('subjects[0].kind', 'Bogus')],
  },
  'rbac.authorization.k8s.io/ClusterRole': {
    spec: [
      set('rules[0].verbs', []),
      set('aggregationRule', { clusterRoleSelectors: [{ matchExpressions: invalidValueExpressions }] }),
    ],
  },
  'rbac.authorization.k8s.io/RoleBinding': {
    spec: [set('roleRef.name', 'r2'), set('subjects[0].kind', 'Bogus')],
  },
  'rbac.authorization.k8s.io/Role': { spec: [set('rules[0].verbs', [])] },
  'resource.k8s.io/DeviceClass': {
    spec: [set('spec.config', [{ opaque: { driver: '' } }])],
  },
  'resource.k8s.io/ResourceClaim': {
    spec: [
      set('spec.devices.requests[0].exactly.deviceClassName', 'dc2'),
      set('spec.devices.requests[0].name', 'Bad_Name'),
    ],
    status: [set('status.devices', [{ driver: '', pool: 'p', device: 'd' }])],
  },
  'resource.k8s.io/ResourceClaimTemplate': {
    spec: [set('spec.spec.devices.requests[0].name', 'Bad_Name')],
  },
  'resource.k8s.io/ResourceSlice': {
    spec: [set('spec.driver', 'example.org'), set('spec.pool.name', 'Bad_Name!')],
  },
  'scheduling.k8s.io/PriorityClass': {
    spec: [set('value', 2000), set('preemptionPolicy', 'Bogus')],
  },
  'storage.k8s.io/CSIDriver': {
    spec: [set('spec.attachRequired', false), set('spec.fsGroupPolicy', 'Bogus')],
  },
  'storage.k8s.io/CSINode': {
    spec: [set('spec.drivers[0].nodeID', 'n2'), set('spec.drivers[0].topologyKeys', [BAD_QUALIFIED_NAME])],
  },
  'storage.k8s.io/CSIStorageCapacity': {
    spec: [set('storageClassName', 'Bad_Name')],
  },
  'storage.k8s.io/StorageClass': {
    spec: [set('provisioner', BAD_QUALIFIED_NAME), set('volumeBindingMode', 'Bogus')],
  },
  'storage.k8s.io/VolumeAttachment': {
    spec: [set('spec.nodeName', 'n2'), set('spec.attacher', '')],
    status: [set('status.attachError', { message: 'm'.repeat(1025) })],
  },
  'storage.k8s.io/VolumeAttributesClass': {
    spec: [set('driverName', BAD_QUALIFIED_NAME), set('parameters.a', 'c')],
  },
};

/**
 * Where an object holds a template with metadata of its own (a pod's, a claim's), the first of
 * these paths whose template has a spec.
 */
const TEMPLATE_PATHS = ['spec.template', 'template', 'spec.jobTemplate.spec.template', 'spec'].map(parsePath);

type CaseChange = Pick<UpdateCase, 'edits' | 'subresource'>;

/**
 * One bad label value and one bad annotation key in an update of the object, of its status and
 * of a namespace's finalize, and a bad label in its template where it has one: the reference
 * checks metadata in several passes of an update, as many as the kind's validation makes, each
 * reporting the same error again. A bad label in a Scale written is refused too, though nothing
 * of the Scale's metadata reaches the object; a finalize's finalizers are named by their index.
 */
function metadataChanges(type: ResourceType, object: JsonObject): Record<string, CaseChange> {
  const badLabel = [set('metadata.labels.bad', BAD_LABEL_VALUE)];
  const badAnnotation = [{ path: ['metadata', 'annotations', BAD_ANNOTATION_KEY], value: 'v' }];
  const changes: Record<string, CaseChange> = {
    'metadata/labelValue': { edits: badLabel },
    'metadata/annotationKey': { edits: badAnnotation },
  };
  const template = TEMPLATE_PATHS.find((path) => valueAt(object, [...path, 'spec']) !== undefined);
  if (template !== undefined)
    changes['metadata/templateLabel'] = {
      edits: [{ path: [...template, 'metadata', 'labels', 'bad'], value: BAD_LABEL_VALUE }],
    };
  if (type.subresources.status) {
    changes['status/labelValue'] = { edits: badLabel, subresource: 'status' };
    changes['status/annotationKey'] = { edits: badAnnotation, subresource: 'status' };
  }
  if (type.subresources.scale) changes['scale/labelValue'] = { edits: badLabel, subresource: 'scale' };
  if (type.subresources.finalize) {
    changes['finalize/labelValue'] = { edits: badLabel, subresource: 'finalize' };
    changes['finalize/annotationKey'] = { edits: badAnnotation, subresource: 'finalize' };
    changes['finalize/finalizerName'] = {
      edits: [set('spec.finalizers', ['kubernetes', 'foo'])],
      subresource: 'finalize',
    };
  }
  return changes;
}

/**
 * A bad label key and a bad annotation key with the kind's own breaks (ORDER_BREAKS), in an
 * update and in a status write: the order of the causes, not only their count.
 */
function orderChanges(type: ResourceType): Record<string, CaseChange> {
  const breaks = ORDER_BREAKS[`${type.group}/${type.kind}`];
  if (breaks === undefined) throw new Error(`no order breaks for ${type.group}/${type.kind}`);
  const badKeys: Edit[] = [
    { path: ['metadata', 'labels', BAD_QUALIFIED_NAME], value: 'v' },
    { path: ['metadata', 'annotations', BAD_ANNOTATION_KEY], value: 'v' },
  ];
  const changes: Record<string, CaseChange> = {
    'order/metadataAndSpec': { edits: [...badKeys, ...(breaks.spec ?? [])] },
  };
  if (type.subresources.status)
    changes['order/metadataAndStatus'] = { edits: [...badKeys, ...(breaks.status ?? [])], subresource: 'status' };
  return changes;
}

/** A group's object: its body, or the create corpus's valid object. */
function groupObject(type: ResourceType, group: UpdateGroup, name: string): JsonObject {
  const object = validObject(type, name);
  if (group.body === undefined) return object;
  const { apiVersion, kind, metadata } = object;
  return { apiVersion, kind, metadata, ...structuredClone(group.body) };
}

export function updateCases(): UpdateCase[] {
  const types = servedTypes();
  const cases: UpdateCase[] = [];
  for (const group of GROUPS) {
    const type = types.find((t) => `${t.group}/${t.kind}` === group.kind);
    if (type === undefined) throw new Error(`no served kind ${group.kind}`);
    const prefix = `${group.kind.replace(/^\//, 'core/')}${group.variant === undefined ? '' : `/${group.variant}`}`;
    const bodyOf = (name: string): JsonObject => groupObject(type, group, name);
    const changes = { mutable: MUTABLE, ...group.changes, ...schemaChanges(type, bodyOf('x')) };
    for (const [label, edits] of Object.entries(changes)) {
      const n = cases.length;
      const name = group.name?.(n) ?? `u${n}`;
      cases.push({ id: `${prefix}/${label}`, type, name, object: bodyOf(name), edits });
    }
  }
  // After the groups' cases, whose names they keep: a kind's first group gives its object.
  const kindsDone = new Set<string>();
  for (const group of GROUPS) {
    if (kindsDone.has(group.kind)) continue;
    kindsDone.add(group.kind);
    const type = types.find((t) => `${t.group}/${t.kind}` === group.kind)!;
    const prefix = group.kind.replace(/^\//, 'core/');
    for (const [label, change] of Object.entries(metadataChanges(type, groupObject(type, group, 'x')))) {
      const n = cases.length;
      const name = group.name?.(n) ?? `u${n}`;
      cases.push({ id: `${prefix}/${label}`, type, name, object: groupObject(type, group, name), ...change });
    }
  }
  // Last, so that the cases before keep the names they were recorded with.
  for (const kind of kindsDone) {
    const group = GROUPS.find((g) => g.kind === kind)!;
    const type = types.find((t) => `${t.group}/${t.kind}` === kind)!;
    const prefix = kind.replace(/^\//, 'core/');
    for (const [label, change] of Object.entries(orderChanges(type))) {
      const n = cases.length;
      const name = group.name?.(n) ?? `u${n}`;
      cases.push({ id: `${prefix}/${label}`, type, name, object: groupObject(type, group, name), ...change });
    }
  }
  const ids = new Set<string>();
  for (const c of cases) {
    if (ids.has(c.id)) throw new Error(`duplicate update case ${c.id}`);
    ids.add(c.id);
  }
  return cases;
}

/** The namespace the namespaced objects are made in; a server recorded into before has it (409). */
export function namespaceRequest(): CorpusRequest {
  return {
    method: 'POST',
    path: '/api/v1/namespaces',
    headers: JSON_TYPE,
    body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } }),
  };
}

export function createRequest(updateCase: UpdateCase): CorpusRequest {
  return {
    method: 'POST',
    path: collectionPath(updateCase.type),
    headers: JSON_TYPE,
    body: JSON.stringify(updateCase.object),
  };
}

export function objectPath(updateCase: UpdateCase): string {
  return `${collectionPath(updateCase.type)}/${encodeURIComponent(updateCase.name)}`;
}

/** Where the case writes: the object, or its subresource. */
function writtenPath(updateCase: UpdateCase): string {
  const path = objectPath(updateCase);
  return updateCase.subresource === undefined ? path : `${path}/${updateCase.subresource}`;
}

/** Where the case reads what it writes: the same place, but for finalize, which only takes writes. */
function readPath(updateCase: UpdateCase): string {
  return updateCase.subresource === 'finalize' ? objectPath(updateCase) : writtenPath(updateCase);
}

/** The PUT of the object as read (`current`, its body), with the case's edits made. */
export function updateRequest(updateCase: UpdateCase, current: string): CorpusRequest {
  const object = JSON.parse(current) as JsonObject;
  for (const { path, value } of updateCase.edits) setAt(object, path, value);
  return { method: 'PUT', path: writtenPath(updateCase), headers: JSON_TYPE, body: JSON.stringify(object) };
}

const CONFLICT_RETRIES = 5;

/**
 * Reads the object and PUTs it changed, again on a conflict as clients do: a server's own
 * controllers may write an object's status just after it is made (a quota's usage, a policy's
 * type checks), and most kinds refuse an update without a resource version.
 */
export async function sendUpdate(client: Sender, updateCase: UpdateCase): Promise<Answer> {
  for (let attempt = 1; ; attempt++) {
    const current = await client.send({ method: 'GET', path: readPath(updateCase), headers: {} });
    if (current.code !== 200) return current;
    const answer = await client.send(updateRequest(updateCase, current.body));
    if (answer.code !== 409 || attempt === CONFLICT_RETRIES) return answer;
  }
}

function setAt(object: JsonObject, path: readonly (string | number)[], value: JsonValue | undefined): void {
  let current = object as Record<string | number, JsonValue>;
  path.forEach((segment, i) => {
    if (i === path.length - 1) {
      if (value === undefined) delete current[segment];
      else current[segment] = value;
      return;
    }
    const next = current[segment];
    if (next === undefined || next === null || typeof next !== 'object')
      current[segment] = typeof path[i + 1] === 'number' ? [] : {};
    current = current[segment] as Record<string | number, JsonValue>;
  });
}

/** What the answers of a case are compared by: a Status's causes, each message's first line. */
export interface Cause {
  readonly field: string;
  readonly reason: string;
  readonly message: string;
}

export interface UpdateAnswer {
  readonly code: number;
  readonly reason: string;
  readonly causes: readonly Cause[];
}

/**
 * The first line of each message only: the reference appends a Go diff of the two values to some
 * (a PersistentVolume's source, a pod's spec), which capstan does not reproduce.
 */
export function causesOf(body: string): Cause[] {
  try {
    const status = JSON.parse(body) as {
      details?: { causes?: { field?: string; reason?: string; message?: string }[] };
    };
    return (status.details?.causes ?? []).map((cause) => ({
      field: cause.field ?? '',
      reason: cause.reason ?? '',
      message: (cause.message ?? '').split('\n')[0],
    }));
  } catch {
    return [];
  }
}
