/**
 * Delete: the one function every deletion of an object runs through (DELETE, each object of a
 * DELETE on a collection, the server's controllers). Inside a guaranteed update on the current
 * object, in the reference's order (its registry store's Delete):
 *
 *   1. a missing object is a 404; the caller's preconditions (uid, resourceVersion) hold (409)
 *   2. admission (DELETE), with the current object as the old one
 *   3. the garbage collector's finalizer the propagation policy asks for
 *   4. nothing holds the object any longer: it is removed, if still exactly what was read
 *   5. else it is only marked: deletionTimestamp, deletionGracePeriodSeconds 0, generation + 1
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

class RemoveNow extends Error {
  constructor(readonly current: KubeObject) {
    super('remove now');
  }
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
          const finalizers = finalizersForPropagation(current.metadata.finalizers ?? [], deletion);
          const next: KubeObject = { ...current, metadata: { ...current.metadata } };
          if (finalizers.length > 0) next.metadata.finalizers = finalizers;
          else delete next.metadata.finalizers;
          if (pendingFinalizers(scope.type, next).length === 0) throw new RemoveNow(current);
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
      if (!(error instanceof RemoveNow)) throw error;
      try {
        return { object: await toServedVersion(scope, await removeExactly(scope, key, error.current, request.dryRun)), deleted: true };
      } catch (removeError) {
        const raced = removeError instanceof ObjectError && removeError.reason === 'Conflict';
        if (!raced || deletion.preconditions?.resourceVersion !== undefined || attempt >= MAX_ATTEMPTS) throw removeError;
      }
    }
  }
}
