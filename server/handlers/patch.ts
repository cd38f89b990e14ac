/** PATCH on an object or its status: the patch is applied to the current object inside the guaranteed update. */
import { readBody } from '../http/body';
import { mediaTypeOf } from '../request/content-type';
import { parseWriteOptions, queryOf } from '../request/query';
import { unsupportedMediaType } from '../status/catalogue';
import { guardedWrite, type WriteTarget } from './guarded-write';
import { PATCH_TYPES } from './patch-types';
import { addWarnings, deprecationWarnings, objectKeyOf, writeResponse, type HandlerScope, type ResourceHandler } from './scope';
import { checkName, checkNamespace, decodeParsed, fieldManagerOf } from './write-steps';

export function patchHandler(scope: HandlerScope, target: WriteTarget = 'main'): ResourceHandler {
  return async ({ info, req, res }) => {
    const patchType = PATCH_TYPES.get(mediaTypeOf(req));
    if (patchType === undefined) {
      req.resume();
      throw unsupportedMediaType([...PATCH_TYPES.keys()]);
    }
    const options = parseWriteOptions(queryOf(req), 'PatchOptions');
    const patch = patchType.parse(await readBody(req));
    let decodeWarnings: readonly string[] = [];
    const result = await guardedWrite({
      scope,
      user: req.user,
      key: objectKeyOf(scope, info),
      compute: (current) => {
        // Absent objects never reach here: PATCH does not create (apply will, through its own entry).
        const patched = patchType.apply(current!, patch);
        const decoded = decodeParsed(scope, patched, [], options);
        decodeWarnings = decoded.warnings;
        checkNamespace(scope, decoded.object, info.namespace);
        checkName(decoded.object, info.name);
        return decoded.object;
      },
      target,
      manager: fieldManagerOf(req, options),
      subresource: info.subresource || undefined,
      dryRun: options.dryRun,
    });
    addWarnings(res, [...deprecationWarnings(scope), ...decodeWarnings, ...result.warnings]);
    await writeResponse(scope, res, 200, result.object);
  };
}
