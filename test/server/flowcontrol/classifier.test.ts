/** Which FlowSchema and flow a request falls in. */
import type { KubeObject } from '../../../api/objects';
import {
  MANDATORY_FLOW_SCHEMAS,
  MANDATORY_PRIORITY_LEVELS,
  SUGGESTED_FLOW_SCHEMAS,
  SUGGESTED_PRIORITY_LEVELS,
} from '../../../api/flowcontrol-bootstrap';
import { FlowClassifier } from '../../../server/flowcontrol/classifier';
import type { RequestInfo } from '../../../server/request/request-info';

const levels = new Map(
  [...MANDATORY_PRIORITY_LEVELS, ...SUGGESTED_PRIORITY_LEVELS].map((level) => [String(level.metadata.name), level]),
);
const fallback = { schema: MANDATORY_FLOW_SCHEMAS[1], level: MANDATORY_PRIORITY_LEVELS[1] };

function resource(verb: string, apiGroup: string, resourceName: string, namespace = '', subresource = ''): RequestInfo {
  return {
    isResourceRequest: true,
    path: '/x',
    verb,
    apiPrefix: 'apis',
    apiGroup,
    apiVersion: 'v1',
    namespace,
    resource: resourceName,
    subresource,
    name: '',
    parts: [],
  };
}

function nonResource(path: string, verb = 'get'): RequestInfo {
  return {
    isResourceRequest: false,
    path,
    verb,
    apiPrefix: '',
    apiGroup: '',
    apiVersion: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
    parts: [],
  };
}

describe('FlowClassifier', () => {
  const classifier = new FlowClassifier([...SUGGESTED_FLOW_SCHEMAS, ...MANDATORY_FLOW_SCHEMAS], levels, fallback);
  const schemaOf = (user: { name: string; groups: string[] }, info: RequestInfo) =>
    classifier.classify({ user, info }).schema.metadata.name;

  it('picks the matching schema of lowest precedence, as the reference classifies the bootstrap configuration', () => {
    expect(
      schemaOf(
        { name: 'admin', groups: ['system:masters', 'system:authenticated'] },
        resource('list', '', 'pods', 'default'),
      ),
    ).toBe('exempt');
    expect(
      schemaOf(
        { name: 'system:kube-scheduler', groups: ['system:authenticated'] },
        resource('update', 'coordination.k8s.io', 'leases', 'kube-system'),
      ),
    ).toBe('system-leader-election');
    expect(
      schemaOf({ name: 'system:kube-scheduler', groups: ['system:authenticated'] }, resource('list', '', 'pods')),
    ).toBe('kube-scheduler');
    expect(
      schemaOf(
        { name: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] },
        resource('patch', '', 'nodes', '', 'status'),
      ),
    ).toBe('system-node-high');
    expect(
      schemaOf(
        { name: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] },
        resource('get', '', 'pods', 'a'),
      ),
    ).toBe('system-nodes');
    expect(
      schemaOf(
        { name: 'system:serviceaccount:kube-system:gc', groups: ['system:serviceaccounts', 'system:authenticated'] },
        resource('list', 'apps', 'deployments'),
      ),
    ).toBe('kube-system-service-accounts');
    expect(
      schemaOf(
        { name: 'system:serviceaccount:app:default', groups: ['system:serviceaccounts', 'system:authenticated'] },
        resource('list', 'apps', 'deployments'),
      ),
    ).toBe('service-accounts');
    expect(schemaOf({ name: 'alice', groups: ['system:authenticated'] }, nonResource('/readyz'))).toBe('probes');
    expect(schemaOf({ name: 'alice', groups: ['system:authenticated'] }, nonResource('/version'))).toBe(
      'global-default',
    );
  });

  it('distinguishes flows by user or namespace, skips dangling schemas, and falls back to catch-all', () => {
    const byNamespace = classifier.classify({
      user: { name: 'system:kube-scheduler', groups: [] },
      info: resource('get', '', 'pods', 'team-a'),
    });
    expect(byNamespace.flowKey).toBe('kube-scheduler/team-a');
    expect(byNamespace.level.metadata.name).toBe('workload-high');
    const dangling: KubeObject = {
      ...SUGGESTED_FLOW_SCHEMAS[0],
      metadata: { name: 'dangling' },
      spec: {
        ...(SUGGESTED_FLOW_SCHEMAS[0].spec as object),
        matchingPrecedence: 2,
        priorityLevelConfiguration: { name: 'missing' },
      },
    };
    const withDangling = new FlowClassifier([dangling], levels, fallback);
    const classified = withDangling.classify({
      user: { name: 'system:node:n1', groups: ['system:nodes'] },
      info: resource('get', '', 'pods', 'a'),
    });
    expect(classified.schema.metadata.name).toBe('catch-all');
    expect(classified.flowKey).toBe('catch-all/system:node:n1');
  });

  it('matches a non-resource prefix pattern on the prefix and below it only', () => {
    const schema: KubeObject = {
      ...MANDATORY_FLOW_SCHEMAS[1],
      metadata: { name: 'metrics' },
      spec: {
        priorityLevelConfiguration: { name: 'system' },
        matchingPrecedence: 10,
        rules: [
          {
            subjects: [{ kind: 'Group', group: { name: '*' } }],
            nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/metrics/*'] }],
          },
        ],
      },
    };
    const prefixed = new FlowClassifier([schema], levels, fallback);
    const user = { name: 'u', groups: [] };
    expect(prefixed.classify({ user, info: nonResource('/metrics') }).schema.metadata.name).toBe('metrics');
    expect(prefixed.classify({ user, info: nonResource('/metrics/slis') }).schema.metadata.name).toBe('metrics');
    expect(prefixed.classify({ user, info: nonResource('/metricsx') }).schema.metadata.name).toBe('catch-all');
    expect(prefixed.classify({ user, info: nonResource('/metrics', 'post') }).schema.metadata.name).toBe('catch-all');
  });
});
