/**
 * PUT on an object, its status, or a namespace's finalize: a full replacement, conditional on
 * `metadata.resourceVersion` when the body carries one.
 */
import { copyJson } from '../apply/json-value';
import { parseWriteOptions, queryOf } from '../request/query';
import { guardedWrite, type WriteTarget } from './guarded-write';
import { addWarnings, deprecationWarnings, objectKeyOf, writeResponse, type HandlerScope, type ResourceHandler } from './scope';
import { checkName, checkNamespace, decodeObjectBody, fieldManagerOf, invalidObject } from './write-steps';

export function updateHandler(scope: HandlerScope, target: WriteTarget = 'main'): ResourceHandler {
  return async ({ info, req, res }) => {
    const options = parseWriteOptions(queryOf(req), 'UpdateOptions');
    const decoded = await decodeObjectBody(scope, req, options);
    const object = decoded.object;
    checkNamespace(scope, object, info.namespace);
    checkName(object, info.name);
    const resourceVersion = object.metadata.resourceVersion || undefined;
    if (resourceVersion === undefined && scope.type.requiresResourceVersionOnUpdate) {
      throw invalidObject(scope, info.name, [
        { type: 'FieldValueInvalid', field: 'metadata.resourceVersion', detail: 'Invalid value: 0x0: must be specified for an update' },
      ]);
    }
    const result = await guardedWrite({
      scope,
      user: req.user,
      key: objectKeyOf(scope, info),
      compute: () => copyJson(object),
      target,
      manager: fieldManagerOf(req, options),
      subresource: info.subresource || undefined,
      preconditions: resourceVersion === undefined ? undefined : { resourceVersion },
      allowCreate: target === 'main' && scope.type.allowCreateOnUpdate === true,
      dryRun: options.dryRun,
    });
    addWarnings(res, [...deprecationWarnings(scope), ...decoded.warnings, ...result.warnings]);
    await writeResponse(scope, res, result.created ? 201 : 200, result.object);
  };
}
