/** POST on a collection: create, answering 201 Created (also for dry runs, as the reference does). */
import type { KubeObject } from '../../api/objects';
import { parseWriteOptions, queryOf } from '../request/query';
import { operationOptions } from '../registry/store/admission';
import { auditRequestObject } from '../audit/record/request-audit';
import { writeOriginOf } from './write-origin';
import { createObject } from '../registry/store/create';
import { wipeSystemMetadata } from '../registry/store/object-meta';
import { finishRequest } from './post-timeout';
import { addWarnings, deprecationWarnings, writeResponse, type HandlerScope, type ResourceHandler } from './scope';
import { checkNamespace, decodeObjectBody, fieldManagerOf } from './object-body';

export function createHandler(scope: HandlerScope): ResourceHandler {
  return async ({ info, req, res }) => {
    addWarnings(req, deprecationWarnings(scope));
    const options = parseWriteOptions(queryOf(req), 'CreateOptions');
    const decoded = await decodeObjectBody(scope, req, options);
    addWarnings(req, decoded.warnings);
    auditRequestObject(req, decoded.object, (copy) =>
      scope.type.strategy.applyDefaults?.(copy as KubeObject, scope.version.version),
    );
    // What the client may not set goes before admission and the field manager see the object.
    wipeSystemMetadata(decoded.object);
    checkNamespace(scope, decoded.object, info.namespace);
    const created = await finishRequest(
      req,
      createObject(scope, {
        object: decoded.object,
        ...writeOriginOf(req),
        manager: fieldManagerOf(req, options),
        options: operationOptions('CreateOptions', options),
        dryRun: options.dryRun,
      }),
    );
    await writeResponse(scope, res, 201, created);
  };
}
