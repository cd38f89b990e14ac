/**
 * The reference kube-apiserver 1.34 with resource.k8s.io v1beta1 and v1beta2 switched on (and
 * the DRA feature gates whose fields the conversions carry), beside capstan with the same flags:
 * - objects written through one version are read through all three, and capstan's conversions
 *   must turn each of the reference's views into each other (RECORD_RESOURCE_VERSIONS=1 writes
 *   the views to the fixture test/server/registry/resource-versions.test.ts checks without a
 *   reference);
 * - capstan, given the same writes, serves the same objects at every version, tables included;
 * - invalid objects are refused with the same Status through either version;
 * - discovery of the group and of each version is the same.
 */
import { writeFileSync } from 'node:fs';
import type { KubeObject } from '../../api/objects';
import { startEtcd, type EtcdServer } from '../helpers/etcd';
import { startInProcessServer, type InProcessServer } from '../helpers/in-process-server';
import {
  buildReferenceApiserver,
  startReferenceApiserver,
  type ReferenceApiserver,
} from '../helpers/reference-apiserver';
import {
  conversionsOf,
  FIXTURE_FILE,
  RESOURCE_VERSIONS,
  type RecordedViews,
  type ResourceVersion,
} from '../server/registry/resource-version-views';

jest.setTimeout(240_000);
const BUILD_TIMEOUT_MS = 40 * 60_000;
beforeAll(() => buildReferenceApiserver(BUILD_TIMEOUT_MS), BUILD_TIMEOUT_MS);

const REFERENCE_DRA_FLAGS = [
  '--runtime-config=resource.k8s.io/v1beta1=true,resource.k8s.io/v1beta2=true',
  '--feature-gates=DRAConsumableCapacity=true,DRADeviceBindingConditions=true,DRADeviceTaints=true,DRAExtendedResource=true,DRAPartitionableDevices=true',
  '--disable-admission-plugins=ServiceAccount',
  '--service-cluster-ip-range=10.96.0.0/12',
];

const NAMESPACE = 'dra';
/** A namespace without the label that grants admin access to devices. */
const PLAIN_NAMESPACE = 'plain';
type Json = Record<string, unknown>;

interface Case {
  readonly name: string;
  /** Plural resource, and whether it lives in NAMESPACE. */
  readonly resource: string;
  readonly namespaced: boolean;
  readonly version: ResourceVersion;
  readonly object: Json;
  /** A status then written through another version (a claim's allocation, as the scheduler writes it). */
  readonly status?: { readonly version: ResourceVersion; readonly status: Json };
  /**
   * Why capstan's managedFields for this write differ from the reference's, where they do for a
   * reason outside these kinds; the rest of the object is still compared.
   */
  readonly managedFieldsGap?: string;
  /** A namespace other than NAMESPACE (which grants admin access to devices). */
  readonly namespace?: string;
}

const CLASS = 'gpu.example.com';
const cel = (expression: string) => ({ cel: { expression } });

const CASES: Case[] = [
  {
    name: 'device class written through v1beta1',
    resource: 'deviceclasses',
    namespaced: false,
    version: 'v1beta1',
    object: {
      metadata: { name: CLASS },
      spec: {
        selectors: [cel(`device.driver == "${CLASS}"`)],
        config: [{ opaque: { driver: CLASS, parameters: { sharing: 'timeSliced' } } }],
        extendedResourceName: 'example.com/gpu',
      },
    },
  },
  {
    name: 'node-local slice written through v1beta1, devices with every property and none',
    resource: 'resourceslices',
    namespaced: false,
    version: 'v1beta1',
    object: {
      metadata: { name: 'node-a-gpus' },
      spec: {
        driver: CLASS,
        pool: { name: 'node-a', generation: 1, resourceSliceCount: 1 },
        nodeName: 'node-a',
        devices: [
          {
            name: 'gpu-0',
            basic: {
              attributes: {
                model: { string: 'A100' },
                'example.com/index': { int: 0 },
                healthy: { bool: true },
                driverVersion: { version: '1.2.3' },
              },
              capacity: { memory: { value: '40Gi' }, cores: { value: '1500m' } },
              taints: [{ key: 'maintenance', value: 'soon', effect: 'NoSchedule' }],
              bindsToNode: true,
              bindingConditions: ['ready'],
              bindingFailureConditions: ['failed'],
              allowMultipleAllocations: false,
            },
          },
          { name: 'gpu-1', basic: {} },
          { name: 'gpu-2' },
        ],
      },
    },
  },
  {
    name: 'cluster-wide slice written through v1, with shared counters and consumable capacity',
    resource: 'resourceslices',
    namespaced: false,
    version: 'v1',
    object: {
      metadata: { name: 'network' },
      spec: {
        driver: 'net.example.com',
        pool: { name: 'fabric', generation: 2, resourceSliceCount: 1 },
        allNodes: true,
        sharedCounters: [{ name: 'port-counters', counters: { bandwidth: { value: '100Gi' } } }],
        devices: [
          {
            name: 'port-0',
            attributes: { speed: { int: 100 } },
            capacity: {
              bandwidth: {
                value: '100Gi',
                requestPolicy: { default: '1Gi', validRange: { min: '1Gi', step: '1Gi' } },
              },
            },
            consumesCounters: [{ counterSet: 'port-counters', counters: { bandwidth: { value: '100Gi' } } }],
            allowMultipleAllocations: true,
          },
        ],
      },
    },
  },
  {
    name: 'slice written through v1, with its node chosen per device',
    resource: 'resourceslices',
    namespaced: false,
    version: 'v1',
    object: {
      metadata: { name: 'per-device' },
      spec: {
        driver: 'fpga.example.com',
        pool: { name: 'rack-1', generation: 1, resourceSliceCount: 1 },
        perDeviceNodeSelection: true,
        devices: [
          { name: 'fpga-0', nodeName: 'node-b' },
          {
            name: 'fpga-1',
            nodeSelector: {
              nodeSelectorTerms: [{ matchExpressions: [{ key: 'rack', operator: 'In', values: ['1'] }] }],
            },
          },
          { name: 'fpga-2', allNodes: true },
        ],
      },
    },
  },
  {
    name: 'slice written through v1beta2 with a node selector',
    resource: 'resourceslices',
    namespaced: false,
    version: 'v1beta2',
    object: {
      metadata: { name: 'rack-2' },
      spec: {
        driver: 'fpga.example.com',
        pool: { name: 'rack-2', generation: 1, resourceSliceCount: 1 },
        nodeSelector: {
          nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n'] }] }],
        },
        devices: [{ name: 'fpga-0', attributes: { slot: { int: 3 } } }],
      },
    },
  },
  {
    name: 'claim written through v1beta1 (flat, alternatives and defaults), allocated through v1beta2',
    resource: 'resourceclaims',
    namespaced: true,
    version: 'v1beta1',
    object: {
      metadata: { name: 'training' },
      spec: {
        devices: {
          requests: [
            {
              name: 'gpu',
              deviceClassName: CLASS,
              selectors: [cel('device.attributes["gpu.example.com"].model == "A100"')],
              allocationMode: 'ExactCount',
              count: 2,
              adminAccess: false,
              tolerations: [{ key: 'maintenance', operator: 'Exists', effect: 'NoSchedule' }],
              capacity: { requests: { memory: '1Gi' } },
            },
            {
              name: 'any',
              firstAvailable: [
                { name: 'big', deviceClassName: CLASS, count: 1 },
                { name: 'all', deviceClassName: CLASS, allocationMode: 'All' },
              ],
            },
            { name: 'minimal', deviceClassName: CLASS },
          ],
          constraints: [{ requests: ['gpu'], matchAttribute: 'gpu.example.com/model' }],
          config: [{ requests: ['gpu'], opaque: { driver: CLASS, parameters: { a: 1 } } }],
        },
      },
    },
    status: {
      version: 'v1beta2',
      status: {
        allocation: {
          devices: {
            results: [
              {
                request: 'gpu',
                driver: CLASS,
                pool: 'node-a',
                device: 'gpu-0',
                adminAccess: false,
                tolerations: [{ key: 'maintenance', operator: 'Exists', effect: 'NoSchedule' }],
                bindingConditions: ['ready'],
                bindingFailureConditions: ['failed'],
                consumedCapacity: { memory: '1Gi' },
              },
              { request: 'any/big', driver: CLASS, pool: 'node-a', device: 'gpu-1' },
              { request: 'minimal', driver: CLASS, pool: 'node-a', device: 'gpu-2' },
            ],
            config: [{ source: 'FromClaim', requests: ['gpu'], opaque: { driver: CLASS, parameters: { a: 1 } } }],
          },
          nodeSelector: {
            nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node-a'] }] }],
          },
        },
        reservedFor: [{ resource: 'pods', name: 'trainer', uid: '5a9b6c1e-0000-4000-8000-000000000001' }],
        devices: [
          {
            driver: CLASS,
            pool: 'node-a',
            device: 'gpu-0',
            conditions: [
              {
                type: 'Ready',
                status: 'True',
                reason: 'Up',
                message: '',
                lastTransitionTime: '2025-01-01T00:00:00Z',
              },
            ],
            data: { temperature: 40 },
            networkData: { interfaceName: 'eth1', ips: ['10.9.8.7/24'], hardwareAddress: 'ea:9f:cb:40:b1:7b' },
          },
        ],
      },
    },
  },
  {
    name: 'claim written through v1 with exactly, alternatives and admin access',
    resource: 'resourceclaims',
    namespaced: true,
    version: 'v1',
    object: {
      metadata: { name: 'admin' },
      spec: {
        devices: {
          requests: [
            {
              name: 'all-gpus',
              exactly: { deviceClassName: CLASS, allocationMode: 'All', adminAccess: true },
            },
            {
              name: 'one',
              firstAvailable: [
                {
                  name: 'tolerant',
                  deviceClassName: CLASS,
                  tolerations: [{ key: 'maintenance', operator: 'Equal', value: 'soon', effect: 'NoExecute' }],
                  capacity: { requests: { memory: '2Gi' } },
                },
              ],
            },
          ],
        },
      },
    },
  },
  {
    name: 'claim template written through v1beta2',
    resource: 'resourceclaimtemplates',
    namespaced: true,
    version: 'v1beta2',
    object: {
      metadata: { name: 'gpu-template' },
      spec: {
        metadata: { labels: { app: 'training' } },
        spec: {
          devices: {
            requests: [
              {
                name: 'gpu',
                exactly: {
                  deviceClassName: CLASS,
                  selectors: [cel('device.capacity["gpu.example.com"].memory.compareTo(quantity("10Gi")) >= 0')],
                },
              },
              { name: 'fallback', firstAvailable: [{ name: 'any', deviceClassName: CLASS }] },
            ],
          },
        },
      },
    },
  },
  {
    name: 'claim template written through v1beta1, with an empty toleration list',
    resource: 'resourceclaimtemplates',
    namespaced: true,
    version: 'v1beta1',
    object: {
      metadata: { name: 'flat-template' },
      spec: { spec: { devices: { requests: [{ name: 'gpu', deviceClassName: CLASS, tolerations: [] }] } } },
    },
    managedFieldsGap:
      'the reference counts a create against the kind’s empty Go object, which already has the ' +
      'template’s `spec.metadata: {}`; capstan counts it against nothing, so it credits `f:metadata`',
  },
];

let etcd: EtcdServer;
let reference: ReferenceApiserver;
let capstan: InProcessServer;
/** Each case as the reference serves it at each version, and as capstan does. */
const referenceViews: RecordedViews[] = [];
const capstanViews: RecordedViews[] = [];

beforeAll(async () => {
  etcd = await startEtcd();
  reference = await startReferenceApiserver({ etcdServers: etcd.endpoints, flags: REFERENCE_DRA_FLAGS });
  const namespace = {
    apiVersion: 'v1',
    kind: 'Namespace',
    // Admin access to devices is only granted in namespaces that say so.
    metadata: { name: NAMESPACE, labels: { 'resource.kubernetes.io/admin-access': 'true' } },
  };
  const plain = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: PLAIN_NAMESPACE } };
  await send(reference, 'POST', '/api/v1/namespaces', namespace, 201);
  await send(reference, 'POST', '/api/v1/namespaces', plain, 201);
  for (const c of CASES) referenceViews.push(await record(reference, c));
  capstan = await startInProcessServer(REFERENCE_DRA_FLAGS);
  await send(capstan, 'POST', '/api/v1/namespaces', namespace, 201);
  await send(capstan, 'POST', '/api/v1/namespaces', plain, 201);
  for (const c of CASES) capstanViews.push(await record(capstan, c));
});

afterAll(async () => {
  await capstan?.stop();
  await reference?.stop();
  await etcd?.stop();
});

type Server = Pick<ReferenceApiserver, 'request'>;

async function send(server: Server, method: string, path: string, body: unknown, status: number): Promise<KubeObject> {
  const answer = await server.request(method, path, {
    body: body === undefined ? undefined : JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  });
  if (answer.status !== status) throw new Error(`${method} ${path}: ${answer.status} ${answer.body}`);
  return answer.json<KubeObject>();
}

function collectionPath(c: Case, version: ResourceVersion): string {
  const namespace = c.namespaced ? `/namespaces/${c.namespace ?? NAMESPACE}` : '';
  return `/apis/resource.k8s.io/${version}${namespace}/${c.resource}`;
}

async function record(server: Server, c: Case): Promise<RecordedViews> {
  const kind = (c.object.kind as string | undefined) ?? KINDS[c.resource];
  const sent = { apiVersion: `resource.k8s.io/${c.version}`, kind, ...c.object };
  const created = await send(server, 'POST', collectionPath(c, c.version), sent, 201);
  const name = created.metadata.name ?? '';
  if (c.status !== undefined) {
    const path = `${collectionPath(c, c.status.version)}/${name}`;
    const current = await send(server, 'GET', path, undefined, 200);
    await send(server, 'PUT', `${path}/status`, { ...current, status: c.status.status }, 200);
  }
  const views = {} as Record<ResourceVersion, KubeObject>;
  for (const version of RESOURCE_VERSIONS)
    views[version] = await send(server, 'GET', `${collectionPath(c, version)}/${name}`, undefined, 200);
  return { name: c.name, views };
}

const KINDS: Record<string, string> = {
  deviceclasses: 'DeviceClass',
  resourceslices: 'ResourceSlice',
  resourceclaims: 'ResourceClaim',
  resourceclaimtemplates: 'ResourceClaimTemplate',
};

test('every view the reference serves is capstan’s conversion of every other', async () => {
  if (process.env.RECORD_RESOURCE_VERSIONS === '1')
    writeFileSync(FIXTURE_FILE, JSON.stringify(referenceViews, null, 1) + '\n');
  for (const views of referenceViews)
    for (const { from, to, actual, expected } of conversionsOf(views))
      expect({ case: views.name, from, to, object: actual }).toEqual({ case: views.name, from, to, object: expected });
});

/**
 * What differs between two servers' copies of one write: identity, creation and write times, and
 * the time the defaults stamp on a device taint (present on both, from each server's clock).
 */
function comparable(object: KubeObject, c: Case): KubeObject {
  const { uid: _uid, resourceVersion: _rv, creationTimestamp: _created, managedFields, ...metadata } = object.metadata;
  const managers =
    c.managedFieldsGap === undefined
      ? (managedFields as Json[] | undefined)?.map(({ time: _time, ...entry }) => entry)
      : undefined;
  const body = JSON.parse(JSON.stringify(object), (key, value: unknown) =>
    key === 'timeAdded' && typeof value === 'string' ? 'stamped' : value,
  ) as KubeObject;
  return { ...body, metadata: { ...metadata, ...(managers ? { managedFields: managers } : {}) } };
}

test('capstan serves each object at each version as the reference does', async () => {
  for (const [index, c] of CASES.entries()) {
    const [expected, actual] = [referenceViews[index], capstanViews[index]];
    for (const version of RESOURCE_VERSIONS)
      expect({ case: c.name, version, object: comparable(actual.views[version], c) }).toEqual({
        case: c.name,
        version,
        object: comparable(expected.views[version], c),
      });
  }
});

/** Objects both servers refuse: the refusal must be the same, whichever version it came through. */
const INVALID: Case[] = [
  {
    name: 'v1beta1 request with a class and alternatives',
    resource: 'resourceclaims',
    namespaced: true,
    version: 'v1beta1',
    object: {
      metadata: { name: 'both' },
      spec: {
        devices: {
          requests: [{ name: 'r', deviceClassName: CLASS, firstAvailable: [{ name: 'a', deviceClassName: CLASS }] }],
        },
      },
    },
  },
  {
    name: 'v1beta1 request with neither a class nor alternatives',
    resource: 'resourceclaims',
    namespaced: true,
    version: 'v1beta1',
    object: { metadata: { name: 'neither' }, spec: { devices: { requests: [{ name: 'r' }] } } },
  },
  {
    name: 'v1beta1 request with an unknown allocation mode',
    resource: 'resourceclaims',
    namespaced: true,
    version: 'v1beta1',
    object: {
      metadata: { name: 'mode' },
      spec: { devices: { requests: [{ name: 'r', deviceClassName: CLASS, allocationMode: 'Some' }] } },
    },
  },
  {
    name: 'v1beta1 slice with a node name and all nodes',
    resource: 'resourceslices',
    namespaced: false,
    version: 'v1beta1',
    object: {
      metadata: { name: 'two-selections' },
      spec: {
        driver: CLASS,
        pool: { name: 'p', generation: 1, resourceSliceCount: 1 },
        nodeName: 'n',
        allNodes: true,
        devices: [{ name: 'd', basic: { attributes: { a: { string: 'x', int: 1 } } } }],
      },
    },
  },
  {
    name: 'v1 slice with a bad pool, an empty node name, two selector terms and two devices of one name',
    resource: 'resourceslices',
    namespaced: false,
    version: 'v1',
    object: {
      metadata: { name: 'bad-pool' },
      spec: {
        driver: CLASS,
        pool: { name: 'rack/Bad_Part', generation: -1, resourceSliceCount: 0 },
        nodeName: '',
        nodeSelector: {
          nodeSelectorTerms: [
            { matchExpressions: [{ key: 'a', operator: 'Exists' }] },
            { matchExpressions: [{ key: 'b', operator: 'Exists' }] },
          ],
        },
        perDeviceNodeSelection: false,
        devices: [
          { name: 'd', nodeName: 'n' },
          { name: 'd', attributes: { x: {} } },
        ],
      },
    },
  },
  {
    name: 'v1 slice choosing nodes per device, with devices choosing none, two, and empty ones',
    resource: 'resourceslices',
    namespaced: false,
    version: 'v1',
    object: {
      metadata: { name: 'per-device-bad' },
      spec: {
        driver: CLASS,
        pool: { name: 'p', generation: 1, resourceSliceCount: 1 },
        perDeviceNodeSelection: true,
        devices: [
          { name: 'a' },
          { name: 'b', nodeName: 'n', allNodes: true },
          { name: 'c', nodeName: '', allNodes: false },
        ],
      },
    },
  },
  {
    name: 'v1beta1 slice reachable nowhere, with a device name that is no label',
    resource: 'resourceslices',
    namespaced: false,
    version: 'v1beta1',
    object: {
      metadata: { name: 'nowhere' },
      spec: {
        driver: CLASS,
        pool: { name: 'p', generation: 1, resourceSliceCount: 1 },
        devices: [{ name: 'Bad_Name' }],
      },
    },
  },
  {
    // One attribute or capacity per device: Go walks a map in no fixed order, nor do its errors come.
    name: 'v1 slice with bad attribute and capacity names, a shared capacity, and bad taints',
    resource: 'resourceslices',
    namespaced: false,
    version: 'v1',
    object: {
      metadata: { name: 'bad-devices' },
      spec: {
        driver: CLASS,
        pool: { name: 'p', generation: 1, resourceSliceCount: 1 },
        allNodes: true,
        devices: [
          { name: 'a', attributes: { 'bad-name': { int: 1 } } },
          { name: 'b', attributes: { 'x.example.com/': { int: 1 } } },
          { name: 'c', attributes: { '/y': { bool: true } } },
          { name: 'd', attributes: { 'Bad_Domain/a_name_much_longer_than_thirty_two_characters': { int: 1 } } },
          { name: 'e', capacity: { memory: { value: '1Gi', requestPolicy: { default: '1Mi' } } } },
          { name: 'f', capacity: { 'x/y/z': { value: '1' } } },
          {
            name: 'g',
            taints: [
              { key: '', effect: '' },
              { key: 'k', value: 'not a value', effect: 'Evict' },
            ],
          },
        ],
      },
    },
  },
  {
    name: 'v1 slice with bad shared counters, consumption of unknown ones, and bad attribute values',
    resource: 'resourceslices',
    namespaced: false,
    version: 'v1',
    object: {
      metadata: { name: 'bad-counters' },
      spec: {
        driver: CLASS,
        pool: { name: 'p', generation: 1, resourceSliceCount: 1 },
        allNodes: true,
        sharedCounters: [
          { name: 's1', counters: { c1: { value: '1' } } },
          { name: 'Bad', counters: { Bad_C: { value: '1' } } },
          { name: 's1', counters: {} },
        ],
        devices: [
          { name: 'a', consumesCounters: [{ counterSet: 's1', counters: { c2: { value: '1' } } }] },
          {
            name: 'b',
            consumesCounters: [
              { counterSet: 'nope', counters: { c1: { value: '1' } } },
              { counterSet: '', counters: {} },
              { counterSet: 'nope', counters: { c1: { value: '1' } } },
            ],
          },
          { name: 'c', attributes: { v: { version: '1.2' } } },
          { name: 'd', attributes: { s: { string: 'x'.repeat(65) } } },
          { name: 'e', attributes: { v: { version: `1.2.3-${'a'.repeat(60)}`, int: 1 } } },
        ],
      },
    },
  },
  {
    name: 'v1beta1 claim asking for admin access where the namespace does not grant it',
    resource: 'resourceclaims',
    namespaced: true,
    namespace: PLAIN_NAMESPACE,
    version: 'v1beta1',
    object: {
      metadata: { name: 'admin' },
      spec: {
        devices: {
          requests: [
            { name: 'one', deviceClassName: CLASS },
            { name: 'all', deviceClassName: CLASS, allocationMode: 'All', adminAccess: true },
          ],
        },
      },
    },
  },
  {
    name: 'v1 claim template asking for admin access where the namespace does not grant it',
    resource: 'resourceclaimtemplates',
    namespaced: true,
    namespace: PLAIN_NAMESPACE,
    version: 'v1',
    object: {
      metadata: { name: 'admin' },
      spec: {
        spec: { devices: { requests: [{ name: 'r', exactly: { deviceClassName: CLASS, adminAccess: true } }] } },
      },
    },
  },
  {
    name: 'v1 request with exactly and alternatives',
    resource: 'resourceclaims',
    namespaced: true,
    version: 'v1',
    object: {
      metadata: { name: 'both-v1' },
      spec: {
        devices: {
          requests: [
            { name: 'r', exactly: { deviceClassName: CLASS }, firstAvailable: [{ name: 'a', deviceClassName: CLASS }] },
          ],
        },
      },
    },
  },
];

async function refusal(server: Server, c: Case): Promise<unknown> {
  const sent = { apiVersion: `resource.k8s.io/${c.version}`, kind: KINDS[c.resource], ...c.object };
  const answer = await server.request('POST', collectionPath(c, c.version), {
    body: JSON.stringify(sent),
    headers: { 'content-type': 'application/json' },
  });
  return { status: answer.status, body: answer.json() };
}

test.each(INVALID.map((c) => [c.name, c] as const))('%s: refused as the reference refuses it', async (_name, c) => {
  expect(await refusal(capstan, c)).toEqual(await refusal(reference, c));
});

test.each(RESOURCE_VERSIONS)('discovery of resource.k8s.io/%s is the reference’s', async (version) => {
  const path = `/apis/resource.k8s.io/${version}`;
  const [ours, theirs] = await Promise.all([capstan.request('GET', path), reference.request('GET', path)]);
  expect(ours.json()).toEqual(theirs.json());
});

test('the group’s versions are the reference’s, v1 preferred', async () => {
  const [ours, theirs] = await Promise.all([
    capstan.request('GET', '/apis/resource.k8s.io'),
    reference.request('GET', '/apis/resource.k8s.io'),
  ]);
  expect(ours.json()).toEqual(theirs.json());
});

/**
 * `kubectl get` of one object at one version: the reference's columns and cells, the age aside,
 * and the columns' descriptions, which are the reference's API documentation and not copied.
 */
async function tableOf(server: Server, c: Case, version: ResourceVersion): Promise<unknown> {
  const name = (c.object.metadata as { name: string }).name;
  const answer = await server.request('GET', `${collectionPath(c, version)}/${name}`, {
    headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' },
  });
  const table = answer.json<{
    columnDefinitions: { name: string; description: string }[];
    rows: { cells: unknown[] }[];
  }>();
  const age = table.columnDefinitions.findIndex((column) => column.name === 'Age');
  return {
    columns: table.columnDefinitions.map(({ description: _description, ...column }) => column),
    rows: table.rows.map((row) => row.cells.filter((_cell, index) => index !== age)),
  };
}

test.each(RESOURCE_VERSIONS)('kubectl’s table of each object at %s is the reference’s', async (version) => {
  for (const c of CASES)
    expect({ case: c.name, table: await tableOf(capstan, c, version) }).toEqual({
      case: c.name,
      table: await tableOf(reference, c, version),
    });
});

const RESULT = { request: 'gpu', driver: CLASS, pool: 'node-a', device: 'gpu-0' };
const ALLOCATION = { devices: { results: [RESULT] } };
const POD = { resource: 'pods', name: 'trainer', uid: '5a9b6c1e-0000-4000-8000-000000000002' };

/** Status writes both servers refuse, in order through v1beta1 (the last is the one compared). */
const INVALID_STATUSES: { name: string; statuses: Json[] }[] = [
  { name: 'reserved before it is allocated', statuses: [{ reservedFor: [POD] }] },
  {
    name: 'a consumer without a name and one reserved twice',
    statuses: [{ allocation: ALLOCATION, reservedFor: [POD, POD, { resource: 'pods', uid: 'u' }] }],
  },
  {
    name: 'results naming no request of the claim, a bad pool and device',
    statuses: [
      {
        allocation: {
          devices: {
            results: [
              { ...RESULT, request: 'cpu' },
              { ...RESULT, request: 'any/b', pool: 'Pool_A', device: 'GPU 1' },
              { ...RESULT, request: 'gpu/x/y' },
            ],
          },
        },
      },
    ],
  },
  {
    name: 'device statuses for a device not allocated, twice, with data that is no object and long network names',
    statuses: [
      {
        allocation: ALLOCATION,
        devices: [
          { driver: CLASS, pool: 'node-a', device: 'gpu-0', data: [1, 2] },
          { driver: CLASS, pool: 'node-a', device: 'gpu-9' },
          { driver: CLASS, pool: 'node-a', device: 'gpu-9', networkData: { interfaceName: 'i'.repeat(257) } },
          {
            driver: 'Bad_Driver',
            pool: 'Pool_A',
            device: 'GPU',
            networkData: { hardwareAddress: 'a'.repeat(129) },
          },
        ],
      },
    ],
  },
  {
    name: 'an allocation changed once written',
    statuses: [
      { allocation: ALLOCATION },
      {
        allocation: {
          devices: {
            results: [
              {
                ...RESULT,
                device: 'gpu-1',
                adminAccess: false,
                tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 5 }],
                bindingConditions: ['ready'],
                bindingFailureConditions: ['failed'],
                consumedCapacity: { memory: '1Gi' },
              },
            ],
            config: [{ source: 'FromClass', requests: ['gpu'], opaque: { driver: CLASS, parameters: { a: 1 } } }],
          },
          nodeSelector: {
            nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node-a'] }] }],
          },
          allocationTimestamp: '2025-01-01T00:00:00Z',
        },
      },
    ],
  },
];

async function statusRefusal(server: Server, name: string, statuses: Json[], namespace = NAMESPACE): Promise<unknown> {
  const claim = {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceClaim',
    metadata: { name },
    spec: {
      devices: {
        requests: [
          { name: 'gpu', exactly: { deviceClassName: CLASS } },
          { name: 'any', firstAvailable: [{ name: 'a', deviceClassName: CLASS }] },
        ],
      },
    },
  };
  const base = `/apis/resource.k8s.io/v1beta1/namespaces/${namespace}/resourceclaims`;
  await send(server, 'POST', base.replace('v1beta1', 'v1'), claim, 201);
  let last: unknown;
  for (const status of statuses) {
    const current = await send(server, 'GET', `${base}/${name}`, undefined, 200);
    const answer = await server.request('PUT', `${base}/${name}/status`, {
      body: JSON.stringify({ ...current, status }),
      headers: { 'content-type': 'application/json' },
    });
    last = { status: answer.status, body: answer.status === 200 ? 'written' : answer.json() };
  }
  return last;
}

test.each(INVALID_STATUSES.map((c, index) => [c.name, index, c] as const))(
  'a claim status with %s: refused as the reference refuses it',
  async (_name, index, c) => {
    const name = `status-${index}`;
    const theirs = await statusRefusal(reference, name, c.statuses);
    expect(theirs).not.toEqual({ status: 200, body: 'written' });
    expect(await statusRefusal(capstan, name, c.statuses)).toEqual(theirs);
  },
);

test('an allocation granting admin access where the namespace does not: refused as the reference refuses it', async () => {
  const statuses = [{ allocation: { devices: { results: [{ ...RESULT, adminAccess: true }] } } }];
  const theirs = await statusRefusal(reference, 'admin-status', statuses, PLAIN_NAMESPACE);
  expect(theirs).not.toEqual({ status: 200, body: 'written' });
  expect(await statusRefusal(capstan, 'admin-status', statuses, PLAIN_NAMESPACE)).toEqual(theirs);
});
