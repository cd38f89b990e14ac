/** What the Node authorizer's graph takes a pod and a persistent volume to use. */
import { podReferences, volumeSecrets } from '../../../server/authz/node/node-graph';

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
        containers: [{
          name: 'c',
          env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 'env-secret', key: 'k' } } }, { name: 'B', valueFrom: { configMapKeyRef: { name: 'env-cm', key: 'k' } } }],
          envFrom: [{ secretRef: { name: 'env-from-secret' } }],
        }],
        volumes: [
          { name: 's', secret: { secretName: 'vol-secret' } },
          { name: 'p', projected: { sources: [{ secret: { name: 'proj-secret' } }, { configMap: { name: 'proj-cm' } }] } },
          { name: 'cm', configMap: { name: 'vol-cm' } },
          { name: 'csi', csi: { driver: 'd', nodePublishSecretRef: { name: 'csi-secret' } } },
          { name: 'data', persistentVolumeClaim: { claimName: 'data' } },
          { name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: {} } } },
        ],
      },
    });
    expect([...refs].sort()).toEqual([
      'configmaps/env-cm', 'configmaps/init-env', 'configmaps/proj-cm', 'configmaps/vol-cm',
      'persistentvolumeclaims/data', 'persistentvolumeclaims/web-scratch',
      'secrets/csi-secret', 'secrets/env-from-secret', 'secrets/env-secret', 'secrets/proj-secret', 'secrets/pull', 'secrets/vol-secret',
      'serviceaccounts/runner',
    ]);
  });

  it("finds the secrets a persistent volume names, in the claim's namespace unless it says another", () => {
    expect(volumeSecrets({
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'pv' },
      spec: { csi: { driver: 'd', volumeHandle: 'h', nodeStageSecretRef: { name: 'stage', namespace: 'storage' }, nodePublishSecretRef: { name: 'publish' } } },
    }, 'apps')).toEqual(['storage/stage', 'apps/publish']);
  });
});
