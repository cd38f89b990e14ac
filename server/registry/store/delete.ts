/**
 * Delete: the one function every deletion of an object runs through (DELETE, each object of a
 * DELETE on a collection, the server's controllers). Inside a guaranteed update on the current
 * object, in the reference's order (its registry store's Delete):
 *
 *   1. a missing object is a 404; the caller's preconditions (uid, resourceVersion) hold (409)
 *   2. admission (DELETE), with the current object as the old one
 *   3. the garbage collector's finalizer the propagation policy asks for
 *   4. a kind deleted gracefully (Pods) is marked with its grace period: deletionTimestamp
 *      that far ahead, deletionGracePeriodSeconds, generation + 1; a later deletion may only
 *      shorten it, a longer or equal one changes nothing
 *   5. nothing holds the object any longer (and its grace, if any, is 0): it is removed, if
 *      still exactly what was read; the answer carries the deletion marks
 *   6. else it is only marked: deletionTimestamp, deletionGracePeriodSeconds 0, generation + 1
 *      (namespaces also go to phase Terminating), through the update
 *
 * A dry run runs every step but writes nothing.
 */
import { ObjectError } from '../../../storage/errors';
import type { KubeObject, ObjectKey, Preconditions } from '../../../storage/objects/types';
import { notFound } from '../../status/catalogue';
import { admissionAttributes, type WriteRequest } from './admission';
import { markAsDeleting, pendingFinalizers } from './object-meta';
import { groupResourceOf, toServedVersion, type StoreScope } from './scope';
import { removeExactly } from './update';

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

/** The garbage collector's finalizer the request's propagation asks for, replacing the other one. */
function finalizersForPropagation(current: readonly string[], deletion: Deletion): string[] {
  const orphan = deletion.propagationPolicy === 'Orphan' || (deletion.propagationPolicy === undefined && deletion.orphanDependents === true);
  const foreground = deletion.propagationPolicy === 'Foreground';
  const background = deletion.propagationPolicy === 'Background' || deletion.orphanDependents === false;
  let finalizers = [...current];
  if (orphan || foreground || background) finalizers = finalizers.filter((f) => f !== ORPHAN_FINALIZER && f !== FOREGROUND_FINALIZER);
  if (orphan) finalizers.push(ORPHAN_FINALIZER);
  if (foreground) finalizers.push(FOREGROUND_FINALIZER);
  return finalizers;
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
  if (meta.deletionTimestamp !== undefined && (meta.deletionGracePeriodSeconds === undefined || meta.deletionGracePeriodSeconds <= grace)) return false;
  markAsDeleting(next, new Date(now.getTime() + grace * 1000));
  meta.deletionGracePeriodSeconds = grace;
  return true;
}

export async function deleteObject(scope: StoreScope, request: DeleteRequest): Promise<DeleteOutcome> {
  const { key, deletion } = request;
  for (let attempt = 1; ; attempt++) {
    try {
      const result = await scope.storage.update(
        key,
        async (current) => {
          if (current === undefined) throw notFound(groupResourceOf(scope.type), key.name);
          const attributes = admissionAttributes(scope, request, { operation: 'DELETE', key, oldObject: current });
          await scope.context.admission.admit(attributes);
          await scope.context.admission.validate(attributes);
          const next: KubeObject = { ...current, metadata: { ...current.metadata } };
          const grace = gracePeriodOf(scope, current, deletion);
          if (grace !== undefined && !markGracefully(next, grace, scope.context.now())) throw new AlreadyDeleting(current);
          const finalizers = finalizersForPropagation(current.metadata.finalizers ?? [], deletion);
          if (finalizers.length > 0) next.metadata.finalizers = finalizers;
          else delete next.metadata.finalizers;
          if (pendingFinalizers(scope.type, next).length === 0 && (grace === undefined || grace === 0)) throw new RemoveNow(current, grace === undefined ? current : next);
          if (next.metadata.deletionTimestamp === undefined) {
            markAsDeleting(next, scope.context.now());
            if (scope.type.subresources.finalize) next.status = { ...((next.status as object | undefined) ?? {}), phase: 'Terminating' };
          }
          return next;
        },
        { preconditions: deletion.preconditions, dryRun: request.dryRun },
      );
      return { object: await toServedVersion(scope, result.object), deleted: false };
    } catch (error) {
      if (error instanceof AlreadyDeleting) return { object: await toServedVersion(scope, error.current), deleted: false };
      if (!(error instanceof RemoveNow)) throw error;
      try {
        const removed = await removeExactly(scope, key, error.current, request.dryRun);
        return { object: await toServedVersion(scope, error.answer === error.current ? removed : error.answer), deleted: true };
      } catch (removeError) {
        const raced = removeError instanceof ObjectError && removeError.reason === 'Conflict';
        if (!raced || deletion.preconditions?.resourceVersion !== undefined || attempt >= MAX_ATTEMPTS) throw removeError;
      }
    }
  }
}
