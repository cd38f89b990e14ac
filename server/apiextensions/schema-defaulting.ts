/**
 * Defaulting of a custom resource by its schema's `default`s, as the reference does on every
 * request body and on every read from storage: a missing member, or a null one its schema does
 * not allow, takes a copy of the default; then the walk goes on below, so defaults inside
 * defaults apply too. Nulls that are not allowed and have no default are the decoder's to
 * remove first (dropDisallowedNulls).
 */
import { copyJson, isObject } from '../json/value';
import type { JSONSchemaProps } from './crd-types';
import { itemsOf, memberSchema } from './schema-members';

function isDisallowedNull(value: unknown, schema: JSONSchemaProps | undefined): boolean {
  return value === null && schema !== undefined && schema.nullable !== true;
}

/**
 * Removes nulls the schema does not allow and that no default will replace (may mutate `value`):
 * the reference's decoder does this to what it reads (a request body, a patch's result); an
 * apply's result is not decoded, so its nulls stay for validation to refuse.
 */
export function dropDisallowedNulls(value: unknown, schema: JSONSchemaProps | undefined): void {
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
    if (schema.properties?.[key] === undefined && isDisallowedNull(value[key], member) && member.default !== undefined)
      value[key] = copyJson(member.default);
    fillDefaults(value[key], member);
  }
}

// Per schema node, whether a default sits at or below it: reads of types without defaults skip the walk.
const defaultsBelow = new WeakMap<JSONSchemaProps, boolean>();

/** Whether `schema` declares a default anywhere. */
export function hasSchemaDefaults(schema: JSONSchemaProps): boolean {
  let found = defaultsBelow.get(schema);
  if (found === undefined) {
    const items = itemsOf(schema);
    found =
      schema.default !== undefined ||
      Object.values(schema.properties ?? {}).some(hasSchemaDefaults) ||
      (typeof schema.additionalProperties === 'object' && hasSchemaDefaults(schema.additionalProperties)) ||
      (items !== undefined && hasSchemaDefaults(items));
    defaultsBelow.set(schema, found);
  }
  return found;
}

/** Whether defaulting would change `value`: a default whose member is missing (or a null it replaces). */
function lacksDefaults(value: unknown, schema: JSONSchemaProps): boolean {
  if (!hasSchemaDefaults(schema)) return false;
  if (Array.isArray(value)) {
    const items = itemsOf(schema);
    return (
      items !== undefined &&
      value.some((item) => (isDisallowedNull(item, items) && items.default !== undefined) || lacksDefaults(item, items))
    );
  }
  if (!isObject(value)) return false;
  for (const [key, property] of Object.entries(schema.properties ?? {})) {
    if (property.default !== undefined && (!(key in value) || isDisallowedNull(value[key], property))) return true;
  }
  for (const key of Object.keys(value)) {
    const member = memberSchema(schema, key);
    if (member === undefined) continue;
    if (isDisallowedNull(value[key], member) && member.default !== undefined) return true;
    if (lacksDefaults(value[key], member)) return true;
  }
  return false;
}

/**
 * `object` as read from storage, defaulted as the reference defaults what it decodes: the
 * object itself when nothing is missing (stored objects are shared by readers and never
 * changed), else a defaulted copy; storage keeps what was written.
 */
export function withSchemaDefaults<T extends Record<string, unknown>>(object: T, schema: JSONSchemaProps): T {
  if (!lacksDefaults(object, schema)) return object;
  const copy = copyJson(object);
  fillDefaults(copy, schema);
  return copy;
}

/** Applies the schema's defaults to a whole resource, in place (a null a default replaces too). */
export function applySchemaDefaults(object: Record<string, unknown>, schema: JSONSchemaProps): void {
  fillDefaults(object, schema);
}
