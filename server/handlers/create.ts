/** POST on a collection: create, answering 201 Created (also for dry runs, as the reference does). */
import { ObjectError } from '../../storage/errors';
import { parseWriteOptions, queryOf } from '../request/query';
import { prepareCreate } from './guarded-write';
import { admit } from './admit';
import { addWarnings, deprecationWarnings, objectKeyOf, toServedVersion, writeJSON, type HandlerScope, type ResourceHandler } from './scope';
import { checkNamespace, decodeObjectBody, fieldManagerOf, recordManagedFields } from './write-steps';

/** The reference retries a create whose generated name was taken (RetryGenerateName). */
const GENERATED_NAME_ATTEMPTS = 8;

export function createHandler(scope: HandlerScope): ResourceHandler {
  return async ({ info, req, res }) => {
    const options = parseWriteOptions(queryOf(req), 'CreateOptions');
    const decoded = await decodeObjectBody(scope, req, options);
    checkNamespace(scope, decoded.object, info.namespace);
    const manager = fieldManagerOf(req, options);
    for (let attempt = 1; ; attempt++) {
      const object = prepareCreate(scope, structuredClone(decoded.object));
      const key = objectKeyOf(scope, { ...info, name: object.metadata.name ?? '' });
      await admit(scope, { operation: 'CREATE', user: req.user, key, object, dryRun: options.dryRun });
      recordManagedFields({ scope, object, manager });
      const warnings = scope.type.strategy.warnings?.(object, undefined) ?? [];
      try {
        const created = await scope.storage.create(key, object, {
          dryRun: options.dryRun,
        });
        addWarnings(res, [...deprecationWarnings(scope), ...decoded.warnings, ...warnings]);
        writeJSON(res, 201, toServedVersion(scope, created));
        return;
      } catch (error) {
        const nameWasGenerated = !decoded.object.metadata.name && Boolean(decoded.object.metadata.generateName);
        const taken = error instanceof ObjectError && error.reason === 'AlreadyExists';
        if (!taken || !nameWasGenerated || attempt >= GENERATED_NAME_ATTEMPTS) throw error;
      }
    }
  };
}
