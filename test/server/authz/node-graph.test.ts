/** What the Node authorizer's graph takes a pod and a persistent volume to use. */
import { podReferences, volumeSecrets } from '../../../server/authz/node/pod-references';

describe('node graph references', () => {
  it('finds every secret, config map, claim and the service account a pod uses', () => {
    const refs = podReferences({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web', namespace: 'apps' },
      spec: {
        serviceAccountName: 'runner',
        imagePullSecrets: [{ name: 'pull' }],
        initContainers: [{ name: 'i', envFrom: [{ configMapRef: { name: 'init-env' } }] }],
        containers: [
          {
            name: 'c',
            env: [
              { name: 'A', valueFrom: { secretKeyRef: { name: 'env-secret', key: 'k' } } },
              { name: 'B', valueFrom: { configMapKeyRef: { name: 'env-cm', key: 'k' } } },
            ],
            envFrom: [{ secretRef: { name: 'env-from-secret' } }],
          },
        ],
        volumes: [
          { name: 's', secret: { secretName: 'vol-secret' } },
          {
            name: 'p',
            projected: { sources: [{ secret: { name: 'proj-secret' } }, { configMap: { name: 'proj-cm' } }] },
          },
          { name: 'cm', configMap: { name: 'vol-cm' } },
          { name: 'csi', csi: { driver: 'd', nodePublishSecretRef: { name: 'csi-secret' } } },
          { name: 'data', persistentVolumeClaim: { claimName: 'data' } },
          { name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: {} } } },
        ],
        resourceClaims: [
          { name: 'gpu', resourceClaimName: 'shared-gpu' },
          { name: 'made', resourceClaimTemplateName: 't' },
          { name: 'pending', resourceClaimTemplateName: 't' },
        ],
      },
      status: {
        resourceClaimStatuses: [{ name: 'made', resourceClaimName: 'web-made-x7k2' }, { name: 'pending' }],
        extendedResourceClaimStatus: { resourceClaimName: 'web-extended', requestMappings: [] },
      },
    });
    expect([...refs].sort()).toEqual([
      'configmaps/env-cm',
      'configmaps/init-env',
      'configmaps/proj-cm',
      'configmaps/vol-cm',
      'persistentvolumeclaims/data',
      'persistentvolumeclaims/web-scratch',
      'resourceclaims/shared-gpu',
      'resourceclaims/web-extended',
      'resourceclaims/web-made-x7k2',
      'secrets/csi-secret',
      'secrets/env-from-secret',
      'secrets/env-secret',
      'secrets/proj-secret',
      'secrets/pull',
      'secrets/vol-secret',
      'serviceaccounts/runner',
    ]);
  });

  it('a mirror pod leads nowhere, whatever it names', () => {
    expect(
      podReferences({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'static', namespace: 'kube-system', annotations: { 'kubernetes.io/config.mirror': 'x' } },
        spec: { serviceAccountName: 'runner', volumes: [{ name: 's', secret: { secretName: 'vol-secret' } }] },
      }).size,
    ).toBe(0);
  });

  it("finds the secrets a persistent volume hands the kubelet, in its claim's namespace unless it says another", () => {
    expect(
      volumeSecrets({
        apiVersion: 'v1',
        kind: 'PersistentVolume',
        metadata: { name: 'pv' },
        spec: {
          claimRef: { namespace: 'apps', name: 'data' },
          csi: {
            driver: 'd',
            volumeHandle: 'h',
            controllerPublishSecretRef: { name: 'controller', namespace: 'storage' },
            nodeStageSecretRef: { name: 'stage', namespace: 'storage' },
            nodePublishSecretRef: { name: 'publish', namespace: 'storage' },
          },
        },
      }),
    ).toEqual(['storage/publish', 'storage/stage']);
    expect(
      volumeSecrets({
        apiVersion: 'v1',
        kind: 'PersistentVolume',
        metadata: { name: 'pv' },
        spec: {
          claimRef: { namespace: 'apps', name: 'data' },
          rbd: { monitors: ['m'], image: 'i', secretRef: { name: 'ceph' } },
        },
      }),
    ).toEqual(['apps/ceph']);
  });
});
