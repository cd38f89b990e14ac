/**
 * The CEL schema of a served kind, for type-checking policy expressions against it: the kind's
 * OpenAPI definition (built-in, or a custom resource's own) with every `$ref` followed. Kinds
 * refer to themselves (JSONSchemaProps) and to each other, so a definition becomes one shared
 * schema object, and the CEL typing (schema-types.ts) declares each object type once.
 *
 * As the reference reads its OpenAPI v3 schemas: a Quantity (string or number) is dynamic, an
 * IntOrString is int-or-string, a date-time string is a timestamp.
 */
import type { CelSchema } from '../../cel/schema-types';
import type { Definitions, SchemaNode } from '../decode';
import { definitionsOfType } from '../../registry/type-definitions';
import type { ResourceRegistry } from '../../registry/types';
import type { GroupVersionKind } from '../../../api/identity';

/** The kind a rule's group, version and resource name, with its CEL schema. */
export interface ResolvedKind {
  readonly gvk: GroupVersionKind;
  readonly schema: CelSchema;
}

/** Converted definitions, per definitions object (the built-in set, or one merged with a CRD's). */
const converted = new WeakMap<Definitions, Map<string, CelSchema>>();

function definitionName(ref: string): string {
  return ref.slice(ref.lastIndexOf('/') + 1);
}

/** The CEL schema of one definition (`io.k8s.api.core.v1.Namespace`), `$ref`s followed. */
export function schemaOfDefinition(definitions: Definitions, name: string): CelSchema {
  return convertDefinition(definitions, name);
}

function convertDefinition(definitions: Definitions, name: string): CelSchema {
  let byName = converted.get(definitions);
  if (byName === undefined) {
    byName = new Map();
    converted.set(definitions, byName);
  }
  const known = byName.get(name);
  if (known !== undefined) return known;
  // Registered before its properties are converted, so that a cycle finds it.
  const schema: Record<string, unknown> = {};
  byName.set(name, schema as CelSchema);
  const node = definitions[name];
  if (node !== undefined) Object.assign(schema, convertNode(definitions, node));
  return schema as CelSchema;
}

function convertNode(definitions: Definitions, node: SchemaNode): CelSchema {
  const ref = node.$ref ?? (node.allOf?.length === 1 ? node.allOf[0].$ref : undefined);
  if (ref !== undefined) return convertDefinition(definitions, definitionName(ref));
  if (node.format === 'int-or-string' || node['x-kubernetes-int-or-string'])
    return { 'x-kubernetes-int-or-string': true };
  if (node['x-capstan-openapi-v3-one-of'] !== undefined) return {};
  const schema: {
    -readonly [K in keyof CelSchema]: CelSchema[K];
  } = {};
  if (node.type !== undefined) schema.type = node.type;
  if (node.format !== undefined) schema.format = node.format;
  if (node['x-kubernetes-preserve-unknown-fields']) schema['x-kubernetes-preserve-unknown-fields'] = true;
  if (node['x-kubernetes-list-type'] !== undefined) schema['x-kubernetes-list-type'] = node['x-kubernetes-list-type'];
  if (node.items !== undefined) schema.items = convertNode(definitions, node.items);
  if (typeof node.additionalProperties === 'object')
    schema.additionalProperties = convertNode(definitions, node.additionalProperties);
  if (node.properties !== undefined) {
    const properties: Record<string, CelSchema> = {};
    for (const [property, child] of Object.entries(node.properties))
      properties[property] = convertNode(definitions, child);
    schema.properties = properties;
  }
  return schema;
}

/**
 * The kinds served for `group/version/resource` (a main resource; subresources are not typed)
 * with their schemas; none when the resource is not served or has no definition.
 */
export function kindOfResource(
  registry: ResourceRegistry,
  builtIn: Definitions,
  resource: { readonly group: string; readonly version: string; readonly resource: string },
): ResolvedKind | undefined {
  const type = registry.find({ group: resource.group, version: resource.version }, resource.resource);
  const version = type?.versions.find((served) => served.version === resource.version);
  if (type === undefined || version === undefined) return undefined;
  const definitions = definitionsOfType(builtIn, type);
  if (definitions === undefined || definitions[version.definition] === undefined) return undefined;
  return {
    gvk: { group: type.group, version: resource.version, kind: type.kind },
    schema: convertDefinition(definitions, version.definition),
  };
}

/** The kind's schema by group, version and kind (a policy's paramKind, the Namespace). */
export function schemaOfKind(
  registry: ResourceRegistry,
  builtIn: Definitions,
  gvk: GroupVersionKind,
): CelSchema | undefined {
  const type = registry.findKind(gvk);
  const version = type?.versions.find((served) => served.version === gvk.version);
  if (type === undefined || version === undefined) return undefined;
  const definitions = definitionsOfType(builtIn, type);
  return definitions?.[version.definition] === undefined
    ? undefined
    : convertDefinition(definitions, version.definition);
}
