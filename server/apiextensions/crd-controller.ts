/**
 * The CRD controller, run by the replica holding the controllers' lease: for every CRD it
 * writes the accepted names and the NamesAccepted/Established conditions (crd-conditions.ts);
 * for a CRD being deleted it runs the `customresourcecleanup.apiextensions.k8s.io` finalizer
 * as the reference's CRD finalizer does: Terminating, delete every custom resource of the CRD
 * (each delete honouring the resource's own finalizers), look again until none is left, then
 * drop the finalizer so the CRD goes, and with it (crd-serving.ts) its endpoints.
 */
import { EVERYTHING } from '../../storage/objects/types';
import { startInformer } from '../client/informer';
import type { ObjectOperations } from '../client/operations';
import { startWorkQueue } from '../client/work-queue';
import type { ResourceType } from '../registry/types';
import { deepEqual } from '../status/field-errors';
import { CLEANUP_FINALIZER } from './crd-strategy';
import { calculateNamesAndConditions, ESTABLISHED, setCondition, TERMINATING } from './crd-conditions';
import { APIEXTENSIONS_GROUP, asCRD, conditionOf, isConditionTrue, type CustomResourceDefinition } from './crd-types';

import type { KubeObject } from '../../api/objects';
/** The reference's wait before establishing a CRD when `--apiserver-count` says the server has peers. */
export const HA_ESTABLISHING_DELAY_MS = 5_000;
/** How soon a CRD whose custom resources are still going is looked at again. */
const INSTANCES_RECHECK_MS = 1000;

function crdType(operations: ObjectOperations): ResourceType {
  const type = operations.registry.find({ group: APIEXTENSIONS_GROUP, version: 'v1' }, 'customresourcedefinitions');
  if (!type) throw new Error('customresourcedefinitions are not served');
  return type;
}

/** The served type of a CRD's custom resources, if it is served. */
function servedTypeOf(operations: ObjectOperations, crd: CustomResourceDefinition): ResourceType | undefined {
  return operations.registry
    .all()
    .find((type) => type.group === crd.spec.group && type.resource === crd.spec.names.plural);
}

/** Deletes the custom resources still there; answers how many exist (terminating ones included). */
async function deleteInstances(operations: ObjectOperations, type: ResourceType): Promise<number> {
  const { items } = await operations.storageFor(type).list({}, { predicate: EVERYTHING });
  for (const item of items) {
    if (item.metadata.deletionTimestamp) continue;
    const { namespace, name } = item.metadata;
    await operations.deleteObject(
      type,
      { ...(namespace ? { namespace } : {}), name: String(name) },
      { propagationPolicy: 'Background' },
    );
  }
  return items.length;
}

async function writeStatus(
  operations: ObjectOperations,
  crd: CustomResourceDefinition,
  change: (next: CustomResourceDefinition) => void,
): Promise<void> {
  const type = crdType(operations);
  await operations.updateObject(type, { name: String(crd.metadata.name) }, (object) => change(asCRD(object)), 'status');
}

const IN_PROGRESS = 'InstanceDeletionInProgress';

async function finalize(
  operations: ObjectOperations,
  crd: CustomResourceDefinition,
  now: () => Date,
): Promise<'done' | 'pending'> {
  const served = servedTypeOf(operations, crd);
  if (served !== undefined && isConditionTrue(crd, 'Established')) {
    // The deletion itself marked it Terminating (InstanceDeletionPending); the cleanup says it has begun.
    if (conditionOf(crd, TERMINATING)?.reason !== IN_PROGRESS) {
      await writeStatus(operations, crd, (next) =>
        setCondition(
          next,
          {
            type: TERMINATING,
            status: 'True',
            reason: IN_PROGRESS,
            message: 'CustomResource deletion is in progress',
          },
          now(),
        ),
      );
    }
    if ((await deleteInstances(operations, served)) > 0) return 'pending';
    await writeStatus(operations, crd, (next) =>
      setCondition(
        next,
        { type: TERMINATING, status: 'False', reason: 'InstanceDeletionCompleted', message: 'removed all instances' },
        now(),
      ),
    );
  }
  await operations.updateObject(crdType(operations), { name: String(crd.metadata.name) }, (object) => {
    object.metadata.finalizers = (object.metadata.finalizers ?? []).filter(
      (finalizer) => finalizer !== CLEANUP_FINALIZER,
    );
  });
  return 'done';
}

/**
 * How long a CRD whose names were accepted has been Installing, in ms, or undefined when it is
 * not (yet) Installing.
 */
function installingFor(crd: CustomResourceDefinition, now: Date): number | undefined {
  const established = conditionOf(crd, ESTABLISHED);
  if (established?.status !== 'False' || established.reason !== 'Installing') return undefined;
  return now.getTime() - Date.parse(established.lastTransitionTime ?? '');
}

/**
 * Writes accepted names and conditions when they differ from what is stored. With
 * `establishingDelayMs`, a CRD is Installing that long before it is Established; answers how
 * long is left of it (undefined: nothing to wait for).
 */
async function reconcileNames(
  operations: ObjectOperations,
  crd: CustomResourceDefinition,
  all: readonly CustomResourceDefinition[],
  now: () => Date,
  establishingDelayMs: number,
): Promise<number | undefined> {
  const installed = installingFor(crd, now());
  // The condition's time is in whole seconds: the write may have come up to a second after it.
  const left = installed === undefined ? establishingDelayMs : establishingDelayMs - installed + 999;
  const holding = establishingDelayMs > 0 && !isConditionTrue(crd, ESTABLISHED) && left > 0;
  const result = calculateNamesAndConditions(crd, all, holding);
  const wait = holding && result.established.reason === 'Installing' ? left : undefined;
  const stored = crd.status ?? {};
  const conditionUnchanged = (type: string, wanted: { status: string; reason?: string; message?: string }) => {
    const found = stored.conditions?.find((condition) => condition.type === type);
    return (
      found !== undefined &&
      found.status === wanted.status &&
      found.reason === wanted.reason &&
      found.message === wanted.message
    );
  };
  if (
    deepEqual(stored.acceptedNames, result.acceptedNames) &&
    conditionUnchanged('NamesAccepted', result.namesAccepted) &&
    conditionUnchanged('Established', result.established)
  ) {
    return wait;
  }
  await writeStatus(operations, crd, (next) => {
    (next.status ??= {}).acceptedNames = result.acceptedNames;
    setCondition(next, result.namesAccepted, now());
    setCondition(next, result.established, now());
  });
  return wait;
}

export function startCRDController(
  operations: ObjectOperations,
  stop: AbortSignal,
  options: {
    /**
     * How long a new CRD is Installing before it is Established: the reference's 5 s when
     * `--apiserver-count` is over 1, so that every replica has seen it; 0 otherwise.
     */
    readonly establishingDelayMs: number;
    readonly now?: () => Date;
  },
): void {
  const now = options.now ?? (() => new Date());
  const type = crdType(operations);
  const all = (): CustomResourceDefinition[] => [...informer.objects.values()].map(asCRD);
  const queue = startWorkQueue<string>({
    stop,
    handle: async (name) => {
      const object = informer.objects.get(name);
      if (object === undefined) return;
      const crd = asCRD(object);
      if (crd.metadata.deletionTimestamp) {
        if (!(crd.metadata.finalizers ?? []).includes(CLEANUP_FINALIZER)) return;
        if ((await finalize(operations, crd, now)) === 'pending') queue.addAfter(name, INSTANCES_RECHECK_MS);
        return;
      }
      const wait = await reconcileNames(operations, crd, all(), now, options.establishingDelayMs);
      if (wait !== undefined) queue.addAfter(name, wait);
    },
  });
  const informer = startInformer(operations.storageFor(type), {
    onUpsert: (object: KubeObject, old: KubeObject | undefined) => {
      queue.add(String(object.metadata.name));
      // Names another CRD of the group gave up may now be free for a CRD that wanted them.
      if (old !== undefined && !deepEqual(asCRD(old).status?.acceptedNames, asCRD(object).status?.acceptedNames)) {
        for (const other of all())
          if (other.spec.group === asCRD(object).spec.group) queue.add(String(other.metadata.name));
      }
    },
    onDelete: (object) => {
      for (const other of all())
        if (other.spec.group === asCRD(object).spec.group) queue.add(String(other.metadata.name));
    },
  });
  stop.addEventListener('abort', () => informer.stop(), { once: true });
}
