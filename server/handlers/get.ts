/** GET on an object (or its status, which reads the same object). */
import { queryOf } from '../request/query';
import { objectKeyOf, toServedVersion } from '../registry/store/scope';
import { addWarnings, deprecationWarnings, writeResponse, type HandlerScope, type ResourceHandler } from './scope';

export function getHandler(scope: HandlerScope): ResourceHandler {
  return async ({ info, req, res }) => {
    addWarnings(req, deprecationWarnings(scope));
    const resourceVersion = queryOf(req).get('resourceVersion') ?? undefined;
    const object = await scope.storage.get(objectKeyOf(scope, info), { resourceVersion });
    await writeResponse(scope, res, 200, await toServedVersion(scope, object));
  };
}
