/**
 * The built-in resource types as the server serves them: the kinds' declarations
 * (server/registry/kinds/), the CustomResourceDefinition kind with the apiextensions server's
 * strategy (server/apiextensions/), and the legacy `bindings` collection, each with its
 * subresources' handlers (server/subresources/) in its slots. Composed here, above all of them,
 * so that a kind's declaration never reaches up to the endpoints that serve it.
 */
import { apiextensionsKinds } from './apiextensions/crd-kind';
import { featureEnabled } from './config/feature-enabled';
import { REGISTERED_GROUP_VERSIONS } from './config/registered-group-versions';
import { runtimeConfigEnabled } from './config/runtime-config';
import { BUILTIN_KINDS } from './registry/kinds';
import { ResourceTypeRegistry, type RegistryOptions } from './registry/registry';
import type { ResourceType } from './registry/types';
import { LEGACY_BINDINGS, withBuiltinSubresources } from './subresources/builtin-slots';

export const BUILTIN_TYPES: readonly ResourceType[] = withBuiltinSubresources([
  ...BUILTIN_KINDS,
  LEGACY_BINDINGS,
  ...apiextensionsKinds,
]);

export interface BuiltinRegistryOptions {
  /** Which group-version-resources `--runtime-config` serves; default: the reference's defaults (GA only). */
  readonly enabled?: RegistryOptions['enabled'];
  /** Whether a feature gate is on; default: its 1.34 default. */
  readonly featureEnabled?: (gate: string) => boolean;
}

/** The type with its defaults under the server's gates wherever they are applied, unless a caller names others. */
function defaultingUnder(type: ResourceType, gateOn: (gate: string) => boolean): ResourceType {
  const { applyDefaults } = type.strategy;
  if (applyDefaults === undefined) return type;
  return {
    ...type,
    strategy: {
      ...type.strategy,
      applyDefaults: (object, version, featureEnabled = gateOn) => applyDefaults(object, version, featureEnabled),
    },
  };
}

/** The type without the subresources behind gates that are off. */
function withoutGatedSubresources(type: ResourceType, gateOn: (gate: string) => boolean): ResourceType {
  const subresources = type.handlers?.subresources;
  if (subresources === undefined) return type;
  const served = Object.entries(subresources).filter(
    ([, endpoint]) => endpoint.featureGate === undefined || gateOn(endpoint.featureGate),
  );
  if (served.length === Object.keys(subresources).length) return type;
  return { ...type, handlers: { ...type.handlers, subresources: Object.fromEntries(served) } };
}

/**
 * A registry that starts with the built-in types the options serve. A type or a subresource
 * behind a feature gate that is off is not served in any version, as the reference's storage
 * providers leave it out.
 */
export function builtinRegistry(options: BuiltinRegistryOptions = {}): ResourceTypeRegistry {
  const enabled = options.enabled ?? runtimeConfigEnabled({ config: {}, registered: REGISTERED_GROUP_VERSIONS });
  const gateOn = options.featureEnabled ?? ((gate: string) => featureEnabled({}, gate));
  const types = BUILTIN_TYPES.filter((type) => type.featureGate === undefined || gateOn(type.featureGate)).map((type) =>
    defaultingUnder(withoutGatedSubresources(type, gateOn), gateOn),
  );
  return new ResourceTypeRegistry({ types, enabled });
}
