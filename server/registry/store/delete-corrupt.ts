/**
 * The forced removal of a corrupt object: a delete with `ignoreStoreReadErrorWithClusterBreakingPotential`
 * under the feature gate AllowUnsafeMalformedObjectDeletion, as the reference's corrupt object
 * deleter does it. The object must really be unreadable (else 422); a normal delete is tried
 * first, and only when that fails on the corrupt bytes is the key removed without reading it,
 * skipping finalizers, preconditions and admission (there is no object to give them). The
 * caller checks the extra permission (`unsafe-delete-ignore-read-errors`) first.
 */
import { ObjectError } from '../../../storage/errors';
import { isCorruptObjectError } from '../../../storage/objects/codec';
import { featureEnabled } from '../../config/feature-enabled';
import { invalid } from '../../status/catalogue';
import { invalid as invalidField, FieldPath } from '../../status/field-errors';
import { deleteObject, type DeleteOutcome, type DeleteRequest } from './delete';
import type { StoreScope } from './scope';

export function unsafeDeleteEnabled(scope: StoreScope): boolean {
  return featureEnabled(scope.context.featureGates ?? {}, 'AllowUnsafeMalformedObjectDeletion');
}

/** What the removal answers: the normal outcome when the normal delete worked after all, else whether a key went. */
export type UnsafeDeleteOutcome = { readonly normal: DeleteOutcome } | { readonly removed: boolean };

export async function deleteCorruptObject(scope: StoreScope, request: DeleteRequest): Promise<UnsafeDeleteOutcome> {
  const { key } = request;
  // Only for an object that cannot be read: a readable (or missing) one aborts.
  const readable = await scope.storage.get(key).then(
    () => true,
    (error: unknown) => !isCorruptObjectError(error),
  );
  if (readable) {
    const field = invalidField(
      FieldPath.root('ignoreStoreReadErrorWithClusterBreakingPotential'),
      true,
      'is exclusively used to delete corrupt object(s), try again by removing this option',
    );
    throw invalid({ group: scope.type.group, kind: scope.type.resource }, key.name, [field]);
  }
  try {
    return { normal: await deleteObject(scope, request) };
  } catch (error) {
    if (!isCorruptObjectError(error)) throw error;
  }
  try {
    await scope.storage.delete(key, { ignoreStoreReadError: true, deadline: request.deadline });
    return { removed: true };
  } catch (error) {
    // Someone removed it meanwhile: the request's aim is met all the same.
    if (error instanceof ObjectError && error.reason === 'NotFound') return { removed: false };
    throw error;
  }
}
