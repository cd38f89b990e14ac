/**
 * DELETE of one object and of a collection. An object something still holds (finalizers,
 * including the garbage collector's for Foreground and Orphan propagation) is only marked:
 * deletionTimestamp, deletionGracePeriodSeconds 0 and generation + 1, through an update. The
 * answer is the object while it lingers; once gone, the object for kinds that return it, else
 * a Success Status naming it.
 */
import type { KubeObject, ObjectKey } from '../../storage/objects/types';
import { ObjectError } from '../../storage/errors';
import { readBody } from '../http/body';
import { optionsBodyAsJson } from '../codec/options-body';
import { parseDeleteOptions, parseListQuery, queryOf, type DeleteRequestOptions } from '../request/query';
import { invalid, notFound } from '../status/catalogue';
import { invalid as invalidField, FieldPath } from '../validation/field-errors';
import { authorizeUnsafeDelete, deleteCorruptObject, unsafeDeleteEnabled } from './unsafe-delete';
import { StatusError } from '../status/status-error';
import { removeExactly } from './guarded-write';
import { admit } from './admit';
import type { UserInfo } from '../authn/types';
import { predicateOf, namespaceScopeOf } from './list';
import { markAsDeleting, pendingFinalizers } from './object-meta';
import { addWarnings, apiVersionOf, deprecationWarnings, groupResourceOf, objectKeyOf, toServedVersion, writeResponse, type HandlerScope, type ResourceHandler } from './scope';

const ORPHAN_FINALIZER = 'orphan';
const FOREGROUND_FINALIZER = 'foregroundDeletion';
const MAX_ATTEMPTS = 5;

/** The garbage collector's finalizer the request's propagation asks for, replacing the other one. */
function finalizersForPropagation(current: readonly string[], options: DeleteRequestOptions): string[] {
  const orphan = options.propagationPolicy === 'Orphan' || (options.propagationPolicy === undefined && options.orphanDependents === true);
  const foreground = options.propagationPolicy === 'Foreground';
  const background = options.propagationPolicy === 'Background' || options.orphanDependents === false;
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

export interface DeleteOutcome {
  /** In the request's version: the removed object, or the one now terminating. */
  readonly object: KubeObject;
  readonly deleted: boolean;
}

/** One object's deletion, both phases; shared by DELETE and DELETE on the collection. */
export async function deleteObject(scope: HandlerScope, key: ObjectKey, options: DeleteRequestOptions, user: UserInfo): Promise<DeleteOutcome> {
  for (let attempt = 1; ; attempt++) {
    try {
      const result = await scope.storage.update(
        key,
        async (current) => {
          if (current === undefined) throw notFound(groupResourceOf(scope.type), key.name);
          await admit(scope, { operation: 'DELETE', user, key, oldObject: current, dryRun: options.dryRun });
          const finalizers = finalizersForPropagation(current.metadata.finalizers ?? [], options);
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
        { preconditions: options.preconditions, dryRun: options.dryRun },
      );
      return { object: await toServedVersion(scope, result.object), deleted: false };
    } catch (error) {
      if (!(error instanceof RemoveNow)) throw error;
      try {
        return { object: await toServedVersion(scope, await removeExactly(scope, key, error.current, options.dryRun)), deleted: true };
      } catch (removeError) {
        const raced = removeError instanceof ObjectError && removeError.reason === 'Conflict';
        if (!raced || options.preconditions?.resourceVersion !== undefined || attempt >= MAX_ATTEMPTS) throw removeError;
      }
    }
  }
}

function successStatus(scope: HandlerScope, object: KubeObject): object {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    details: {
      name: object.metadata.name,
      ...(scope.type.group ? { group: scope.type.group } : {}),
      kind: scope.type.resource,
      uid: object.metadata.uid,
    },
  };
}

export function deleteHandler(scope: HandlerScope): ResourceHandler {
  return async ({ info, req, res }) => {
    const options = parseDeleteOptions(queryOf(req), optionsBodyAsJson({ req, body: await readBody(req), settings: scope.context.representations }), { allowUnsafeMalformedObjectDeletion: unsafeDeleteEnabled(scope) });
    const key = objectKeyOf(scope, info);
    let outcome: DeleteOutcome;
    if (options.ignoreStoreReadErrorWithClusterBreakingPotential === true) {
      await authorizeUnsafeDelete(scope, { info, user: req.user });
      const unsafe = await deleteCorruptObject(scope, key, options, req.user);
      if (!('normal' in unsafe)) {
        // Nothing could be read, so the answer names the object only, as the reference's does.
        const status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 200, details: { name: key.name, kind: scope.type.kind } };
        addWarnings(res, deprecationWarnings(scope));
        await writeResponse(scope, res, 200, status);
        return;
      }
      outcome = unsafe.normal;
    } else {
      outcome = await deleteObject(scope, key, options, req.user);
    }
    addWarnings(res, deprecationWarnings(scope));
    if (!outcome.deleted) {
      // The reference answers 202 only for a lingering object whose caller asked for cascading (orphanDependents=false).
      await writeResponse(scope, res, options.orphanDependents === false ? 202 : 200, outcome.object);
      return;
    }
    await writeResponse(scope, res, 200, scope.type.returnsDeletedObject ? outcome.object : successStatus(scope, outcome.object));
  };
}

/** DELETE on a collection: every selected object goes through the same two phases; the answer lists them. */
export function deleteCollectionHandler(scope: HandlerScope): ResourceHandler {
  return async ({ info, req, res }) => {
    const query = queryOf(req);
    const options = parseDeleteOptions(query, optionsBodyAsJson({ req, body: await readBody(req), settings: scope.context.representations }), { allowUnsafeMalformedObjectDeletion: unsafeDeleteEnabled(scope) });
    if (options.ignoreStoreReadErrorWithClusterBreakingPotential === true) {
      const field = invalidField(FieldPath.root('ignoreStoreReadErrorWithClusterBreakingPotential'), true, 'is not allowed with DELETECOLLECTION, try again after removing the option');
      throw invalid({ group: 'meta.k8s.io', kind: 'DeleteOptions' }, '', [field]);
    }
    const listQuery = parseListQuery(query, false);
    const listed = await scope.storage.list(namespaceScopeOf(scope, info.namespace), {
      resourceVersion: listQuery.resourceVersion,
      resourceVersionMatch: listQuery.resourceVersionMatch,
      predicate: predicateOf(scope, listQuery),
    });
    const items: KubeObject[] = [];
    for (const item of listed.items) {
      const key = { namespace: item.metadata.namespace, name: item.metadata.name ?? '' };
      try {
        items.push((await deleteObject(scope, key, { ...options, preconditions: undefined }, req.user)).object);
      } catch (error) {
        // Deleted by someone else meanwhile: nothing left to do for it.
        if (error instanceof ObjectError && error.reason === 'NotFound') continue;
        if (error instanceof StatusError && error.code === 404) continue;
        throw error;
      }
    }
    addWarnings(res, deprecationWarnings(scope));
    await writeResponse(scope, res, 200, {
      kind: scope.type.listKind,
      apiVersion: apiVersionOf(scope),
      metadata: { resourceVersion: listed.resourceVersion },
      items,
    });
  };
}
