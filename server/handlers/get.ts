/** GET on an object (or its status, which reads the same object). */
import { queryOf } from '../request/query';
import { badRequest } from '../status/catalogue';
import { objectKeyOf, toServedVersion } from '../registry/store/scope';
import { KeptEncodings } from './kept-encodings';
import { addWarnings, deprecationWarnings, writeResponse, type HandlerScope, type ResourceHandler } from './scope';

export function getHandler(scope: HandlerScope): ResourceHandler {
  // Each stored object's answer as this handler serves it, kept for the GETs that follow (KeptObjectEncoding).
  const keptEncodings = new KeptEncodings();
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
    const served = toServedVersion(scope, object);
    // An asynchronous conversion (a webhook) may answer differently next time: its answer is not kept.
    if (served instanceof Promise) await writeResponse(scope, res, 200, await served);
    else await writeResponse(scope, res, 200, served, { source: object, ...keptEncodings.forAnswer() });
  };
}
