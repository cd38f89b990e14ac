/**
 * Defaulting of a custom resource by its schema's `default`s, as the reference does on every
 * request body and on every read from storage: a missing member, or a null one its schema does
 * not allow, takes a copy of the default; then the walk goes on below, so defaults inside
 * defaults apply too. Nulls that are not allowed and have no default are removed first.
 */
import { copyJson, isObject } from '../json/value';
import type { JSONSchemaProps } from './crd-types';
import { itemsOf, memberSchema } from './schema-validation';

function isDisallowedNull(value: unknown, schema: JSONSchemaProps | undefined): boolean {
  return value === null && schema !== undefined && schema.nullable !== true;
}

/** Removes nulls the schema does not allow and that no default will replace (may mutate `value`). */
function dropDisallowedNulls(value: unknown, schema: JSONSchemaProps | undefined): void {
  if (Array.isArray(value)) {
    const items = schema === undefined ? undefined : itemsOf(schema);
    for (const item of value) dropDisallowedNulls(item, items);
    return;
  }
  if (!isObject(value)) return;
  for (const key of Object.keys(value)) {
    const member = schema === undefined ? undefined : memberSchema(schema, key);
    if (isDisallowedNull(value[key], member) && member?.default === undefined) delete value[key];
    else dropDisallowedNulls(value[key], member);
  }
}

function fillDefaults(value: unknown, schema: JSONSchemaProps | undefined): void {
  if (schema === undefined) return;
  if (Array.isArray(value)) {
    const items = itemsOf(schema);
    if (items === undefined) return;
    value.forEach((item, index) => {
      if (isDisallowedNull(item, items) && items.default !== undefined) value[index] = copyJson(items.default);
      fillDefaults(value[index], items);
    });
    return;
  }
  if (!isObject(value)) return;
  for (const [key, property] of Object.entries(schema.properties ?? {})) {
    if (property.default === undefined) continue;
    if (!(key in value) || isDisallowedNull(value[key], property)) value[key] = copyJson(property.default);
  }
  for (const key of Object.keys(value)) {
    const member = memberSchema(schema, key);
    if (member === undefined) continue;
    if (schema.properties?.[key] === undefined && isDisallowedNull(value[key], member) && member.default !== undefined) value[key] = copyJson(member.default);
    fillDefaults(value[key], member);
  }
}

/** Applies the schema's defaults to a whole resource, in place. */
export function applySchemaDefaults(object: Record<string, unknown>, schema: JSONSchemaProps): void {
  dropDisallowedNulls(object, schema);
  fillDefaults(object, schema);
}
