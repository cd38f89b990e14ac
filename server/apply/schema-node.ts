/**
 * A position in the OpenAPI-style definitions while walking an object, as strategic merge
 * patch and server-side apply read them. A property that is a `$ref` carries its own markers
 * (`x-kubernetes-patch-strategy`, `x-kubernetes-list-type`, `default`, ...) next to the `$ref`,
 * and the referenced definition carries the type's markers (`x-kubernetes-map-type: atomic` on
 * LabelSelector); both are kept, since either may hold what a walk needs.
 *
 * No node (undefined) means "no schema": maps are granular, lists are atomic, as the
 * reference treats unstructured content.
 */
import { resolveSchema, type Definitions, type SchemaNode } from '../validation/decode';

export interface TypedNode {
  readonly definitions: Definitions;
  /** The node as the parent declares it (property, item or map value), before `$ref`. */
  readonly declared: SchemaNode;
  /** The node with `$ref` followed. */
  readonly node: SchemaNode;
  /** The definition the node is (`io.k8s.api.core.v1.PodSpec`), when it is one: Go messages name its type. */
  readonly definition?: string;
}

export type ListType = 'atomic' | 'set' | 'map';

function typed(definitions: Definitions, declared: SchemaNode): TypedNode {
  const { node, definition } = resolveSchema(definitions, declared);
  return { definitions, declared, node, definition };
}

/** The schema of a definition (`io.k8s.api.apps.v1.Deployment`), if the definitions hold it. */
export function rootSchemaNode(
  definitions: Definitions | undefined,
  definition: string | undefined,
): TypedNode | undefined {
  if (definitions === undefined || definition === undefined) return undefined;
  const node = definitions[definition];
  return node === undefined ? undefined : { definitions, declared: node, node, definition };
}

/** Whether a node keeps content it does not describe as it is (no further typing below it). */
function isUntyped(schema: TypedNode): boolean {
  const { node } = schema;
  return (
    node['x-kubernetes-preserve-unknown-fields'] === true && node.properties === undefined && node.items === undefined
  );
}

/** The schema of a map's member `key`: a declared property, else the map's value schema. */
export function fieldNode(parent: TypedNode | undefined, key: string): TypedNode | undefined {
  if (parent === undefined || isUntyped(parent)) return undefined;
  const property = parent.node.properties?.[key];
  if (property !== undefined) return typed(parent.definitions, property);
  const values = parent.node.additionalProperties;
  return typeof values === 'object' ? typed(parent.definitions, values) : undefined;
}

/** True when `key` is a declared property (a struct field), not a member of a free-form map. */
export function isDeclaredField(parent: TypedNode | undefined, key: string): boolean {
  return parent?.node.properties?.[key] !== undefined;
}

/** Whether the reference's Go type holds the member by pointer (`*int64`, `*PodSecurityContext`). */
export function isPointerField(schema: TypedNode): boolean {
  return (schema.declared as { 'x-capstan-protobuf'?: { pointer?: boolean } })['x-capstan-protobuf']?.pointer === true;
}

export function itemNode(list: TypedNode | undefined): TypedNode | undefined {
  const items = list?.node.items;
  return list === undefined || items === undefined ? undefined : typed(list.definitions, items);
}

function marker<K extends keyof SchemaNode>(schema: TypedNode, name: K): SchemaNode[K] {
  return schema.declared[name] ?? schema.node[name];
}

/** The patch strategies of a field: `merge`, `replace`, `retainKeys` (a list or one comma-joined string). */
export function patchStrategies(schema: TypedNode | undefined): string[] {
  if (schema === undefined) return [];
  const value = marker(schema, 'x-kubernetes-patch-strategy') as string | readonly string[] | undefined;
  if (value === undefined) return [];
  const list = typeof value === 'string' ? [value] : [...value];
  return list
    .flatMap((entry) => entry.split(','))
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

export function patchMergeKey(schema: TypedNode | undefined): string | undefined {
  if (schema === undefined) return undefined;
  const value = marker(schema, 'x-kubernetes-patch-merge-key') as string | readonly string[] | undefined;
  return typeof value === 'string' ? value : value?.[0];
}

/** The list's type; unset with a merge strategy and key reads as a map keyed by the merge key. */
export function listTypeOf(schema: TypedNode | undefined): ListType {
  if (schema === undefined) return 'atomic';
  const declared = marker(schema, 'x-kubernetes-list-type');
  if (declared !== undefined) return declared;
  // A merge strategy without a merge key (finalizers) makes a set, as the reference reads it.
  if (patchStrategies(schema).includes('merge')) return patchMergeKey(schema) === undefined ? 'set' : 'map';
  return 'atomic';
}

export function listMapKeysOf(schema: TypedNode | undefined): readonly string[] {
  if (schema === undefined) return [];
  const keys = marker(schema, 'x-kubernetes-list-map-keys');
  if (keys !== undefined && keys.length > 0) return keys;
  const mergeKey = patchMergeKey(schema);
  return mergeKey === undefined ? [] : [mergeKey];
}

/** `x-kubernetes-map-type: atomic` (also what `+structType=atomic` emits). */
export function isAtomicMap(schema: TypedNode | undefined): boolean {
  return schema !== undefined && marker(schema, 'x-kubernetes-map-type') === 'atomic';
}

/** The declared default of a field (`protocol: TCP` of a container port), used for list-map keys. */
export function defaultOf(schema: TypedNode | undefined): unknown {
  if (schema === undefined) return undefined;
  const declared = schema.declared as SchemaNode & { readonly default?: unknown };
  const resolved = schema.node as SchemaNode & { readonly default?: unknown };
  return declared.default ?? resolved.default;
}
