/**
 * Delete: the one function every deletion of an object runs through (DELETE, each object of a
 * DELETE on a collection, the server's controllers). Inside a guaranteed update on the current
 * object, in the reference's order (its registry store's Delete):
 *
 *   1. a missing object is a 404; the caller's preconditions (uid, resourceVersion) hold (409)
 *   2. admission (DELETE), with the current object as the old one
 *   3. the garbage collector's finalizer the propagation asks for (the options, else the finalizer
 *      the object carries, else the kind's default policy)
 *   4. a kind deleted gracefully (Pods) is marked with its grace period: deletionTimestamp
 *      that far ahead, deletionGracePeriodSeconds, generation + 1; a later deletion may only
 *      shorten it, a longer or equal one changes nothing
 *   5. nothing holds the object any longer (and its grace, if any, is 0): it is removed, if
 *      still exactly what was read, and the kind's afterDelete hook runs (a Service gives back
 *      its addresses and ports); the answer carries the deletion marks
 *   6. else it is only marked: deletionTimestamp, deletionGracePeriodSeconds 0, generation + 1
 *      (namespaces instead: deletionTimestamp and phase Terminating), through the update
 *
 * A kind that marks its first deletion itself (CRDs) does so after step 2 and stops there.
 *
 * A dry run runs every step but writes nothing.
 */
import { corruptObjectMetIn, isCorruptObjectError } from '../../../storage/objects/codec';
import { ObjectError } from '../../../storage/errors';
import type { ObjectKey, Preconditions } from '../../../storage/objects/types';
import { conflict, notFound } from '../../status/catalogue';
import { admissionAttributes, type WriteRequest } from './admission';
import { markAsDeleting, pendingFinalizers } from './object-meta';
import type { ResourceType } from '../types';
import { groupResourceOf, storedToPrepared, toServedVersion, type StoreScope } from './scope';
import { afterRemoval, removeExactly } from './update';

import type { KubeObject } from '../../../api/objects';
const ORPHAN_FINALIZER = 'orphan';
const FOREGROUND_FINALIZER = 'foregroundDeletion';
const MAX_ATTEMPTS = 5;

export type PropagationPolicy = 'Orphan' | 'Background' | 'Foreground';

/** What a deletion asks for, from its DeleteOptions. */
export interface Deletion {
  readonly preconditions?: Preconditions;
  readonly propagationPolicy?: PropagationPolicy;
  readonly orphanDependents?: boolean;
  readonly gracePeriodSeconds?: number;
}

export interface DeleteRequest extends WriteRequest {
  readonly key: ObjectKey;
  readonly deletion: Deletion;
}

export interface DeleteOutcome {
  /** In the scope's version: the removed object, or the one now terminating. */
  readonly object: KubeObject;
  readonly deleted: boolean;
}

/**
 * How dependents go, as the reference's store decides: the request's options, else the garbage
 * collector's finalizer the object already carries, else the kind's default.
 */
function propagationOf(
  current: readonly string[],
  deletion: Deletion,
  policy: ResourceType['garbageCollectionPolicy'],
): PropagationPolicy {
  if (deletion.orphanDependents !== undefined) return deletion.orphanDependents ? 'Orphan' : 'Background';
  if (deletion.propagationPolicy !== undefined) return deletion.propagationPolicy;
  const carried = current.find((finalizer) => finalizer === ORPHAN_FINALIZER || finalizer === FOREGROUND_FINALIZER);
  if (carried !== undefined) return carried === ORPHAN_FINALIZER ? 'Orphan' : 'Foreground';
  return policy === 'OrphanDependents' ? 'Orphan' : 'Background';
}

/**
 * The object's finalizers with the garbage collector's one the propagation asks for in place
 * of the other (none for a kind that does not support it); unchanged when that is what it has.
 */
function finalizersForPropagation(
  current: readonly string[],
  deletion: Deletion,
  policy: ResourceType['garbageCollectionPolicy'],
): readonly string[] {
  const finalizers = current.filter(
    (finalizer) => finalizer !== ORPHAN_FINALIZER && finalizer !== FOREGROUND_FINALIZER,
  );
  const propagation = policy === 'Unsupported' ? 'Background' : propagationOf(current, deletion, policy);
  if (propagation === 'Orphan') finalizers.push(ORPHAN_FINALIZER);
  if (propagation === 'Foreground') finalizers.push(FOREGROUND_FINALIZER);
  const same =
    finalizers.length === new Set(current).size && finalizers.every((finalizer) => current.includes(finalizer));
  return same ? current : finalizers;
}

/** Thrown out of the update to remove the object: `current` as read, `answer` as the caller is told. */
class RemoveNow extends Error {
  constructor(
    readonly current: KubeObject,
    readonly answer: KubeObject,
  ) {
    super('remove now');
  }
}

/** Thrown out of the update when a graceful deletion is already under way with no longer grace. */
class AlreadyDeleting extends Error {
  constructor(readonly current: KubeObject) {
    super('already deleting');
  }
}

/**
 * The grace period a deletion of a gracefully deleted kind gets (undefined for other kinds); a
 * negative one is taken as 1, as the reference's BeforeDelete takes it.
 */
function gracePeriodOf(scope: StoreScope, current: KubeObject, deletion: Deletion): number | undefined {
  const grace = scope.type.deletionGracePeriod?.(current, deletion.gracePeriodSeconds);
  return grace !== undefined && grace < 0 ? 1 : grace;
}

/**
 * Marks `next` for a graceful deletion of `grace` seconds (the reference's BeforeDelete): false
 * when a deletion already under way has a grace no longer than this one, which changes nothing.
 */
function markGracefully(next: KubeObject, grace: number, now: Date): boolean {
  const meta = next.metadata;
  if (
    meta.deletionTimestamp !== undefined &&
    (meta.deletionGracePeriodSeconds === undefined || meta.deletionGracePeriodSeconds <= grace)
  )
    return false;
  markAsDeleting(next, new Date(now.getTime() + grace * 1000));
  meta.deletionGracePeriodSeconds = grace;
  return true;
}

/**
 * The caller's preconditions against the object read, before admission, as the reference's
 * BeforeDelete checks them, with its words, which name the kind where other conflicts name the
 * resource. The update runs this on every object it is tried over, the one it replaces last.
 */
function checkPreconditions(scope: StoreScope, current: KubeObject, preconditions: Preconditions | undefined): void {
  const byKind = { group: scope.type.group, resource: scope.type.kind };
  const { uid, resourceVersion } = current.metadata;
  if (preconditions?.uid !== undefined && preconditions.uid !== uid)
    throw conflict(
      byKind,
      current.metadata.name ?? '',
      `the UID in the precondition (${preconditions.uid}) does not match the UID in record (${uid}). The object might have been deleted and then recreated`,
    );
  if (preconditions?.resourceVersion !== undefined && preconditions.resourceVersion !== resourceVersion)
    throw conflict(
      byKind,
      current.metadata.name ?? '',
      `the ResourceVersion in the precondition (${preconditions.resourceVersion}) does not match the ResourceVersion in record (${resourceVersion}). The object might have been modified`,
    );
}

export async function deleteObject(scope: StoreScope, request: DeleteRequest): Promise<DeleteOutcome> {
  const { key, deletion } = request;
  for (let attempt = 1; ; attempt++) {
    try {
      const result = await scope.storage.update(
        key,
        async (current) => {
          if (current === undefined) throw notFound(groupResourceOf(scope.type), key.name);
          checkPreconditions(scope, current, deletion.preconditions);
          const attributes = admissionAttributes(scope, request, {
            operation: 'DELETE',
            key,
            oldObject: await storedToPrepared(scope, current),
          });
          await scope.context.admission.admit(attributes);
          await scope.context.admission.validate(attributes);
          const next: KubeObject = { ...current, metadata: { ...current.metadata } };
          const { markForDeletion } = scope.type.strategy;
          if (markForDeletion !== undefined && current.metadata.deletionTimestamp === undefined) {
            markForDeletion(next, scope.context.now());
            return next;
          }
          const grace = gracePeriodOf(scope, current, deletion);
          if (grace !== undefined && !markGracefully(next, grace, scope.context.now()))
            throw new AlreadyDeleting(current);
          const finalizers = finalizersForPropagation(
            current.metadata.finalizers ?? [],
            deletion,
            scope.type.garbageCollectionPolicy,
          );
          if (finalizers.length > 0) next.metadata.finalizers = [...finalizers];
          else delete next.metadata.finalizers;
          if (pendingFinalizers(scope.type, next).length === 0 && (grace === undefined || grace === 0))
            throw new RemoveNow(current, grace === undefined ? current : next);
          if (next.metadata.deletionTimestamp === undefined) {
            markAsDeleting(next, scope.context.now());
            // The reference's namespace registry marks its own deletion: a time and the
            // Terminating phase, no grace period.
            if (scope.type.subresources.finalize) {
              delete next.metadata.deletionGracePeriodSeconds;
              next.status = { ...((next.status as object | undefined) ?? {}), phase: 'Terminating' };
            }
          }
          return next;
        },
        // The preconditions are checked in here, on each object the update is tried over.
        { dryRun: request.dryRun, deadline: request.deadline },
      );
      return { object: await toServedVersion(scope, result.object), deleted: false };
    } catch (error) {
      if (error instanceof AlreadyDeleting)
        return { object: await toServedVersion(scope, error.current), deleted: false };
      // The reference's delete starts with a get: a value that cannot be read is answered as a get's.
      if (isCorruptObjectError(error)) throw corruptObjectMetIn(error, 'read');
      if (!(error instanceof RemoveNow)) throw error;
      try {
        const removed = await removeExactly(scope, key, error.current, request);
        await afterRemoval(scope, removed, request.dryRun);
        return {
          object: await toServedVersion(scope, error.answer === error.current ? removed : error.answer),
          deleted: true,
        };
      } catch (removeError) {
        const raced = removeError instanceof ObjectError && removeError.reason === 'Conflict';
        if (!raced || deletion.preconditions?.resourceVersion !== undefined || attempt >= MAX_ATTEMPTS)
          throw removeError;
      }
    }
  }
}
