/**
 * Pruning of a custom resource by its schema, as the reference does before validation and
 * after reading from storage: members the schema does not declare are removed, except below
 * `x-kubernetes-preserve-unknown-fields` (where declared members are still pruned inside) and
 * the apiVersion/kind/metadata of the resource itself and of embedded resources. The removed
 * paths (`spec.foo`, `spec.list[0].bar`), sorted, are what `fieldValidation` reports as
 * unknown fields.
 */
import { isObject } from '../json/value';
import type { JSONSchemaProps } from './crd-types';
import { itemsOf } from './schema-members';

const META_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

function joinKey(parent: string, key: string): string {
  return parent === '' ? key : `${parent}.${key}`;
}

/** The schema of an additionalProperties member; `additionalProperties: true` has none (prunes everything below). */
function additionalSchema(schema: JSONSchemaProps): JSONSchemaProps | undefined | 'none' {
  const additional = schema.additionalProperties;
  if (additional === undefined || additional === false) return 'none';
  return additional === true ? undefined : additional;
}

function prune(value: unknown, schema: JSONSchemaProps | undefined, path: string, removed: string[]): void {
  if (schema !== undefined && schema['x-kubernetes-preserve-unknown-fields'] === true) {
    pruneDeclaredOnly(value, schema, path, removed);
    return;
  }
  if (Array.isArray(value)) {
    const items = schema === undefined ? undefined : itemsOf(schema);
    value.forEach((item, index) => prune(item, items, `${path}[${index}]`, removed));
    return;
  }
  if (!isObject(value)) return;
  for (const key of Object.keys(value)) {
    if (schema === undefined) {
      removed.push(joinKey(path, key));
      delete value[key];
      continue;
    }
    if (schema['x-kubernetes-embedded-resource'] === true && META_FIELDS.has(key)) continue;
    const property = schema.properties?.[key];
    const additional = additionalSchema(schema);
    if (property !== undefined) prune(value[key], property, joinKey(path, key), removed);
    else if (additional !== 'none') prune(value[key], additional, joinKey(path, key), removed);
    else {
      // The resource's own apiVersion/kind/metadata are never unknown.
      if (!META_FIELDS.has(key) || path !== '') removed.push(joinKey(path, key));
      delete value[key];
    }
  }
}

/** Below x-kubernetes-preserve-unknown-fields: unknown members stay, declared ones are pruned inside. */
function pruneDeclaredOnly(value: unknown, schema: JSONSchemaProps, path: string, removed: string[]): void {
  if (Array.isArray(value)) {
    const items = itemsOf(schema);
    if (items !== undefined)
      value.forEach((item, index) => pruneDeclaredOnly(item, items, `${path}[${index}]`, removed));
    return;
  }
  if (!isObject(value)) return;
  for (const key of Object.keys(value)) {
    if (schema['x-kubernetes-embedded-resource'] === true && META_FIELDS.has(key)) continue;
    const property = schema.properties?.[key];
    const additional = additionalSchema(schema);
    if (property !== undefined) prune(value[key], property, joinKey(path, key), removed);
    else if (additional !== 'none' && additional !== undefined)
      prune(value[key], additional, joinKey(path, key), removed);
  }
}

/** Prunes a value that is not a whole resource (a schema's `default`), in place; answers the removed paths. */
export function pruneValueBySchema(value: unknown, schema: JSONSchemaProps): string[] {
  const removed: string[] = [];
  prune(value, schema, '', removed);
  return removed;
}

/**
 * Removes from `object` (in place) what its schema does not declare; answers the removed paths,
 * sorted. The object is a whole resource: its apiVersion, kind and metadata stay.
 */
export function pruneBySchema(object: Record<string, unknown>, schema: JSONSchemaProps): string[] {
  const removed: string[] = [];
  prune(object, { ...schema, 'x-kubernetes-embedded-resource': true }, '', removed);
  return removed.sort();
}
