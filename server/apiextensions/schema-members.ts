/**
 * Where a structural schema says the members of a value are: an array's items, an object's
 * property or additionalProperties. Shared by validation (schema-validation.ts) and ratcheting
 * (ratcheting.ts), which walk a value and its schema side by side.
 */
import type { JSONSchemaProps } from './crd-types';

/** The item schema of a list (structural schemas have exactly one). */
export function itemsOf(schema: JSONSchemaProps): JSONSchemaProps | undefined {
  return Array.isArray(schema.items) ? schema.items[0] : schema.items;
}

/** The schema of member `key` of an object: a declared property, else the additionalProperties schema. */
export function memberSchema(schema: JSONSchemaProps, key: string): JSONSchemaProps | undefined {
  const property = schema.properties?.[key];
  if (property !== undefined) return property;
  return typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
}
