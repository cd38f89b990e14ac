/**
 * The built-in resource types as the server serves them: the kinds' declarations
 * (server/registry/kinds/), the CustomResourceDefinition kind with the apiextensions server's
 * strategy (server/apiextensions/), and the legacy `bindings` collection, each with its
 * subresources' handlers (server/subresources/) in its slots. Composed here, above all of them,
 * so that a kind's declaration never reaches up to the endpoints that serve it.
 */
import { apiextensionsKinds } from './apiextensions/crd-kind';
import { BUILTIN_KINDS } from './registry/kinds';
import { ResourceTypeRegistry, type RegistryOptions } from './registry/registry';
import type { ResourceType } from './registry/types';
import { LEGACY_BINDINGS, withBuiltinSubresources } from './subresources/builtin-slots';

export const BUILTIN_TYPES: readonly ResourceType[] = withBuiltinSubresources([
  ...BUILTIN_KINDS,
  LEGACY_BINDINGS,
  ...apiextensionsKinds,
]);

/** A registry that starts with every built-in type (those `enabled` allows, when given). */
export function builtinRegistry(enabled?: RegistryOptions['enabled']): ResourceTypeRegistry {
  return new ResourceTypeRegistry({ types: BUILTIN_TYPES, ...(enabled ? { enabled } : {}) });
}
