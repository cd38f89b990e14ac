/**
 * The controller manager's PVC and PV protection, which capstan runs because nothing else
 * takes off the finalizers its StorageObjectInUseProtection admission plugin puts on: without
 * it a deleted claim or volume would never go (and a claim would hold its quota for good).
 * A claim being deleted loses `kubernetes.io/pvc-protection` once no scheduled pod uses it; a
 * volume being deleted loses `kubernetes.io/pv-protection` once it is not Bound, as the
 * reference's controllers decide.
 */
import type { KubeObject } from '../../api/objects';
import { objectMapKey, startInformer } from '../client/informer';
import type { ObjectOperations } from '../client/operations';
import { coreType } from './per-namespace';
import { startWorkQueue } from '../client/work-queue';

const CLAIM_FINALIZER = 'kubernetes.io/pvc-protection';
const VOLUME_FINALIZER = 'kubernetes.io/pv-protection';

type Fields = Record<string, unknown>;

function record(value: unknown): Fields {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Fields) : {};
}

export function awaitsRemoval(object: KubeObject, finalizer: string): boolean {
  return object.metadata.deletionTimestamp !== undefined && (object.metadata.finalizers ?? []).includes(finalizer);
}

/** Done with by its kubelet or force-deleted: its ephemeral claims may go (the reference's podIsShutDown). */
function isShutDown(pod: KubeObject): boolean {
  return pod.metadata.deletionTimestamp !== undefined && pod.metadata.deletionGracePeriodSeconds === 0;
}

/**
 * Whether `pod` uses `claim`: only a scheduled pod can (a kubelet starts no pod on a claim being
 * deleted), by a persistentVolumeClaim volume or by the ephemeral volume it owns.
 */
function podUses(pod: KubeObject, claim: KubeObject): boolean {
  if (!record(pod.spec).nodeName) return false;
  const volumes = Array.isArray(record(pod.spec).volumes) ? (record(pod.spec).volumes as unknown[]).map(record) : [];
  const ownedByPod = (claim.metadata.ownerReferences ?? []).some(
    (owner) => owner.controller === true && owner.uid === pod.metadata.uid,
  );
  return volumes.some(
    (volume) =>
      record(volume.persistentVolumeClaim).claimName === claim.metadata.name ||
      (!isShutDown(pod) &&
        volume.ephemeral !== undefined &&
        `${pod.metadata.name}-${String(volume.name)}` === claim.metadata.name &&
        ownedByPod),
  );
}

export function startStorageProtection(operations: ObjectOperations, stop: AbortSignal): void {
  const claimType = coreType(operations, 'persistentvolumeclaims');
  const volumeType = coreType(operations, 'persistentvolumes');
  const podType = coreType(operations, 'pods');

  const release = async (type: typeof claimType, object: KubeObject, finalizer: string): Promise<void> => {
    await operations.updateObject(
      type,
      { namespace: object.metadata.namespace, name: String(object.metadata.name) },
      (current) => {
        current.metadata.finalizers = (current.metadata.finalizers ?? []).filter((name) => name !== finalizer);
      },
    );
  };

  const claimQueue = startWorkQueue<string>({
    stop,
    handle: async (key) => {
      const claim = claims.objects.get(key);
      if (claim === undefined || !awaitsRemoval(claim, CLAIM_FINALIZER)) return;
      // Not before every pod is known: one not yet listed may use the claim.
      await pods.synced;
      for (const pod of pods.objects.values())
        if (pod.metadata.namespace === claim.metadata.namespace && podUses(pod, claim)) return;
      await release(claimType, claim, CLAIM_FINALIZER);
    },
  });
  const volumeQueue = startWorkQueue<string>({
    stop,
    handle: async (key) => {
      const volume = volumes.objects.get(key);
      if (volume === undefined || !awaitsRemoval(volume, VOLUME_FINALIZER) || record(volume.status).phase === 'Bound')
        return;
      await release(volumeType, volume, VOLUME_FINALIZER);
    },
  });

  /** The claims being deleted that still carry the finalizer, few at any time: what pod events recheck. */
  const held = new Set<string>();
  const claims = startInformer(operations.storageFor(claimType), {
    onUpsert: (claim) => {
      if (!awaitsRemoval(claim, CLAIM_FINALIZER)) {
        held.delete(objectMapKey(claim));
        return;
      }
      held.add(objectMapKey(claim));
      claimQueue.add(objectMapKey(claim));
    },
    onDelete: (claim) => held.delete(objectMapKey(claim)),
  });
  const volumes = startInformer(operations.storageFor(volumeType), {
    onUpsert: (volume) => {
      if (awaitsRemoval(volume, VOLUME_FINALIZER)) volumeQueue.add(objectMapKey(volume));
    },
  });
  // A pod that goes, or shuts down, may have been the last user of a claim being deleted.
  const recheckClaimsOf = (pod: KubeObject): void => {
    for (const key of held)
      if (claims.objects.get(key)?.metadata.namespace === pod.metadata.namespace) claimQueue.add(key);
  };
  const pods = startInformer(operations.storageFor(podType), { onDelete: recheckClaimsOf, onUpsert: recheckClaimsOf });
  stop.addEventListener(
    'abort',
    () => {
      claims.stop();
      volumes.stop();
      pods.stop();
    },
    { once: true },
  );
}
