/** GET on an object (or its status, which reads the same object). */
import { queryOf } from '../request/query';
import { badRequest } from '../status/catalogue';
import { objectKeyOf, toServedVersion } from '../registry/store/scope';
import { addWarnings, deprecationWarnings, writeResponse, type HandlerScope, type ResourceHandler } from './scope';

export function getHandler(scope: HandlerScope): ResourceHandler {
  return async ({ info, req, res }) => {
    addWarnings(req, deprecationWarnings(scope));
    const query = queryOf(req);
    // The reference reads `export` as Go's bool of a query list (anything but 0 or false is
    // true) and refuses it set, before it reads anything.
    const exported = query.get('export');
    if (exported !== null && exported !== '0' && exported.toLowerCase() !== 'false')
      throw badRequest('the export parameter, deprecated since v1.14, is no longer supported');
    const resourceVersion = query.get('resourceVersion') ?? undefined;
    const object = await scope.storage.get(objectKeyOf(scope, info), { resourceVersion });
    await writeResponse(scope, res, 200, await toServedVersion(scope, object));
  };
}
