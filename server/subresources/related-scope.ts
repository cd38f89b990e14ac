/**
 * The store scope of another served type, for subresources whose write lands elsewhere than
 * their parent (an eviction updates a PodDisruptionBudget, the legacy `bindings` collection
 * writes pods).
 */
import type { HandlerScope } from '../handlers/scope';
import type { StoreScope } from '../registry/store/scope';
import { withTypeDefinitions } from '../registry/type-definitions';
import type { GroupVersionResource } from '../../api/identity';
import { internalError } from '../status/catalogue';

export function relatedScope(scope: HandlerScope, { group, version, resource }: GroupVersionResource): StoreScope {
  const type = scope.context.registry.find({ group, version }, resource);
  const storageFor = scope.context.storageFor;
  const served = type?.versions.find((candidate) => candidate.version === version);
  if (type === undefined || served === undefined || storageFor === undefined)
    throw internalError(`${resource} are not served`);
  return { type, version: served, storage: storageFor(type), context: withTypeDefinitions(scope.context, type) };
}
