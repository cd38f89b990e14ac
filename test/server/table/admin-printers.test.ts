import { printerFor } from './printer-of';
import type { KubeObject } from '../../../api/objects';

const now = new Date('2025-03-01T12:00:00Z');
const created = '2025-03-01T10:00:00Z';

function printed(
  group: string,
  resource: string,
  object: Record<string, unknown>,
): { columns: string[]; cells: unknown[] } {
  const printer = printerFor({ group, resource });
  const metadata = { name: 'x', creationTimestamp: created, ...(object.metadata as object) };
  return {
    columns: printer.columns.map((column) => column.name),
    cells: printer.print({ ...object, metadata } as KubeObject, now).cells,
  };
}

describe('printers of the remaining served kinds, as the reference prints them', () => {
  test('pod templates: containers, images, pod labels (no age)', () => {
    const template = {
      metadata: { labels: { b: '2', a: '1' } },
      spec: {
        containers: [
          { name: 'c1', image: 'i1' },
          { name: 'c2', image: 'i2' },
        ],
      },
    };
    expect(printed('', 'podtemplates', { template })).toEqual({
      columns: ['Name', 'Containers', 'Images', 'Pod Labels'],
      cells: ['x', 'c1,c2', 'i1,i2', 'a=1,b=2'],
    });
  });

  test('replication controllers: desired, current, ready, age, wide containers/images/selector', () => {
    const object = {
      spec: {
        replicas: 3,
        selector: { app: 'web' },
        template: { spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      },
      status: { replicas: 2, readyReplicas: 1 },
    };
    expect(printed('', 'replicationcontrollers', object).cells).toEqual([
      'x',
      3,
      2,
      1,
      '120m',
      'c',
      'nginx',
      'app=web',
    ]);
  });

  test('controller revisions: the controlling owner as kind.group/name, revision', () => {
    const metadata = {
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', controller: true }],
    };
    expect(printed('apps', 'controllerrevisions', { metadata, revision: 4 })).toEqual({
      columns: ['Name', 'Controller', 'Revision', 'Age'],
      cells: ['x', 'statefulset.apps/web', 4, '120m'],
    });
    expect(printed('apps', 'controllerrevisions', { revision: 1 }).cells[1]).toBe('<none>');
  });

  test('resource quotas: used/hard of requests and of limits, sorted, then age', () => {
    const status = { hard: { pods: '10', 'limits.cpu': '2', 'requests.memory': '1Gi' }, used: { pods: '3' } };
    expect(printed('', 'resourcequotas', { status })).toEqual({
      columns: ['Name', 'Request', 'Limit', 'Age'],
      cells: ['x', 'pods: 3/10, requests.memory: 0/1Gi', 'limits.cpu: 0/2', '120m'],
    });
  });

  test('pod disruption budgets: min available, max unavailable (N/A when unset), allowed disruptions', () => {
    expect(
      printed('policy', 'poddisruptionbudgets', { spec: { minAvailable: '50%' }, status: { disruptionsAllowed: 1 } })
        .cells,
    ).toEqual(['x', '50%', 'N/A', 1, '120m']);
  });

  test('persistent volumes: capacity, access modes in fixed order, policy, phase, claim, class', () => {
    const spec = {
      capacity: { storage: '5Gi' },
      accessModes: ['ReadWriteMany', 'ReadWriteOnce'],
      persistentVolumeReclaimPolicy: 'Retain',
      claimRef: { namespace: 'ns', name: 'data' },
      storageClassName: 'fast',
    };
    expect(printed('', 'persistentvolumes', { spec, status: { phase: 'Bound' } }).cells).toEqual([
      'x',
      '5Gi',
      'RWO,RWX',
      'Retain',
      'Bound',
      'ns/data',
      'fast',
      '<unset>',
      '',
      '120m',
      '<unset>',
    ]);
  });

  test('storage classes: (default) mark, defaults for reclaim policy and binding mode', () => {
    const metadata = { annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } };
    expect(printed('storage.k8s.io', 'storageclasses', { metadata, provisioner: 'example.com/p' }).cells).toEqual([
      'x (default)',
      'example.com/p',
      'Delete',
      'Immediate',
      false,
      '120m',
    ]);
  });

  test('ingress classes, network policies, service CIDRs, IP addresses', () => {
    expect(
      printed('networking.k8s.io', 'ingressclasses', {
        spec: { controller: 'c/x', parameters: { apiGroup: 'k8s.example.com', kind: 'Params', name: 'p' } },
      }).cells,
    ).toEqual(['x', 'c/x', 'Params.k8s.example.com/p', '120m']);
    expect(printed('networking.k8s.io', 'networkpolicies', { spec: { podSelector: {} } }).cells).toEqual([
      'x',
      '<none>',
      '120m',
    ]);
    expect(
      printed('networking.k8s.io', 'servicecidrs', { spec: { cidrs: ['10.0.0.0/16', 'fd00::/108'] } }).cells,
    ).toEqual(['x', '10.0.0.0/16,fd00::/108', '120m']);
    expect(
      printed('networking.k8s.io', 'ipaddresses', {
        spec: { parentRef: { group: '', resource: 'services', namespace: 'default', name: 'kubernetes' } },
      }),
    ).toEqual({ columns: ['Name', 'ParentRef'], cells: ['x', 'services/default/kubernetes'] });
  });

  test('endpoint slices: address type, ports and endpoints (three, then + N more...)', () => {
    const endpoints = [{ addresses: ['10.0.0.1', '10.0.0.2'] }, { addresses: ['10.0.0.3', '10.0.0.4', '10.0.0.5'] }];
    expect(
      printed('discovery.k8s.io', 'endpointslices', {
        addressType: 'IPv4',
        ports: [{ name: 'http', port: 80 }],
        endpoints,
      }).cells,
    ).toEqual(['x', 'IPv4', '80', '10.0.0.1,10.0.0.2,10.0.0.3 + 2 more...', '120m']);
    expect(printed('discovery.k8s.io', 'endpointslices', { addressType: 'IPv4' }).cells).toEqual([
      'x',
      'IPv4',
      '<unset>',
      '<unset>',
      '120m',
    ]);
  });

  test('certificate signing requests: age, signer, requestor, requested duration, condition', () => {
    const spec = { signerName: 'kubernetes.io/kube-apiserver-client', username: 'alice', expirationSeconds: 3600 };
    expect(printed('certificates.k8s.io', 'certificatesigningrequests', { spec })).toEqual({
      columns: ['Name', 'Age', 'SignerName', 'Requestor', 'RequestedDuration', 'Condition'],
      cells: ['x', '120m', 'kubernetes.io/kube-apiserver-client', 'alice', '60m', 'Pending'],
    });
    const status = { conditions: [{ type: 'Approved', status: 'True' }], certificate: 'LS0t' };
    expect(printed('certificates.k8s.io', 'certificatesigningrequests', { spec, status }).cells[5]).toBe(
      'Approved,Issued',
    );
  });

  test('events.k8s.io Events print as core Events', () => {
    const event = {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      type: 'Normal',
      reason: 'Pulled',
      note: 'pulled',
      regarding: { kind: 'Pod', name: 'web' },
      eventTime: '2025-03-01T11:00:00.000000Z',
      reportingController: 'kubelet',
      reportingInstance: 'node-1',
    };
    const { columns, cells } = printed('events.k8s.io', 'events', event);
    expect(columns.slice(0, 4)).toEqual(['Last Seen', 'Type', 'Reason', 'Object']);
    expect(cells).toEqual(['60m', 'Normal', 'Pulled', 'pod/web', '', 'kubelet, node-1', 'pulled', '60m', 1, 'x']);
  });

  test('limit ranges keep the default table, as the reference has no printer for them', () => {
    expect(printed('', 'limitranges', {})).toEqual({ columns: ['Name', 'Created At'], cells: ['x', created] });
  });
});
