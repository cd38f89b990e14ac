/** POST on a collection: create, answering 201 Created (also for dry runs, as the reference does). */
import { ObjectError } from '../../storage/errors';
import type { KubeObject } from '../../storage/objects/types';
import type { UserInfo } from '../authn/types';
import { parseWriteOptions, queryOf } from '../request/query';
import { copyJson } from '../apply/json-value';
import { admit } from './admit';
import { prepareCreate } from './guarded-write';
import { addWarnings, deprecationWarnings, objectKeyOf, toServedVersion, writeResponse, type HandlerScope, type ResourceHandler } from './scope';
import { checkNamespace, decodeObjectBody, fieldManagerOf, recordManagedFields } from './write-steps';

/** The reference retries a create whose generated name was taken (RetryGenerateName). */
const GENERATED_NAME_ATTEMPTS = 8;

export interface NewObject {
  /** A decoded object of the scope's version, with its namespace already checked; not changed. */
  readonly object: KubeObject;
  readonly user: UserInfo;
  readonly manager: string;
  readonly dryRun: boolean;
}

/**
 * Every step of a create after decoding: defaults, the strategy, admission, managedFields,
 * then storage. Shared by POST and by the server's own controllers.
 */
export async function storeNewObject(scope: HandlerScope, request: NewObject): Promise<{ created: KubeObject; warnings: string[] }> {
  const object = await prepareCreate(scope, copyJson(request.object));
  const key = objectKeyOf(scope, { namespace: object.metadata.namespace ?? '', name: object.metadata.name ?? '' });
  await admit(scope, { operation: 'CREATE', user: request.user, key, object, dryRun: request.dryRun });
  recordManagedFields({ scope, object, manager: request.manager });
  const warnings = scope.type.strategy.warnings?.(object, undefined) ?? [];
  const created = await scope.storage.create(key, object, { dryRun: request.dryRun });
  return { created: await toServedVersion(scope, created), warnings };
}

export function createHandler(scope: HandlerScope): ResourceHandler {
  return async ({ info, req, res }) => {
    const options = parseWriteOptions(queryOf(req), 'CreateOptions');
    const decoded = await decodeObjectBody(scope, req, options);
    checkNamespace(scope, decoded.object, info.namespace);
    const request = { object: decoded.object, user: req.user, manager: fieldManagerOf(req, options), dryRun: options.dryRun };
    for (let attempt = 1; ; attempt++) {
      try {
        const { created, warnings } = await storeNewObject(scope, request);
        addWarnings(res, [...deprecationWarnings(scope), ...decoded.warnings, ...warnings]);
        await writeResponse(scope, res, 201, created);
        return;
      } catch (error) {
        const nameWasGenerated = !decoded.object.metadata.name && Boolean(decoded.object.metadata.generateName);
        const taken = error instanceof ObjectError && error.reason === 'AlreadyExists';
        if (!taken || !nameWasGenerated || attempt >= GENERATED_NAME_ATTEMPTS) throw error;
      }
    }
  };
}
