/**
 * PUT on an object, its status, or a namespace's finalize: a full replacement, conditional on
 * the `metadata.resourceVersion` (and `metadata.uid`) the body carries.
 */
import type { KubeObject } from '../../api/objects';
import { finishRequest } from './post-timeout';
import { copyJson } from '../json/value';
import { parseWriteOptions, queryOf } from '../request/query';
import { operationOptions } from '../registry/store/admission';
import { auditRequestObject } from '../audit/record/request-audit';
import { writeOriginOf } from './write-origin';
import { objectKeyOf } from '../registry/store/scope';
import { updateObject, type WriteTarget } from '../registry/store/update';
import { addWarnings, deprecationWarnings, writeResponse, type HandlerScope, type ResourceHandler } from './scope';
import { checkName, checkNamespace, decodeObjectBody, fieldManagerOf, requireNameInUrl } from './object-body';

export function updateHandler(scope: HandlerScope, target: WriteTarget = 'main'): ResourceHandler {
  return async ({ info, req, res }) => {
    requireNameInUrl(info);
    addWarnings(req, deprecationWarnings(scope));
    const options = parseWriteOptions(queryOf(req), 'UpdateOptions');
    const decoded = await decodeObjectBody(scope, req, options, target);
    addWarnings(req, decoded.warnings);
    auditRequestObject(req, decoded.object, (copy) =>
      scope.type.strategy.applyDefaults?.(copy as KubeObject, scope.version.version),
    );
    const object = decoded.object;
    checkNamespace(scope, object, info.namespace);
    checkName(object, info.name);
    // The reference takes a body's uid as a precondition of the whole update (409 when it differs).
    const uid = object.metadata.uid || undefined;
    const result = await finishRequest(
      req,
      updateObject(scope, {
        ...writeOriginOf(req),
        key: objectKeyOf(scope, info),
        updatedObject: () => copyJson(object),
        target,
        manager: fieldManagerOf(req, options),
        subresource: info.subresource || undefined,
        preconditions: uid === undefined ? undefined : { uid },
        allowCreate: target === 'main' && scope.type.allowCreateOnUpdate === true,
        options: operationOptions('UpdateOptions', options),
        dryRun: options.dryRun,
      }),
    );
    await writeResponse(scope, res, result.created ? 201 : 200, result.object);
  };
}
