/**
 * DELETE of one object and of a collection: the options, the extra permission an unsafe
 * delete needs, and the answer. The deletion itself is the store's (server/registry/store/
 * delete.ts): an object something still holds lingers, marked; the answer is the object while
 * it lingers; once gone, the object for kinds that return it, else a Success Status naming it.
 */
import { decodeContinueToken } from '../../storage/objects/continue-token';
import { finishRequest } from './post-timeout';
import type { KubeObject } from '../../api/objects';
import type { Request } from 'express';
import type { UserInfo } from '../../api/user-info';
import { optionsBodyAsJson } from '../codec/options-body';
import { readBody } from '../request/body';
import { auditDeleteOptions } from '../audit/record/request-audit';
import { writeOriginOf } from './write-origin';
import type { RequestInfo } from '../request/request-info';
import { operationOptions, type WriteRequest } from '../registry/store/admission';
import { deleteObject, type DeleteOutcome, type Deletion } from '../registry/store/delete';
import { deleteCollection } from '../registry/store/delete-collection';
import { deleteCorruptObject, unsafeDeleteEnabled } from '../registry/store/delete-corrupt';
import { apiVersionOf, groupResourceOf, objectKeyOf } from '../registry/store/scope';
import { parseDeleteOptions, queryOf, type DeleteRequestOptions } from '../request/query';
import { forbidden, internalError, invalid } from '../status/catalogue';
import { invalid as invalidField, FieldPath } from '../status/field-errors';
import { attributesFrom } from '../authz/types';
import { namespaceScopeOf, selectionOf } from './list';
import {
  addWarnings,
  deprecationWarnings,
  listQueryOf,
  writeResponse,
  type HandlerScope,
  type ResourceHandler,
} from './scope';

const UNSAFE_DELETE_VERB = 'unsafe-delete-ignore-read-errors';

/** The request's user may also do `unsafe-delete-ignore-read-errors` on this object, or 403. */
async function authorizeUnsafeDelete(
  scope: HandlerScope,
  request: { info: RequestInfo; user: UserInfo },
): Promise<void> {
  const { authorizer } = scope.context;
  if (authorizer === undefined) throw internalError('no authorizer provided, unable to authorize unsafe delete');
  const result = await authorizer.authorize(attributesFrom(request.info, request.user, { verb: UNSAFE_DELETE_VERB }));
  if (result.decision === 'allow') return;
  throw forbidden(
    groupResourceOf(scope.type),
    request.info.name,
    `not permitted to do ${JSON.stringify(UNSAFE_DELETE_VERB)}, reason: ${result.reason}`,
  );
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

/** The kind's warning for a deletion that says nothing of dependents (Jobs: their pods are kept). */
function propagationWarnings(scope: HandlerScope, options: DeleteRequestOptions): string[] {
  const unset = options.propagationPolicy === undefined && options.orphanDependents === undefined;
  return unset && scope.type.unsetPropagationWarning !== undefined ? [scope.type.unsetPropagationWarning] : [];
}

/** Who deletes and with which options, as the store is told. */
function writeRequestOf(options: DeleteRequestOptions, req: Request): WriteRequest & { readonly deletion: Deletion } {
  return {
    ...writeOriginOf(req),
    options: operationOptions('DeleteOptions', options),
    dryRun: options.dryRun,
    deletion: options,
  };
}

export function deleteHandler(scope: HandlerScope): ResourceHandler {
  return async ({ info, req, res }) => {
    addWarnings(req, deprecationWarnings(scope));
    const body = optionsBodyAsJson({ req, body: await readBody(req), settings: scope.context.representations });
    const options = parseDeleteOptions(queryOf(req), body, {
      allowUnsafeMalformedObjectDeletion: unsafeDeleteEnabled(scope),
    });
    auditDeleteOptions(req, body);
    const request = { ...writeRequestOf(options, req), key: objectKeyOf(scope, info) };
    const refusal = scope.type.deleteRefusal?.(info.name);
    if (refusal !== undefined) throw forbidden(groupResourceOf(scope.type), info.name, refusal);
    let outcome: DeleteOutcome;
    if (options.ignoreStoreReadErrorWithClusterBreakingPotential === true)
      await authorizeUnsafeDelete(scope, { info, user: req.user });
    // Before the object is looked up, as the reference's Job storage warns: a 404 carries it too.
    addWarnings(req, propagationWarnings(scope, options));
    if (options.ignoreStoreReadErrorWithClusterBreakingPotential === true) {
      const unsafe = await finishRequest(req, deleteCorruptObject(scope, request));
      if (!('normal' in unsafe)) {
        // Nothing could be read, so the answer names the object only, as the reference's does.
        const status = {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Success',
          details: { name: request.key.name, kind: scope.type.kind },
          code: 200,
        };
        await writeResponse(scope, res, 200, status);
        return;
      }
      outcome = unsafe.normal;
    } else {
      outcome = await finishRequest(req, deleteObject(scope, request));
    }
    if (!outcome.deleted) {
      // The reference answers 202 only for a lingering object whose caller asked for cascading (orphanDependents=false).
      await writeResponse(scope, res, options.orphanDependents === false ? 202 : 200, outcome.object);
      return;
    }
    await writeResponse(
      scope,
      res,
      200,
      scope.type.returnsDeletedObject ? outcome.object : successStatus(scope, outcome.object),
    );
  };
}

/** DELETE on a collection: every selected object is deleted as by DELETE; the answer lists them. */
export function deleteCollectionHandler(scope: HandlerScope): ResourceHandler {
  return async ({ info, req, res }) => {
    addWarnings(req, deprecationWarnings(scope));
    const query = queryOf(req);
    const options = parseDeleteOptions(
      query,
      optionsBodyAsJson({ req, body: await readBody(req), settings: scope.context.representations }),
      { allowUnsafeMalformedObjectDeletion: unsafeDeleteEnabled(scope) },
    );
    if (options.ignoreStoreReadErrorWithClusterBreakingPotential === true) {
      const field = invalidField(
        FieldPath.root('ignoreStoreReadErrorWithClusterBreakingPotential'),
        true,
        'is not allowed with DELETECOLLECTION, try again after removing the option',
      );
      throw invalid({ group: 'meta.k8s.io', kind: 'DeleteOptions' }, '', [field]);
    }
    const listQuery = listQueryOf(scope, query);
    // The reference lists what it deletes with the request's list options: a malformed continue token is refused as a list refuses it.
    if (listQuery.continue) decodeContinueToken(listQuery.continue, '/');
    const selection = selectionOf(scope, listQuery);
    addWarnings(req, propagationWarnings(scope, options));
    const result = await finishRequest(
      req,
      deleteCollection(scope, {
        ...writeRequestOf(options, req),
        namespace: namespaceScopeOf(scope, info.namespace).namespace,
        predicate: selection.predicate,
        ...(selection.servedFields ? { servedFields: selection.servedFields } : {}),
        resourceVersion: listQuery.resourceVersion,
        resourceVersionMatch: listQuery.resourceVersionMatch,
      }),
    );
    await writeResponse(scope, res, 200, {
      kind: scope.type.listKind,
      apiVersion: apiVersionOf(scope),
      metadata: { resourceVersion: result.resourceVersion },
      items: result.items,
    });
  };
}
