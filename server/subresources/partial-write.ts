/**
 * Subresources that write part of their parent (a CSR's approval, a pod's ephemeral containers
 * or resources): GET answers the parent, PUT and PATCH run the store's status write with the
 * subresource's own preparation (what it may change, the rest kept as stored) and rules in the
 * strategy's places, so decoding, patching, admission, managedFields and preconditions are the
 * generic ones. None of them warns, as none of the reference's strategies for them does: the
 * status kept as stored is not the writer's to hear about.
 */
import type { OwnershipScope } from '../apply/apply';
import { getHandler } from '../handlers/get';
import { patchHandler } from '../handlers/patch';
import type { HandlerScope, ResourceHandler } from '../handlers/scope';
import { updateHandler } from '../handlers/update';
import type { Strategy } from '../registry/types';

export type PartialWriteRules = (
  base: Strategy,
  scope: HandlerScope,
) => Required<Pick<Strategy, 'prepareForStatusUpdate' | 'validateStatusUpdate'>>;

/**
 * `applyOwns`: what an apply through the subresource may own, as its store's reset fields have
 * it; absent, the status alone, as a status subresource's.
 */
export function partialWriteHandlers(
  rules: PartialWriteRules,
  applyOwns?: OwnershipScope,
): Readonly<Record<'get' | 'update' | 'patch', (scope: HandlerScope) => ResourceHandler>> {
  const scoped = (scope: HandlerScope): HandlerScope => ({
    ...scope,
    type: {
      ...scope.type,
      strategy: { ...scope.type.strategy, ...rules(scope.type.strategy, scope), statusWarnings: () => [] },
    },
  });
  return {
    get: getHandler,
    update: (scope) => updateHandler(scoped(scope), 'status'),
    patch: (scope) => patchHandler(scoped(scope), 'status', applyOwns),
  };
}
