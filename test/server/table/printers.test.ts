import { customResourcePrinter } from '../../../server/apiextensions/printer-columns';
import { definitionDescriptions } from '../../../server/schema/descriptions';
import { humanDuration } from '../../../server/table/human-duration';
import type { Printer } from '../../../server/table/printer';
import { printerFor } from './printer-of';
import type { KubeObject } from '../../../api/objects';
import { deployment, job, node, pod, service, configMap, secret, namespace } from '../codec/fixtures';

const now = new Date('2025-03-01T12:00:00Z');

function cells(group: string, resource: string, object: unknown): unknown[] {
  return printerFor({ group, resource }).print(object as KubeObject, now).cells;
}

describe('ages', () => {
  test.each([
    [5_000, '5s'],
    [119_000, '119s'],
    [125_000, '2m5s'],
    [600_000, '10m'],
    [2 * 3600_000 + 60_000, '121m'],
    [4 * 3600_000 + 30 * 60_000, '4h30m'],
    [30 * 3600_000, '30h'],
    [3 * 86400_000 + 4 * 3600_000, '3d4h'],
    [100 * 86400_000, '100d'],
    [3 * 365 * 86400_000 + 20 * 86400_000, '3y20d'],
    [-500, '0s'],
    [-5_000, '<invalid>'],
  ])('%d ms → %s', (milliseconds, text) => {
    expect(humanDuration(milliseconds)).toBe(text);
  });
});

describe('printers', () => {
  test('pods: ready, status, restarts with the last restart, wide columns', () => {
    expect(cells('', 'pods', pod)).toEqual([
      'web-0',
      '1/1',
      'Running',
      '2 (120m ago)',
      '120m',
      '10.0.0.5',
      'node-1',
      '<none>',
      '<none>',
    ]);
  });
  test('deployments: ready of desired, up-to-date, available, containers, images, selector', () => {
    expect(cells('apps', 'deployments', deployment)).toEqual([
      'web',
      '2/0',
      3,
      2,
      '120m',
      'web',
      'nginx:1.27',
      'app=web,tier in (a,b)',
    ]);
  });
  test('services: type, cluster IP, external IP, ports with node ports, selector', () => {
    expect(cells('', 'services', service)).toEqual([
      'web',
      'NodePort',
      '10.96.0.20',
      '<none>',
      '80:30080/TCP,9090/TCP',
      '120m',
      'app=web',
    ]);
  });
  test('namespaces, configmaps, secrets', () => {
    expect(cells('', 'namespaces', namespace)).toEqual(['team-a', 'Active', '120m']);
    expect(cells('', 'configmaps', configMap)).toEqual(['web-config', 3, '120m']);
    expect(cells('', 'secrets', secret)).toEqual(['web-secret', 'Opaque', 1, '120m']);
  });
  test('nodes: status, roles, version', () => {
    expect(cells('', 'nodes', node).slice(0, 5)).toEqual(['node-1', 'Ready', 'control-plane', '120m', 'v1.34.0']);
  });
  test('jobs: status, completions, duration', () => {
    expect(cells('batch', 'jobs', job).slice(0, 4)).toEqual(['pi', 'Running', '1/1', '65s']);
  });
  test('kinds without a printer: Name and Created At', () => {
    expect(printerFor({ group: '', resource: 'limitranges' }).columns.map((column) => column.name)).toEqual([
      'Name',
      'Created At',
    ]);
  });
});

// The reference describes these columns by ObjectMeta's field documentation, whole, in every
// table: its printers' and its default one's (the Name and Age of a ConfigMap's and a custom
// resource's tables are compared with its recorded answers in index-key-order.test.ts).
describe('columns described by a field', () => {
  const objectMeta = definitionDescriptions('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
  const described = (printer: Printer) =>
    Object.fromEntries(printer.columns.map((column) => [column.name, column.description]));

  test("are described by ObjectMeta's name and creationTimestamp documentation", () => {
    expect(objectMeta.name).toMatch(/^Name must be unique within a namespace\. .*#names$/);
    expect(objectMeta.creationTimestamp).toMatch(/^CreationTimestamp is a timestamp .*\n\nPopulated by the system\./s);
    expect(described(printerFor({ group: '', resource: 'limitranges' }))).toEqual({
      Name: objectMeta.name,
      'Created At': objectMeta.creationTimestamp,
    });
    expect(described(printerFor({ group: 'rbac.authorization.k8s.io', resource: 'roles' }))).toEqual({
      Name: objectMeta.name,
      'Created At': objectMeta.creationTimestamp,
    });
    const pods = described(printerFor({ group: '', resource: 'pods' }));
    expect([pods.Name, pods.Age]).toEqual([objectMeta.name, objectMeta.creationTimestamp]);
    expect(described(printerFor({ group: '', resource: 'events' })).Name).toBe(objectMeta.name);
  });

  test("ConfigMaps' and Secrets' other columns are described by their fields' documentation", () => {
    const configMap = definitionDescriptions('io.k8s.api.core.v1.ConfigMap');
    const secret = definitionDescriptions('io.k8s.api.core.v1.Secret');
    expect(configMap.data).toMatch(/^Data contains the configuration data\./);
    expect(described(printerFor({ group: '', resource: 'configmaps' })).Data).toBe(configMap.data);
    expect(described(printerFor({ group: '', resource: 'secrets' }))).toMatchObject({
      Type: secret.type,
      Data: secret.data,
    });
    expect(secret.type).toMatch(/^Used to facilitate programmatic handling of secret data\./);
  });

  // Checked against kube-apiserver 1.34.4's tables of every resource it serves by default
  // (2026-12-01): these matched, where capstan had worded them itself.
  test("other kinds' columns carry the documentation of the field the reference names", () => {
    const doc = (definition: string, field: string) => definitionDescriptions(definition)[field];
    const columnsOf = (group: string, resource: string) => printerFor({ group, resource }).columns;
    const serviceType = columnsOf('', 'services').find((column) => column.name === 'Type');
    // The OpenAPI text lists an enum's values after the documentation; the reference's does not.
    expect(doc('io.k8s.api.core.v1.ServiceSpec', 'type')).toContain('\n\nPossible enum values:');
    expect(serviceType?.description).toBe(
      doc('io.k8s.api.core.v1.ServiceSpec', 'type').split('\n\nPossible enum values:')[0],
    );
    expect(columnsOf('', 'nodes').find((column) => column.name === 'Version')?.description).toBe(
      doc('io.k8s.api.core.v1.NodeSystemInfo', 'kubeletVersion'),
    );
    const role = (resource: string) =>
      columnsOf('rbac.authorization.k8s.io', resource).find((column) => column.name === 'Role')?.description;
    expect(role('rolebindings')).toBe(doc('io.k8s.api.rbac.v1beta1.RoleBinding', 'roleRef'));
    expect(role('clusterrolebindings')).toBe(doc('io.k8s.api.rbac.v1beta1.ClusterRoleBinding', 'roleRef'));
    expect(role('rolebindings')).not.toBe(role('clusterrolebindings'));
    // The reference types a Deployment's counts `string`.
    expect(
      columnsOf('apps', 'deployments')
        .filter((column) => ['Up-to-date', 'Available'].includes(column.name))
        .map((column) => [column.type, column.description]),
    ).toEqual([
      ['string', doc('io.k8s.api.extensions.v1beta1.DeploymentStatus', 'updatedReplicas')],
      ['string', doc('io.k8s.api.extensions.v1beta1.DeploymentStatus', 'availableReplicas')],
    ]);
  });

  test("a custom resource version that declares no columns gets the creation time's documentation for Age", () => {
    expect(described(customResourcePrinter(undefined))).toEqual({
      Name: objectMeta.name,
      Age: objectMeta.creationTimestamp,
    });
  });
});

describe('documented columns', () => {
  afterEach(() => jest.restoreAllMocks());

  it('read the descriptions file once, whatever definitions their tables ask for', () => {
    jest.isolateModules(() => {
      // The module object itself, which the descriptions module reads through.
      const fs = require('node:fs') as typeof import('node:fs');
      const read = jest.spyOn(fs, 'readFileSync');
      const { printerFor: isolatedPrinterFor } = require('./printer-of') as typeof import('./printer-of');
      const described = ['services', 'nodes', 'configmaps'].flatMap((resource) =>
        isolatedPrinterFor({ group: '', resource }).columns.map((column) => column.description),
      );
      expect(described.filter((text) => text !== '').length).toBeGreaterThan(10);
      const descriptionReads = read.mock.calls.filter(([file]) => String(file).endsWith('descriptions.json'));
      expect(descriptionReads).toHaveLength(1);
    });
  });
});
