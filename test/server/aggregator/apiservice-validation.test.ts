/** APIService validation, defaulting and table: the texts a 1.34 server answers (recorded from it). */
import type { KubeObject } from '../../../api/objects';
import { apiServicePrinter } from '../../../server/table/apiservice-printer';
import { apiregistrationKinds } from '../../../server/registry/kinds/apiregistration';
import { fieldErrorText } from '../../../server/status/field-error';
import { DEFAULT_CONTEXT } from '../../helpers/write-context';

const [apiServices] = apiregistrationKinds;

function apiService(name: string, spec: Record<string, unknown>, status?: Record<string, unknown>): KubeObject {
  return {
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    metadata: { name },
    spec,
    ...(status ? { status } : {}),
  };
}

function errorsOf(object: KubeObject): string[] {
  return apiServices.strategy.validate!(object, DEFAULT_CONTEXT).map(fieldErrorText);
}

const DNS1035 =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

test.each([
  {
    name: 'an empty spec',
    object: apiService('bad', {}),
    errors: [
      'metadata.name: Invalid value: "bad": must be `spec.version+"."+spec.group`: "."',
      'spec.group: Required value: only v1 may have an empty group and it better be legacy kube',
      `spec.version: Invalid value: "": ${DNS1035}`,
      'spec.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000',
      'spec.versionPriority: Invalid value: 0: must be positive and less than 1000',
    ],
  },
  {
    name: 'a name not matching version.group',
    object: apiService('v1.foo.io', { group: 'bar.io', version: 'v2', groupPriorityMinimum: 100, versionPriority: 10 }),
    errors: ['metadata.name: Invalid value: "v1.foo.io": must be `spec.version+"."+spec.group`: "v2.bar.io"'],
  },
  {
    name: 'a service without names, too high a priority, and a CA bundle with insecureSkipTLSVerify',
    object: apiService('v1.foo.io', {
      group: 'foo.io',
      version: 'v1',
      groupPriorityMinimum: 30000,
      versionPriority: 10,
      service: { namespace: '', name: '' },
      caBundle: 'Zm9v',
      insecureSkipTLSVerify: true,
    }),
    errors: [
      'spec.groupPriorityMinimum: Invalid value: 30000: must be positive and less than 20000',
      'spec.service.namespace: Required value',
      'spec.service.name: Required value',
      'spec.insecureSkipTLSVerify: Invalid value: true: may not be true if caBundle is present',
    ],
  },
  {
    name: 'a port out of range',
    object: apiService('v1.foo.io', {
      group: 'foo.io',
      version: 'v1',
      groupPriorityMinimum: 100,
      versionPriority: 10,
      service: { namespace: 'x', name: 'y', port: 70000 },
    }),
    errors: ['spec.service.port: Invalid value: 70000: port is not valid: must be between 1 and 65535, inclusive'],
  },
  {
    name: 'a local APIService with TLS settings',
    object: apiService('v1.foo.io', {
      group: 'foo.io',
      version: 'v1',
      groupPriorityMinimum: 100,
      versionPriority: 10,
      insecureSkipTLSVerify: true,
      caBundle: 'Zm9v',
    }),
    errors: [
      'spec.caBundle: Invalid value: "3 bytes": local APIServices may not have a caBundle',
      'spec.insecureSkipTLSVerify: Invalid value: true: local APIServices may not have insecureSkipTLSVerify',
    ],
  },
  {
    name: 'the core group',
    object: apiService('v1.', { version: 'v1', groupPriorityMinimum: 18000, versionPriority: 1 }),
    errors: [],
  },
])('$name', ({ object, errors }) => {
  expect(errorsOf(object)).toEqual(errors);
});

test('a status condition must be True, False or Unknown', () => {
  const old = apiService('v1.foo.io', {
    group: 'foo.io',
    version: 'v1',
    groupPriorityMinimum: 100,
    versionPriority: 10,
  });
  const next = { ...old, status: { conditions: [{ type: 'Available', status: 'Maybe' }] } };
  expect(apiServices.strategy.validateUpdate!(next, old, DEFAULT_CONTEXT).map(fieldErrorText)).toEqual([
    'status.conditions[0].status: Unsupported value: "Maybe": supported values: "True", "False", "Unknown"',
  ]);
});

test('a service reference defaults to port 443; create starts with an empty status', () => {
  const object = apiService(
    'v1.foo.io',
    {
      group: 'foo.io',
      version: 'v1',
      groupPriorityMinimum: 100,
      versionPriority: 10,
      service: { namespace: 'x', name: 'y' },
    },
    { conditions: [] },
  );
  apiServices.strategy.applyDefaults!(object, 'v1');
  apiServices.strategy.prepareForCreate!(object, DEFAULT_CONTEXT);
  expect(object.spec).toMatchObject({ service: { namespace: 'x', name: 'y', port: 443 } });
  expect(object.status).toEqual({});
});

test('the table: Local or namespace/name, True or the status with its reason', () => {
  const now = new Date('2026-01-01T00:01:00Z');
  const local = {
    ...apiService(
      'v1.apps',
      { group: 'apps', version: 'v1' },
      { conditions: [{ type: 'Available', status: 'True', reason: 'Local' }] },
    ),
    metadata: { name: 'v1.apps', creationTimestamp: '2026-01-01T00:00:00Z' },
  };
  const remote = {
    ...apiService(
      'v1beta1.metrics.k8s.io',
      { service: { namespace: 'kube-system', name: 'metrics-server' } },
      { conditions: [{ type: 'Available', status: 'False', reason: 'MissingEndpoints' }] },
    ),
    metadata: { name: 'v1beta1.metrics.k8s.io', creationTimestamp: '2026-01-01T00:00:00Z' },
  };
  const unchecked = {
    ...apiService('v1.x.io', { service: { namespace: 'a', name: 'b' } }),
    metadata: { name: 'v1.x.io', creationTimestamp: '2026-01-01T00:00:30Z' },
  };
  expect(apiServicePrinter.columns.map((column) => column.name)).toEqual(['Name', 'Service', 'Available', 'Age']);
  expect(apiServicePrinter.print(local, now).cells).toEqual(['v1.apps', 'Local', 'True', '60s']);
  expect(apiServicePrinter.print(remote, now).cells).toEqual([
    'v1beta1.metrics.k8s.io',
    'kube-system/metrics-server',
    'False (MissingEndpoints)',
    '60s',
  ]);
  expect(apiServicePrinter.print(unchecked, now).cells).toEqual(['v1.x.io', 'a/b', 'Unknown', '30s']);
});
