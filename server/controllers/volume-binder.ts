/**
 * The controller manager's volume binding, for the pairs that name each other: a claim whose
 * `spec.volumeName` is a volume whose `spec.claimRef` names the claim (by namespace and name,
 * and by uid once set). Capstan runs it because clients create such pairs to bind a claim to a
 * volume they made (the reference suite does, then waits for the claim to be Bound). The steps
 * and fields are the reference's: the volume's claimRef gains the claim's uid, the volume
 * becomes Bound, the claim is annotated bind-completed and becomes Bound with the volume's
 * access modes, capacity and VolumeAttributesClass. A Bound volume whose claim is gone is
 * Released. Matching a claim to a volume by size and class, provisioning and reclaiming stay
 * the controller manager's.
 */
import type { KubeObject } from '../../api/objects';
import { objectMapKey, startInformer } from '../client/informer';
import type { ObjectOperations } from '../client/operations';
import { coreType } from './per-namespace';
import { startWorkQueue } from '../client/work-queue';
import { copyJson } from '../json/value';

const BIND_COMPLETED = 'pv.kubernetes.io/bind-completed';

type Fields = Record<string, unknown>;

function record(value: unknown): Fields {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Fields) : {};
}

const phaseOf = (object: KubeObject | undefined) => record(object?.status).phase;

/** The claim a volume's claimRef names, as a claim key (`namespace/name`), if any. */
function claimKeyOf(volume: KubeObject): string | undefined {
  const ref = record(record(volume.spec).claimRef);
  return typeof ref.name === 'string' && typeof ref.namespace === 'string' ? `${ref.namespace}/${ref.name}` : undefined;
}

/** The reference's IsVolumeBoundToClaim: the claimRef names the claim, and its uid when it has one. */
function volumeNamesClaim(volume: KubeObject, claim: KubeObject): boolean {
  const ref = record(record(volume.spec).claimRef);
  return (
    ref.name === claim.metadata.name &&
    ref.namespace === claim.metadata.namespace &&
    (ref.uid === undefined || ref.uid === '' || ref.uid === claim.metadata.uid)
  );
}

export function startVolumeBinder(operations: ObjectOperations, stop: AbortSignal): void {
  const claimType = coreType(operations, 'persistentvolumeclaims');
  const volumeType = coreType(operations, 'persistentvolumes');

  const bind = async (claim: KubeObject, volume: KubeObject): Promise<void> => {
    const volumeKey = { name: String(volume.metadata.name) };
    const claimKey = { namespace: claim.metadata.namespace, name: String(claim.metadata.name) };
    if (record(record(volume.spec).claimRef).uid !== claim.metadata.uid) {
      await operations.updateObject(volumeType, volumeKey, (current) => {
        const spec = record(current.spec);
        spec.claimRef = {
          ...record(spec.claimRef),
          kind: 'PersistentVolumeClaim',
          apiVersion: 'v1',
          namespace: claim.metadata.namespace,
          name: claim.metadata.name,
          uid: claim.metadata.uid,
          resourceVersion: claim.metadata.resourceVersion,
        };
      });
    }
    if (phaseOf(volume) !== 'Bound') {
      await operations.updateObject(
        volumeType,
        volumeKey,
        (current) => {
          current.status = { ...record(current.status), phase: 'Bound' };
        },
        'status',
      );
    }
    if (claim.metadata.annotations?.[BIND_COMPLETED] !== 'yes') {
      await operations.updateObject(claimType, claimKey, (current) => {
        current.metadata.annotations = { ...current.metadata.annotations, [BIND_COMPLETED]: 'yes' };
      });
    }
    await operations.updateObject(
      claimType,
      claimKey,
      (current) => {
        const status = record(current.status);
        const volumeSpec = record(volume.spec);
        // The class the volume has becomes the claim's current one as it binds (not later: then a driver changes it).
        const vac =
          status.phase !== 'Bound' && typeof volumeSpec.volumeAttributesClassName === 'string'
            ? { currentVolumeAttributesClassName: volumeSpec.volumeAttributesClassName }
            : {};
        current.status = {
          ...status,
          phase: 'Bound',
          // Copies: the volume is the informer's, shared with the cache, and defaulting rounds quantities in place.
          accessModes: copyJson(volumeSpec.accessModes),
          capacity: copyJson(volumeSpec.capacity),
          ...vac,
        };
      },
      'status',
    );
  };

  const queue = startWorkQueue<string>({
    stop,
    handle: async (key) => {
      await Promise.all([claims.synced, volumes.synced]);
      const claim = claims.objects.get(key);
      if (claim !== undefined) {
        const volumeName = record(claim.spec).volumeName;
        const volume = typeof volumeName === 'string' ? volumes.objects.get(volumeName) : undefined;
        if (
          phaseOf(claim) === 'Bound' ||
          claim.metadata.deletionTimestamp !== undefined ||
          volume === undefined ||
          !volumeNamesClaim(volume, claim)
        )
          return;
        await bind(claim, volume);
        return;
      }
      // The claim is gone: a volume still Bound to it is Released.
      for (const volume of volumes.objects.values()) {
        if (claimKeyOf(volume) !== key || phaseOf(volume) !== 'Bound') continue;
        await operations.updateObject(
          volumeType,
          { name: String(volume.metadata.name) },
          (current) => {
            current.status = { ...record(current.status), phase: 'Released' };
          },
          'status',
        );
      }
    },
  });

  const claims = startInformer(operations.storageFor(claimType), {
    onUpsert: (claim) => {
      if (typeof record(claim.spec).volumeName === 'string' && phaseOf(claim) !== 'Bound')
        queue.add(objectMapKey(claim));
    },
    onDelete: (claim) => queue.add(objectMapKey(claim)),
  });
  const volumes = startInformer(operations.storageFor(volumeType), {
    onUpsert: (volume) => {
      const key = claimKeyOf(volume);
      if (key !== undefined) queue.add(key);
    },
  });
  stop.addEventListener(
    'abort',
    () => {
      claims.stop();
      volumes.stop();
    },
    { once: true },
  );
}
