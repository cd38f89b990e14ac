/**
 * The storage.k8s.io CSI kinds, node.k8s.io and resource.k8s.io, served as a 1.34 server serves
 * them by default (the reference's scheduler and controller manager wait for their informers):
 * kubectl creates each, reads back what a 1.34 server stores (the expectations below were read
 * from kube-apiserver v1.34.4 for the same fixture), prints the reference's columns, and gets the
 * reference's messages for invalid objects.
 */
import { join } from 'node:path';
import { startServer, type TestServer } from '../helpers/server';

const FIXTURE = join(__dirname, 'fixtures', 'device-and-storage-kinds.yaml');

/** What kube-apiserver v1.34.4 answered for each fixture object (metadata aside but generation). */
const STORED: ReadonlyArray<[string[], object]> = [
  [
    ['csidrivers/d.example.com'],
    {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'CSIDriver',
      spec: {
        attachRequired: true,
        fsGroupPolicy: 'ReadWriteOnceWithFSType',
        podInfoOnMount: false,
        requiresRepublish: false,
        seLinuxMount: false,
        storageCapacity: false,
        volumeLifecycleModes: ['Persistent'],
      },
    },
  ],
  [
    ['csinodes/n1'],
    {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'CSINode',
      spec: { drivers: [{ name: 'd.example.com', nodeID: 'n1', topologyKeys: null }] },
    },
  ],
  [
    ['volumeattachments/va1'],
    {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'VolumeAttachment',
      spec: { attacher: 'd.example.com', nodeName: 'n1', source: { persistentVolumeName: 'pv1' } },
      status: { attached: false },
    },
  ],
  [
    ['volumeattributesclasses/vac1'],
    {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'VolumeAttributesClass',
      driverName: 'd.example.com',
      parameters: { a: 'b' },
    },
  ],
  [
    ['-n', 'default', 'csistoragecapacities/c1'],
    { apiVersion: 'storage.k8s.io/v1', kind: 'CSIStorageCapacity', storageClassName: 'sc1' },
  ],
  [['runtimeclasses/rc1'], { apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', handler: 'runc' }],
  [
    ['deviceclasses/dc1'],
    { apiVersion: 'resource.k8s.io/v1', kind: 'DeviceClass', metadata: { generation: 1 }, spec: {} },
  ],
  [
    ['-n', 'default', 'resourceclaims/rc1'],
    {
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceClaim',
      spec: {
        devices: {
          requests: [{ exactly: { allocationMode: 'ExactCount', count: 1, deviceClassName: 'dc1' }, name: 'r1' }],
        },
      },
      status: {},
    },
  ],
  [
    ['-n', 'default', 'resourceclaimtemplates/rct1'],
    {
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceClaimTemplate',
      spec: {
        metadata: {},
        spec: {
          devices: {
            requests: [{ exactly: { allocationMode: 'ExactCount', count: 1, deviceClassName: 'dc1' }, name: 'r1' }],
          },
        },
      },
    },
  ],
  [
    ['resourceslices/rs1'],
    {
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceSlice',
      metadata: { generation: 1 },
      spec: {
        devices: [{ name: 'dev1' }],
        driver: 'd.example.com',
        nodeName: 'n1',
        pool: { generation: 1, name: 'p1', resourceSliceCount: 1 },
      },
    },
  ],
];

/** Invalid objects and the first lines of what kube-apiserver v1.34.4 said of them. */
const INVALID: ReadonlyArray<[string, string[]]> = [
  [
    'apiVersion: storage.k8s.io/v1\nkind: VolumeAttachment\nmetadata: {name: va2}\nspec: {}\n',
    [
      'The VolumeAttachment "va2" is invalid: ',
      '* spec.attacher: Required value',
      '* spec.source: Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName',
    ],
  ],
  [
    'apiVersion: storage.k8s.io/v1\nkind: VolumeAttributesClass\nmetadata: {name: vac2}\n',
    [
      'The VolumeAttributesClass "vac2" is invalid: ',
      '* driverName: Required value',
      '* parameters: Required value: must contain at least one key/value pair',
    ],
  ],
  [
    'apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: rc2}\n',
    [
      `The RuntimeClass "rc2" is invalid: handler: Invalid value: "": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
    ],
  ],
  [
    'apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata: {name: rs2}\nspec: {}\n',
    ['The ResourceSlice "rs2" is invalid: ', '* spec.driver: Required value'],
  ],
];

describe('CSI, node and device-allocation kinds through kubectl', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer();
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('stores each object as a 1.34 server does', async () => {
    const created = await server.kubectl(['apply', '-f', FIXTURE]);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    for (const [target, expected] of STORED) {
      const read = await server.kubectl(['get', ...target, '-o', 'json']);
      expect(read.code).toBe(0);
      const object = JSON.parse(read.stdout) as { metadata: { generation?: number } };
      const generation = object.metadata.generation === undefined ? {} : { generation: object.metadata.generation };
      expect({ ...object, metadata: generation }).toEqual({ metadata: {}, ...expected });
    }
  });

  it('prints the reference columns', async () => {
    const drivers = await server.kubectl(['get', 'csidrivers', 'd.example.com']);
    expect(drivers.stdout.split('\n')[0].split(/\s+/)).toEqual([
      'NAME',
      'ATTACHREQUIRED',
      'PODINFOONMOUNT',
      'STORAGECAPACITY',
      'TOKENREQUESTS',
      'REQUIRESREPUBLISH',
      'MODES',
      'AGE',
    ]);
    expect(drivers.stdout.split('\n')[1]).toMatch(
      /^d\.example\.com\s+true\s+false\s+false\s+<unset>\s+false\s+Persistent\s+\d+s$/,
    );
    const claims = await server.kubectl(['get', '-n', 'default', 'resourceclaims']);
    expect(claims.stdout).toMatch(/^NAME\s+STATE\s+AGE\nrc1\s+pending\s+\d+s\n$/);
    const slices = await server.kubectl(['get', 'resourceslices']);
    expect(slices.stdout).toMatch(/^NAME\s+NODE\s+DRIVER\s+POOL\s+AGE\nrs1\s+n1\s+d\.example\.com\s+p1\s+\d+s\n$/);
    // A node's slices, by field selector, as kubelets and the scheduler list them.
    const mine = await server.kubectl(['get', 'resourceslices', '--field-selector', 'spec.nodeName=n1', '-o', 'name']);
    expect(mine.stdout).toBe('resourceslice.resource.k8s.io/rs1\n');
    const others = await server.kubectl([
      'get',
      'resourceslices',
      '--field-selector',
      'spec.nodeName=n2',
      '-o',
      'name',
    ]);
    expect(others.stdout).toBe('');
  });

  it.each(INVALID)('refuses an invalid object with the reference message: %s', async (yaml, lines) => {
    const result = await server.kubectl(['create', '-f', '-'], { input: yaml });
    expect(result.code).not.toBe(0);
    expect(result.stderr.trimEnd().split('\n').slice(0, lines.length)).toEqual(lines);
  });
});
