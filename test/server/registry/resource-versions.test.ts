import { readFileSync } from 'node:fs';
import type { KubeObject } from '../../../api/objects';
import {
  convertResourceClaim,
  convertResourceSlice,
  RESOURCE_GROUP,
} from '../../../server/registry/conversion/resource-versions';
import { conversionsOf, FIXTURE_FILE, type RecordedViews } from './resource-version-views';

const RECORDED = JSON.parse(readFileSync(FIXTURE_FILE, 'utf8')) as RecordedViews[];
const V1 = { group: RESOURCE_GROUP, version: 'v1' };
const V1BETA1 = { group: RESOURCE_GROUP, version: 'v1beta1' };

describe('the reference’s views of one object at v1, v1beta2 and v1beta1', () => {
  test.each(RECORDED.map((recorded) => [recorded.name, recorded] as const))('%s', (_name, recorded) => {
    for (const { from, to, actual, expected } of conversionsOf(recorded))
      expect({ from, to, object: actual }).toEqual({ from, to, object: expected });
  });
});

function claim(version: string, requests: unknown[]): KubeObject {
  return {
    apiVersion: `resource.k8s.io/${version}`,
    kind: 'ResourceClaim',
    metadata: { name: 'c', namespace: 'default' },
    spec: { devices: { requests } },
  };
}

function requestsOf(object: KubeObject): unknown {
  return (object.spec as { devices: { requests: unknown } }).devices.requests;
}

describe('requests between v1beta1 and v1', () => {
  test('an empty list of selectors, though written as nothing, still makes an exact request', () => {
    const converted = convertResourceClaim(claim('v1beta1', [{ name: 'r', deviceClassName: '', selectors: [] }]), V1);
    expect(requestsOf(converted)).toEqual([{ name: 'r', exactly: { deviceClassName: '' } }]);
  });

  test('a request of alternatives only makes none, and gets an empty class name back in v1beta1', () => {
    const alternatives = [{ name: 'a', deviceClassName: 'x', allocationMode: 'ExactCount', count: 1 }];
    const v1 = convertResourceClaim(claim('v1beta1', [{ name: 'r', firstAvailable: alternatives }]), V1);
    expect(requestsOf(v1)).toEqual([{ name: 'r', firstAvailable: alternatives }]);
    expect(requestsOf(convertResourceClaim(v1, V1BETA1))).toEqual([
      { name: 'r', deviceClassName: '', firstAvailable: alternatives },
    ]);
  });

  test('admin access set to false is kept: it is a pointer in every version', () => {
    const v1 = convertResourceClaim(claim('v1beta1', [{ name: 'r', deviceClassName: 'x', adminAccess: false }]), V1);
    expect(requestsOf(v1)).toEqual([{ name: 'r', exactly: { deviceClassName: 'x', adminAccess: false } }]);
  });
});

describe('slices between v1beta1 and v1', () => {
  const slice = (version: string, spec: Record<string, unknown>): KubeObject => ({
    apiVersion: `resource.k8s.io/${version}`,
    kind: 'ResourceSlice',
    metadata: { name: 's' },
    spec,
  });

  test('an empty node name and allNodes false are "not set" on both sides', () => {
    const spec = { driver: 'd', nodeName: '', allNodes: false, perDeviceNodeSelection: true };
    expect(convertResourceSlice(slice('v1beta1', spec), V1).spec).toEqual({
      driver: 'd',
      perDeviceNodeSelection: true,
    });
    expect(convertResourceSlice(slice('v1', spec), V1BETA1).spec).toEqual({
      driver: 'd',
      perDeviceNodeSelection: true,
    });
  });

  test('a device’s empty lists and maps are left out, its set pointers kept', () => {
    const device = { name: 'd0', attributes: {}, taints: [], nodeName: '', allNodes: false };
    expect(convertResourceSlice(slice('v1', { driver: 'd', devices: [device] }), V1BETA1).spec).toEqual({
      driver: 'd',
      devices: [{ name: 'd0', basic: { nodeName: '', allNodes: false } }],
    });
  });
});

describe('the conversion contract', () => {
  test('to the version an object has, the object itself comes back', () => {
    const object = claim('v1beta1', [{ name: 'r', deviceClassName: 'x' }]);
    expect(convertResourceClaim(object, V1BETA1)).toBe(object);
  });

  test('the input is not changed', () => {
    const object = claim('v1', [{ name: 'r', exactly: { deviceClassName: 'x' } }]);
    const before = structuredClone(object);
    convertResourceClaim(object, V1BETA1);
    expect(object).toEqual(before);
  });

  test('a version the group does not have is refused', () => {
    expect(() => convertResourceClaim(claim('v1', []), { group: RESOURCE_GROUP, version: 'v1alpha3' })).toThrow(
      'cannot convert ResourceClaim to resource.k8s.io/v1alpha3',
    );
    expect(() => convertResourceClaim(claim('v2', []), V1)).toThrow(
      'cannot convert ResourceClaim from resource.k8s.io/v2',
    );
  });
});
