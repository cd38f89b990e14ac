/**
 * The forced removal of a corrupt object: DELETE with `ignoreStoreReadErrorWithClusterBreakingPotential`
 * under the feature gate AllowUnsafeMalformedObjectDeletion, as the reference's corrupt object
 * deleter does it. The caller needs `unsafe-delete-ignore-read-errors` on the object besides
 * `delete`; the object must really be unreadable (else 422); a normal delete is tried first, and
 * only when that fails on the corrupt bytes is the key removed without reading it, skipping
 * finalizers, preconditions and admission (there is no object to give them).
 */
import type { RequestInfo } from '../http/request-info';
import type { UserInfo } from '../authn/types';
import { ObjectError } from '../../storage/errors';
import { isCorruptObjectError } from '../../storage/objects/codec';
import type { ObjectKey } from '../../storage/objects/types';
import type { DeleteRequestOptions } from '../request/query';
import { attributesFrom } from '../authz/types';
import { forbidden, internalError, invalid } from '../status/catalogue';
import { invalid as invalidField, FieldPath } from '../validation/field-errors';
import { deleteObject, type DeleteOutcome } from './delete';
import { groupResourceOf, type HandlerScope } from './scope';

export const UNSAFE_DELETE_FEATURE = 'AllowUnsafeMalformedObjectDeletion';
const UNSAFE_DELETE_VERB = 'unsafe-delete-ignore-read-errors';

export function unsafeDeleteEnabled(scope: HandlerScope): boolean {
  return scope.context.featureGates?.[UNSAFE_DELETE_FEATURE] === true;
}

/** The request's user may also do `unsafe-delete-ignore-read-errors` on this object, or 403. */
export async function authorizeUnsafeDelete(scope: HandlerScope, request: { info: RequestInfo; user: UserInfo }): Promise<void> {
  const { authorizer } = scope.context;
  if (authorizer === undefined) throw internalError('no authorizer provided, unable to authorize unsafe delete');
  const result = await authorizer.authorize(attributesFrom(request.info, request.user, { verb: UNSAFE_DELETE_VERB }));
  if (result.decision === 'allow') return;
  throw forbidden(groupResourceOf(scope.type), request.info.name, `not permitted to do ${JSON.stringify(UNSAFE_DELETE_VERB)}, reason: ${result.reason}`);
}

/** What the removal answers: the normal outcome when the normal delete worked after all, else whether a key went. */
export type UnsafeDeleteOutcome = { readonly normal: DeleteOutcome } | { readonly removed: boolean };

export async function deleteCorruptObject(scope: HandlerScope, key: ObjectKey, options: DeleteRequestOptions, user: UserInfo): Promise<UnsafeDeleteOutcome> {
  // Only for an object that cannot be read: a readable (or missing) one aborts.
  const readable = await scope.storage.get(key).then(
    () => true,
    (error: unknown) => !isCorruptObjectError(error),
  );
  if (readable) {
    const field = invalidField(FieldPath.root('ignoreStoreReadErrorWithClusterBreakingPotential'), true, 'is exclusively used to delete corrupt object(s), try again by removing this option');
    throw invalid({ group: scope.type.group, kind: scope.type.resource }, key.name, [field]);
  }
  try {
    return { normal: await deleteObject(scope, key, options, user) };
  } catch (error) {
    if (!isCorruptObjectError(error)) throw error;
  }
  try {
    await scope.storage.delete(key, { ignoreStoreReadError: true });
    return { removed: true };
  } catch (error) {
    // Someone removed it meanwhile: the request's aim is met all the same.
    if (error instanceof ObjectError && error.reason === 'NotFound') return { removed: false };
    throw error;
  }
}
