/**
 * What one object consumes of a quota and which scoped quotas count it, by the rules of the
 * reference's evaluators (k8s.io/kubernetes v1.34.4 pkg/quota/v1/evaluator/core): claims by
 * storage class (the beta annotation first), storage rounded up and at least the expanded size,
 * VolumeAttributesClass scopes over every class a claim names, devices of ResourceClaims by
 * class, and a finished pod counted only in count/pods.
 */
import type { KubeObject } from '../../../api/objects';
import { quotaCounts } from '../../../server/quota/scopes';
import { formatAmount, usageOf } from '../../../server/quota/usage';

const usage = (group: string, resource: string, object: Partial<KubeObject>) =>
  Object.fromEntries(
    [...usageOf(group, resource, { metadata: {}, ...object } as KubeObject)].map(([name, amount]) => [
      name,
      formatAmount(amount),
    ]),
  );

const scoped = (matchExpressions: unknown[]) =>
  ({ metadata: {}, spec: { hard: {}, scopeSelector: { matchExpressions } } }) as unknown as KubeObject;

describe('quota usage', () => {
  it('charges a claim by its class, the beta annotation first, storage rounded up to a whole byte and at least the expanded size', () => {
    expect(
      usage('', 'persistentvolumeclaims', {
        metadata: { annotations: { 'volume.beta.kubernetes.io/storage-class': 'beta' } },
        spec: { storageClassName: 'gold', resources: { requests: { storage: '1500m' } } },
      }),
    ).toEqual({
      'beta.storageclass.storage.k8s.io/persistentvolumeclaims': '1',
      'beta.storageclass.storage.k8s.io/requests.storage': '2',
      'count/persistentvolumeclaims': '1',
      persistentvolumeclaims: '1',
      'requests.storage': '2',
    });
    expect(
      usage('', 'persistentvolumeclaims', {
        spec: { resources: { requests: { storage: '1Gi' } } },
        status: { allocatedResources: { storage: '2Gi' } },
      })['requests.storage'],
    ).toBe('2Gi');
  });

  it('charges a ResourceClaim its devices per class: exact counts, All as 32, the most of the alternatives', () => {
    expect(
      usage('resource.k8s.io', 'resourceclaims', {
        spec: {
          devices: {
            requests: [
              { name: 'a', exactly: { deviceClassName: 'gold', allocationMode: 'ExactCount', count: 2 } },
              { name: 'b', exactly: { deviceClassName: 'silver', allocationMode: 'All' } },
              {
                name: 'c',
                firstAvailable: [
                  { name: 'x', deviceClassName: 'gold', allocationMode: 'ExactCount', count: 1 },
                  { name: 'y', deviceClassName: 'gold', allocationMode: 'ExactCount', count: 3 },
                  { name: 'z', deviceClassName: 'bronze', allocationMode: 'ExactCount', count: 1 },
                ],
              },
            ],
          },
        },
      }),
    ).toEqual({
      'count/resourceclaims.resource.k8s.io': '1',
      'gold.deviceclass.resource.k8s.io/devices': '5',
      'silver.deviceclass.resource.k8s.io/devices': '32',
      'bronze.deviceclass.resource.k8s.io/devices': '1',
    });
  });

  it('counts a finished pod in count/pods only', () => {
    expect(
      usage('', 'pods', {
        spec: { containers: [{ name: 'c', resources: { requests: { cpu: '1' } } }] },
        status: { phase: 'Succeeded' },
      }),
    ).toEqual({ 'count/pods': '1' });
  });

  it('matches a VolumeAttributesClass scope against every class a claim names, as a label selector would', () => {
    const claim = (spec: string | undefined, current?: string, target?: string) =>
      ({
        metadata: {},
        spec: { volumeAttributesClassName: spec },
        status: {
          currentVolumeAttributesClassName: current,
          modifyVolumeStatus: target ? { targetVolumeAttributesClassName: target } : undefined,
        },
      }) as unknown as KubeObject;
    const counts = (operator: string, values: string[], object: KubeObject) =>
      quotaCounts(
        scoped([{ scopeName: 'VolumeAttributesClass', operator, values }]),
        '',
        'persistentvolumeclaims',
        object,
      );
    expect(counts('In', ['gold'], claim('silver', 'gold'))).toBe(true);
    expect(counts('In', ['gold'], claim('silver', undefined, 'gold'))).toBe(true);
    expect(counts('In', ['gold'], claim('silver'))).toBe(false);
    expect(counts('NotIn', ['gold'], claim('gold', 'silver'))).toBe(true);
    expect(counts('NotIn', ['gold'], claim('gold'))).toBe(false);
    expect(counts('NotIn', ['gold'], claim(undefined))).toBe(true);
    expect(counts('Exists', [], claim(undefined))).toBe(false);
    expect(counts('DoesNotExist', [], claim(undefined))).toBe(true);
    // The scope is the claims' only: pods never match it.
    expect(
      quotaCounts(scoped([{ scopeName: 'VolumeAttributesClass', operator: 'DoesNotExist' }]), '', 'pods', {
        metadata: {},
      } as KubeObject),
    ).toBe(false);
  });
});
