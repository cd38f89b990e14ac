/**
 * A configuration file's value decoded into its Go type, as the reference's codec decodes it
 * after it has found the kind: the first value of the wrong JSON type stops it with Go's
 * `json: cannot unmarshal ...` words, then a strict codec refuses the keys the text sets again
 * and the fields the type lacks (in the order the sorted JSON members meet them). The Go types
 * are not in the OpenAPI definitions: each configuration kind declares its shape as data in the
 * same schema form (a definition named `<package>.<Type>`, as Go names it in its messages).
 */
import { typeAgainstSchema, type Definitions, type SchemaNode } from './decode';
import { GoYamlConversionError, strictDecodingError, type GoYamlReading } from './go-yaml';

export function decodeConfigValue(
  reading: GoYamlReading,
  type: { readonly definitions: Definitions; readonly root: string; readonly strict: boolean },
): unknown {
  const typed = typeAgainstSchema(type.definitions, type.root, reading.value);
  if (typed.typeError !== undefined) throw new GoYamlConversionError(typed.typeError);
  if (type.strict) {
    const strict = strictDecodingError(reading, typed.unknownFields);
    if (strict !== undefined) throw strict;
  }
  return typed.object;
}

/** The schema forms the shapes are written in: Go's scalar types, a list, a map, a named struct. */
export const GO_STRING: SchemaNode = { type: 'string' };
export const GO_BOOL: SchemaNode = { type: 'boolean' };
export const GO_INT32: SchemaNode = { type: 'integer', format: 'int32' };
export const GO_INT64: SchemaNode = { type: 'integer', format: 'int64' };
/** Any JSON (runtime.Unknown, RawExtension): whatever the text holds, its reader judges it. */
export const GO_RAW: SchemaNode = { 'x-kubernetes-preserve-unknown-fields': true };

export function goNamed(definition: string): SchemaNode {
  return { $ref: `#/definitions/${definition}` };
}

export function goSlice(items: SchemaNode): SchemaNode {
  return { type: 'array', items };
}

export function goMap(values: SchemaNode): SchemaNode {
  return { type: 'object', additionalProperties: values };
}

export function goStruct(fields: Readonly<Record<string, SchemaNode>>): SchemaNode {
  return { type: 'object', properties: fields };
}

/** The fields every kind's type has (metav1.TypeMeta, inlined). */
export const TYPE_META_FIELDS: Readonly<Record<string, SchemaNode>> = { apiVersion: GO_STRING, kind: GO_STRING };
