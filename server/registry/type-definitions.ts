/**
 * The schema definitions a type's objects are checked against: the built-in ones, with the
 * type's own (a custom resource's schema) over them. Everything that reads schemas (decode,
 * apply, managed fields, OpenAPI) keeps per-definitions caches keyed by the definitions
 * object, so the merge is made once per (type, built-in definitions) and then reused.
 */
import type { KubeObject } from '../../api/objects';
import { typeAgainstSchema, type Definitions } from '../validation/decode';
import type { ResourceType } from './types';

const merged = new WeakMap<ResourceType, WeakMap<Definitions, Definitions>>();

/** `base` itself for a type without definitions of its own. */
export function definitionsOfType(base: Definitions | undefined, type: ResourceType): Definitions | undefined {
  const own = type.definitions;
  if (own === undefined) return base;
  if (base === undefined) return own;
  let byBase = merged.get(type);
  if (byBase === undefined) {
    byBase = new WeakMap();
    merged.set(type, byBase);
  }
  let definitions = byBase.get(base);
  if (definitions === undefined) {
    definitions = { ...base, ...own };
    byBase.set(base, definitions);
  }
  return definitions;
}

/**
 * `context` with the type's own definitions over its built-in ones, for the scopes handlers
 * and the server's own writes work in; `context` itself for a type without definitions.
 */
export function withTypeDefinitions<C extends { readonly definitions?: Definitions }>(
  context: C,
  type: ResourceType,
): C {
  const definitions = definitionsOfType(context.definitions, type);
  return definitions === context.definitions ? context : { ...context, definitions };
}

/**
 * An object of `type` in the version `definition` names, read into the kind's Go type as the
 * reference decodes one: a null the type has no room for is its zero, and a value of another type
 * is named in Go's words in `typeError`. A custom resource stays unstructured: its schema's
 * pruning and defaulting decide.
 */
export function typedForKind(
  definitions: Definitions | undefined,
  type: ResourceType,
  definition: string | undefined,
  object: KubeObject,
): { readonly object: KubeObject; readonly typeError?: string } {
  if (type.prune !== undefined || definition === undefined) return { object };
  const typed = typeAgainstSchema(definitions, definition, object);
  return { object: typed.object as KubeObject, typeError: typed.typeError };
}
