/**
 * DeleteCollection: every object a list selects goes through the same deletion as a single
 * DELETE (deleteObject), without the caller's preconditions, which name one object. An object
 * deleted by someone else meanwhile is skipped: nothing is left to do for it.
 */
import { ObjectError } from '../../../storage/errors';
import type { Predicate, ResourceVersionMatch } from '../../../storage/objects/types';
import { StatusError } from '../../status/status-error';
import type { WriteRequest } from './admission';
import { deleteObject, type Deletion } from './delete';
import { toServedVersion, type StoreScope } from './scope';

import type { KubeObject } from '../../../api/objects';
export interface DeleteCollectionRequest extends WriteRequest {
  /** Absent: every namespace (or a cluster-scoped kind). */
  readonly namespace?: string;
  readonly predicate: Predicate;
  /** Field requirements checked on each listed object as the scope's version serves it (see handlers/list.ts selectionOf). */
  readonly servedFields?: (served: KubeObject) => boolean;
  readonly resourceVersion?: string;
  readonly resourceVersionMatch?: ResourceVersionMatch;
  readonly deletion: Deletion;
}

export interface DeleteCollectionResult {
  /** In the scope's version: removed or now terminating. */
  readonly items: KubeObject[];
  /** The revision the list was read at. */
  readonly resourceVersion: string;
}

export async function deleteCollection(
  scope: StoreScope,
  request: DeleteCollectionRequest,
): Promise<DeleteCollectionResult> {
  const listed = await scope.storage.list(request.namespace === undefined ? {} : { namespace: request.namespace }, {
    resourceVersion: request.resourceVersion,
    resourceVersionMatch: request.resourceVersionMatch,
    predicate: request.predicate,
  });
  const deletion: Deletion = { ...request.deletion, preconditions: undefined };
  const items: KubeObject[] = [];
  for (const item of listed.items) {
    if (request.servedFields && !request.servedFields(await toServedVersion(scope, item))) continue;
    const key = { namespace: item.metadata.namespace, name: item.metadata.name ?? '' };
    try {
      items.push((await deleteObject(scope, { ...request, key, deletion })).object);
    } catch (error) {
      if (error instanceof ObjectError && error.reason === 'NotFound') continue;
      if (error instanceof StatusError && error.code === 404) continue;
      throw error;
    }
  }
  return { items, resourceVersion: listed.resourceVersion };
}
