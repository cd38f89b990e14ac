/**
 * Every resource.k8s.io gate family at once: the objects a 1.34.4 kube-apiserver was sent with
 * its DRA gates on, then off (restarted on the same etcd), and what it stored or refused. With
 * the gates off, new objects lose the gated fields (a claim request made only of alternatives,
 * a slice whose devices alone said where they are, are then refused as the reference refuses
 * them) and updates of the objects written while the gates were on keep theirs.
 */
import type { KubeObject } from '../../../../api/objects';
import { created, typeOf, updated } from './write-path';

const DRA_GATES = [
  'DRAAdminAccess',
  'DRAPrioritizedList',
  'DRAResourceClaimDeviceStatus',
  'DRAConsumableCapacity',
  'DRADeviceBindingConditions',
  'DRADeviceTaints',
  'DRAPartitionableDevices',
  'DRAExtendedResource',
];
const ALL_ON = Object.fromEntries(DRA_GATES.map((gate) => [gate, true]));
const ALL_OFF = Object.fromEntries(DRA_GATES.map((gate) => [gate, false]));
const SHARE_ID = '11111111-2222-3333-4444-555555555555';

const claims = typeOf('resource.k8s.io', 'resourceclaims');
const templates = typeOf('resource.k8s.io', 'resourceclaimtemplates');
const slices = typeOf('resource.k8s.io', 'resourceslices');
const deviceClasses = typeOf('resource.k8s.io', 'deviceclasses');

const EXACT_WITH_CAPACITY = { name: 'a', exactly: { deviceClassName: 'c', capacity: { requests: { memory: '1Gi' } } } };
const ALTERNATIVES = {
  name: 'b',
  firstAvailable: [{ name: 'x', deviceClassName: 'c', capacity: { requests: { memory: '1Gi' } } }],
};
const DISTINCT = [{ requests: ['a'], distinctAttribute: 'dra.example.com/x' }];

function object(kind: string, name: string, spec: unknown, namespace?: string): KubeObject {
  return {
    apiVersion: 'resource.k8s.io/v1',
    kind,
    metadata: namespace === undefined ? { name } : { name, namespace },
    spec,
  } as KubeObject;
}

const touch = (next: KubeObject) => (next.metadata.labels = { touched: 'yes' });

describe('ResourceClaim', () => {
  const spec = { devices: { requests: [EXACT_WITH_CAPACITY, ALTERNATIVES], constraints: DISTINCT } };

  test('off: requested capacity is dropped, a distinct attribute stays', () => {
    const sent = object(
      'ResourceClaim',
      'c2',
      { devices: { requests: [EXACT_WITH_CAPACITY], constraints: DISTINCT } },
      'ns',
    );
    const { object: stored, errors } = created(claims, sent, ALL_OFF);
    expect(errors).toEqual([]);
    expect(stored.spec).toEqual({
      devices: {
        requests: [{ name: 'a', exactly: { deviceClassName: 'c', allocationMode: 'ExactCount', count: 1 } }],
        constraints: DISTINCT,
      },
    });
  });

  test('off: a request made only of alternatives loses them and is refused', () => {
    expect(created(claims, object('ResourceClaim', 'c', spec, 'ns'), ALL_OFF).errors).toEqual([
      'spec.devices.requests[1]: Required value: exactly one of `exactly` or `firstAvailable` is required',
    ]);
  });

  test('on: everything is kept; off: updates keep what the claim has, status included', () => {
    const { object: stored, errors } = created(claims, object('ResourceClaim', 'c', spec, 'ns'), ALL_ON);
    expect(errors).toEqual([]);
    expect(stored.spec).toMatchObject({ devices: { requests: [EXACT_WITH_CAPACITY, ALTERNATIVES] } });
    const status = {
      allocation: {
        devices: {
          results: [
            {
              request: 'a',
              driver: 'd.example.com',
              pool: 'p',
              device: 'd0',
              bindingConditions: ['c'],
              bindingFailureConditions: ['f'],
              shareID: SHARE_ID,
              consumedCapacity: { memory: '1Gi' },
            },
          ],
        },
        allocationTimestamp: '2025-01-01T00:00:00Z',
      },
      devices: [{ driver: 'd.example.com', pool: 'p', device: 'd0', shareID: SHARE_ID }],
    };
    const allocated = updated(claims, stored, (next) => (next.status = status), ALL_ON, 'status').object;
    expect(allocated.status).toEqual(status);
    const later = updated(claims, allocated, touch, ALL_OFF).object;
    expect(later.spec).toEqual(stored.spec);
    expect(updated(claims, later, touch, ALL_OFF, 'status').object.status).toEqual(status);
  });

  test('off: a status write to a claim without them loses device status, binding conditions and shares', () => {
    const stored = created(
      claims,
      object('ResourceClaim', 'c', { devices: { requests: [{ name: 'a', exactly: { deviceClassName: 'c' } }] } }, 'ns'),
      ALL_OFF,
    ).object;
    const { object: written } = updated(
      claims,
      stored,
      (next) =>
        (next.status = {
          allocation: {
            devices: {
              results: [
                {
                  request: 'a',
                  driver: 'd.example.com',
                  pool: 'p',
                  device: 'd0',
                  bindingConditions: ['c'],
                  shareID: SHARE_ID,
                },
              ],
            },
            allocationTimestamp: '2025-01-01T00:00:00Z',
          },
          devices: [{ driver: 'd.example.com', pool: 'p', device: 'd0' }],
        }),
      ALL_OFF,
      'status',
    );
    expect(written.status).toEqual({
      allocation: { devices: { results: [{ request: 'a', driver: 'd.example.com', pool: 'p', device: 'd0' }] } },
    });
  });
});

test('ResourceClaimTemplate: off drops alternatives and capacity; updates keep them', () => {
  const spec = { spec: { devices: { requests: [EXACT_WITH_CAPACITY, ALTERNATIVES], constraints: DISTINCT } } };
  expect(created(templates, object('ResourceClaimTemplate', 't', spec, 'ns'), ALL_OFF).errors).toEqual([
    'spec.spec.devices.requests[1]: Required value: exactly one of `exactly` or `firstAvailable` is required',
  ]);
  const stored = created(templates, object('ResourceClaimTemplate', 't', spec, 'ns'), ALL_ON).object;
  expect(updated(templates, stored, touch, ALL_OFF).object.spec).toEqual(stored.spec);
});

describe('ResourceSlice', () => {
  const pool = (name: string) => ({ name, generation: 1, resourceSliceCount: 1 });
  const taintedSharable = {
    driver: 'd.example.com',
    nodeName: 'n1',
    pool: pool('p'),
    devices: [
      {
        name: 'd0',
        taints: [{ key: 'k', effect: 'NoSchedule', timeAdded: '2025-01-01T00:00:00Z' }],
        bindingConditions: ['c'],
        bindingFailureConditions: ['f'],
        bindsToNode: true,
        allowMultipleAllocations: true,
        capacity: { memory: { value: '1Gi', requestPolicy: { default: '1Mi', validRange: { min: '1Mi' } } } },
      },
    ],
  };
  const counted = {
    driver: 'd.example.com',
    allNodes: true,
    pool: pool('p2'),
    sharedCounters: [{ name: 'cs', counters: { mem: { value: '1Gi' } } }],
    devices: [{ name: 'd', consumesCounters: [{ counterSet: 'cs', counters: { mem: { value: '1Mi' } } }] }],
  };
  const perDevice = {
    driver: 'd.example.com',
    perDeviceNodeSelection: true,
    pool: pool('p3'),
    devices: [{ name: 'd', nodeName: 'n1' }],
  };

  test('off: taints, binding conditions, shared allocation, counters are dropped', () => {
    const a = created(slices, object('ResourceSlice', 'a', taintedSharable), ALL_OFF);
    expect(a.errors).toEqual([]);
    expect(a.object.spec).toEqual({
      ...taintedSharable,
      devices: [{ name: 'd0', capacity: { memory: { value: '1Gi' } } }],
    });
    const b = created(slices, object('ResourceSlice', 'b', counted), ALL_OFF);
    expect(b.errors).toEqual([]);
    expect(b.object.spec).toEqual({
      driver: 'd.example.com',
      allNodes: true,
      pool: pool('p2'),
      devices: [{ name: 'd' }],
    });
  });

  test('off: a slice whose devices alone said where they are is refused', () => {
    expect(created(slices, object('ResourceSlice', 'c', perDevice), ALL_OFF).errors).toEqual([
      'spec: Required value: exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required',
    ]);
  });

  test.each([
    ['taints, binding conditions, shared allocation', taintedSharable],
    ['counters', counted],
    ['per-device nodes', perDevice],
  ])('on: %s are kept, and off: through updates', (_name, spec) => {
    const stored = created(slices, object('ResourceSlice', 's', spec), ALL_ON);
    expect(stored.errors).toEqual([]);
    expect(stored.object.spec).toEqual(spec);
    expect(updated(slices, stored.object, touch, ALL_OFF).object.spec).toEqual(spec);
  });
});

test('DeviceClass: off drops extendedResourceName; updates of a class that has it keep it', () => {
  const spec = { extendedResourceName: 'example.com/gpu' };
  expect(created(deviceClasses, object('DeviceClass', 'dc', spec), ALL_OFF).object.spec).toEqual({});
  const stored = created(deviceClasses, object('DeviceClass', 'dc', spec), ALL_ON).object;
  expect(stored.spec).toEqual(spec);
  expect(updated(deviceClasses, stored, touch, ALL_OFF).object.spec).toEqual(spec);
});

/**
 * An update under off that only adds a dropped field, as kube-apiserver 1.34.4 answered it: the
 * DeviceClass strategy drops before it compares specs (generation stays 1), the ResourceSlice
 * strategy compares first (generation 2, though the stored spec is unchanged).
 */
describe('an update adding only a dropped field', () => {
  test('DeviceClass: generation stays', () => {
    const stored = created(deviceClasses, object('DeviceClass', 'dc', {}), ALL_OFF).object;
    const written = updated(
      deviceClasses,
      stored,
      (next) => ((next.spec as Record<string, unknown>).extendedResourceName = 'example.com/gpu'),
      ALL_OFF,
    ).object;
    expect(written.spec).toEqual({});
    expect(written.metadata.generation).toBe(1);
  });

  test('ResourceSlice: generation goes up', () => {
    const spec = { driver: 'd.example.com', nodeName: 'n1', pool: { name: 'p', generation: 1, resourceSliceCount: 1 } };
    const stored = created(
      slices,
      object('ResourceSlice', 's', { ...spec, devices: [{ name: 'd0' }] }),
      ALL_OFF,
    ).object;
    const written = updated(
      slices,
      stored,
      (next) => (next.spec = { ...spec, devices: [{ name: 'd0', taints: [{ key: 'k', effect: 'NoSchedule' }] }] }),
      ALL_OFF,
    ).object;
    expect(written.spec).toEqual({ ...spec, devices: [{ name: 'd0' }] });
    expect(written.metadata.generation).toBe(2);
  });
});
