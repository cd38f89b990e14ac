/**
 * The priority levels and flow schemas a 1.34 server keeps: the mandatory ones (`exempt`,
 * `catch-all`), which always exist with these specs, and the suggested ones, which exist and
 * follow these specs while their `apf.kubernetes.io/autoupdate-spec` annotation says `true`.
 * Specs are written in their defaulted form, as the reference stores them.
 */
import type { KubeObject } from './objects';

export const FLOWCONTROL_GROUP = 'flowcontrol.apiserver.k8s.io';
export const AUTO_UPDATE_ANNOTATION = 'apf.kubernetes.io/autoupdate-spec';
const API_VERSION = `${FLOWCONTROL_GROUP}/v1`;

function priorityLevel(name: string, spec: Record<string, unknown>): KubeObject {
  return {
    apiVersion: API_VERSION,
    kind: 'PriorityLevelConfiguration',
    metadata: { name, annotations: { [AUTO_UPDATE_ANNOTATION]: 'true' } },
    spec,
  };
}

function limited(
  shares: number,
  lendablePercent: number,
  queuing?: { queues: number; handSize: number },
): Record<string, unknown> {
  const limitResponse =
    queuing === undefined ? { type: 'Reject' } : { type: 'Queue', queuing: { ...queuing, queueLengthLimit: 50 } };
  return { type: 'Limited', limited: { nominalConcurrencyShares: shares, limitResponse, lendablePercent } };
}

const ALL_RESOURCES = { verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] };
const ALL_NON_RESOURCES = { verbs: ['*'], nonResourceURLs: ['*'] };
const EVERYTHING = { resourceRules: [ALL_RESOURCES], nonResourceRules: [ALL_NON_RESOURCES] };
const group = (name: string) => ({ kind: 'Group', group: { name } });
const user = (name: string) => ({ kind: 'User', user: { name } });
const kubeSystemServiceAccounts = { kind: 'ServiceAccount', serviceAccount: { namespace: 'kube-system', name: '*' } };
const everyone = [group('system:unauthenticated'), group('system:authenticated')];

function flowSchema(
  name: string,
  level: string,
  precedence: number,
  distinguisher: 'ByUser' | 'ByNamespace' | undefined,
  rules: Record<string, unknown>[],
): KubeObject {
  return {
    apiVersion: API_VERSION,
    kind: 'FlowSchema',
    metadata: { name, annotations: { [AUTO_UPDATE_ANNOTATION]: 'true' } },
    spec: {
      priorityLevelConfiguration: { name: level },
      matchingPrecedence: precedence,
      ...(distinguisher === undefined ? {} : { distinguisherMethod: { type: distinguisher } }),
      rules,
    },
  };
}

export const MANDATORY_PRIORITY_LEVELS: readonly KubeObject[] = [
  priorityLevel('exempt', { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } }),
  priorityLevel('catch-all', limited(5, 0)),
];

export const MANDATORY_FLOW_SCHEMAS: readonly KubeObject[] = [
  flowSchema('exempt', 'exempt', 1, undefined, [{ subjects: [group('system:masters')], ...EVERYTHING }]),
  flowSchema('catch-all', 'catch-all', 10000, 'ByUser', [{ subjects: everyone, ...EVERYTHING }]),
];

export const SUGGESTED_PRIORITY_LEVELS: readonly KubeObject[] = [
  priorityLevel('system', limited(30, 33, { queues: 64, handSize: 6 })),
  priorityLevel('node-high', limited(40, 25, { queues: 64, handSize: 6 })),
  priorityLevel('leader-election', limited(10, 0, { queues: 16, handSize: 4 })),
  priorityLevel('workload-high', limited(40, 50, { queues: 128, handSize: 6 })),
  priorityLevel('workload-low', limited(100, 90, { queues: 128, handSize: 6 })),
  priorityLevel('global-default', limited(20, 50, { queues: 128, handSize: 6 })),
];

const LEASES = { apiGroups: ['coordination.k8s.io'], resources: ['leases'], namespaces: ['*'] };

export const SUGGESTED_FLOW_SCHEMAS: readonly KubeObject[] = [
  flowSchema('system-nodes', 'system', 500, 'ByUser', [{ subjects: [group('system:nodes')], ...EVERYTHING }]),
  flowSchema('system-node-high', 'node-high', 400, 'ByUser', [
    {
      subjects: [group('system:nodes')],
      resourceRules: [
        { verbs: ['*'], apiGroups: [''], resources: ['nodes', 'nodes/status'], clusterScope: true, namespaces: ['*'] },
        { verbs: ['*'], ...LEASES },
      ],
    },
  ]),
  flowSchema('probes', 'exempt', 2, undefined, [
    { subjects: everyone, nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/readyz', '/livez'] }] },
  ]),
  flowSchema('system-leader-election', 'leader-election', 100, 'ByUser', [
    {
      subjects: [user('system:kube-controller-manager'), user('system:kube-scheduler'), kubeSystemServiceAccounts],
      resourceRules: [{ verbs: ['get', 'create', 'update'], ...LEASES }],
    },
  ]),
  flowSchema('kube-controller-manager', 'workload-high', 800, 'ByNamespace', [
    { subjects: [user('system:kube-controller-manager')], ...EVERYTHING },
  ]),
  flowSchema('kube-scheduler', 'workload-high', 800, 'ByNamespace', [
    { subjects: [user('system:kube-scheduler')], ...EVERYTHING },
  ]),
  flowSchema('kube-system-service-accounts', 'workload-high', 900, 'ByNamespace', [
    { subjects: [kubeSystemServiceAccounts], ...EVERYTHING },
  ]),
  flowSchema('service-accounts', 'workload-low', 9000, 'ByUser', [
    { subjects: [group('system:serviceaccounts')], ...EVERYTHING },
  ]),
  flowSchema('global-default', 'global-default', 9900, 'ByUser', [{ subjects: everyone, ...EVERYTHING }]),
];
