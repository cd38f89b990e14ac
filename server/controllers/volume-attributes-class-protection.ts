/**
 * The controller manager's VolumeAttributesClass protection, which capstan runs for the same
 * reason as its claim and volume protection: the StorageObjectInUseProtection admission plugin
 * puts `kubernetes.io/vac-protection` on every new class, and without this a deleted class would
 * never go. A class being deleted loses the finalizer once no volume and no claim names it (a
 * claim's spec, its current class and the class a modification targets all count); a class
 * without it (made while the plugin was off) gets it, as the reference's controller does.
 */
import type { KubeObject } from '../../api/objects';
import { startInformer } from '../client/informer';
import type { ObjectOperations } from '../client/operations';
import { startWorkQueue } from '../client/work-queue';
import { isObject } from '../json/value';
import { coreType } from './per-namespace';
import { awaitsRemoval } from './storage-protection';

const FINALIZER = 'kubernetes.io/vac-protection';

type Fields = Record<string, unknown>;

function fields(value: unknown): Fields {
  return isObject(value) ? value : {};
}

function named(value: unknown): string[] {
  return typeof value === 'string' && value !== '' ? [value] : [];
}

/** The classes a claim names: its spec's, the one it has, the one it is being modified to. */
function claimClasses(claim: KubeObject): string[] {
  const status = fields(claim.status);
  return [
    ...named(fields(claim.spec).volumeAttributesClassName),
    ...named(status.currentVolumeAttributesClassName),
    ...named(fields(status.modifyVolumeStatus).targetVolumeAttributesClassName),
  ];
}

function volumeClasses(volume: KubeObject): string[] {
  return named(fields(volume.spec).volumeAttributesClassName);
}

function needsFinalizer(vac: KubeObject): boolean {
  return vac.metadata.deletionTimestamp === undefined && !(vac.metadata.finalizers ?? []).includes(FINALIZER);
}

export function startVolumeAttributesClassProtection(operations: ObjectOperations, stop: AbortSignal): void {
  const classType = operations.registry.find({ group: 'storage.k8s.io', version: 'v1' }, 'volumeattributesclasses');
  if (classType === undefined) return;
  const claimType = coreType(operations, 'persistentvolumeclaims');
  const volumeType = coreType(operations, 'persistentvolumes');

  const inUse = (name: string): boolean => {
    for (const volume of volumes.objects.values()) if (volumeClasses(volume).includes(name)) return true;
    for (const claim of claims.objects.values()) if (claimClasses(claim).includes(name)) return true;
    return false;
  };
  const queue = startWorkQueue<string>({
    stop,
    handle: async (name) => {
      const vac = classes.objects.get(name);
      if (vac === undefined) return;
      // Not before every claim and volume is known: one not yet listed may name the class.
      await Promise.all([claims.synced, volumes.synced]);
      if (awaitsRemoval(vac, FINALIZER) && !inUse(name))
        await operations.updateObject(classType, { name }, (current) => {
          current.metadata.finalizers = (current.metadata.finalizers ?? []).filter((each) => each !== FINALIZER);
        });
      else if (needsFinalizer(vac))
        await operations.updateObject(classType, { name }, (current) => {
          if (needsFinalizer(current))
            current.metadata.finalizers = [...(current.metadata.finalizers ?? []), FINALIZER];
        });
    },
  });

  const classes = startInformer(operations.storageFor(classType), {
    onUpsert: (vac) => {
      if (needsFinalizer(vac) || awaitsRemoval(vac, FINALIZER)) queue.add(String(vac.metadata.name));
    },
  });
  // A class a claim or volume stops naming, or that goes with it, may have been its last use.
  const requeue = (names: string[], still: string[] = []): void => {
    for (const name of names) if (!still.includes(name)) queue.add(name);
  };
  const claims = startInformer(operations.storageFor(claimType), {
    onUpsert: (claim, old) => {
      if (old) requeue(claimClasses(old), claimClasses(claim));
    },
    onDelete: (claim) => requeue(claimClasses(claim)),
  });
  const volumes = startInformer(operations.storageFor(volumeType), {
    onUpsert: (volume, old) => {
      if (old) requeue(volumeClasses(old), volumeClasses(volume));
    },
    onDelete: (volume) => requeue(volumeClasses(volume)),
  });
  stop.addEventListener(
    'abort',
    () => {
      classes.stop();
      claims.stop();
      volumes.stop();
    },
    { once: true },
  );
}
