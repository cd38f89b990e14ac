/**
 * The rules a CRD's `openAPIV3Schema` must satisfy when the CRD is written, with the
 * reference's messages: what OpenAPI v3 a CRD may use at all (no $ref, no patternProperties,
 * ...), the list and map markers, and the structural-schema invariants (every node typed,
 * objects at the root, no types or defaults inside allOf/anyOf/oneOf/not, metadata restricted
 * to name and generateName, embedded resources as objects, valid patterns).
 *
 * Defaults must validate against their node and hold nothing pruning would remove.
 *
 * Not checked yet: that value validations only name fields the structure specifies
 * (structural completeness).
 */
import type { FieldError } from '../registry/types';
import { goSharpValue } from '../apply/go-print';
import { FieldPath, forbidden, GoValue, invalid, notSupported, required } from '../validation/field-errors';
import { copyJson } from '../json/value';
import type { JSONSchemaProps } from './crd-types';
import { pruneValueBySchema } from './schema-pruning';
import { validateValueBySchema } from './schema-validation';

const OPENAPI_V3_TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const META_FIELDS = new Set(['metadata', 'kind', 'apiVersion']);

type Level = 'root' | 'item' | 'field';

/** The OpenAPI v3 subset a CRD may use (the reference's specStandardValidatorV3 and its callers). */
function openAPIRules(schema: JSONSchemaProps, path: FieldPath, insideResourceMeta: boolean, errors: FieldError[]): void {
  if (schema.type !== undefined && schema.type !== '' && schema.type !== 'null' && !OPENAPI_V3_TYPES.includes(schema.type)) {
    errors.push(notSupported(path.child('type'), schema.type, OPENAPI_V3_TYPES));
  }
  if (schema.id !== undefined && schema.id !== '') errors.push(forbidden(path.child('id'), 'id is not supported'));
  if (schema.additionalItems !== undefined) errors.push(forbidden(path.child('additionalItems'), 'additionalItems is not supported'));
  if (schema.patternProperties !== undefined && Object.keys(schema.patternProperties).length > 0) {
    errors.push(forbidden(path.child('patternProperties'), 'patternProperties is not supported'));
  }
  if (schema.definitions !== undefined && Object.keys(schema.definitions).length > 0) {
    errors.push(forbidden(path.child('definitions'), 'definitions is not supported'));
  }
  if (schema.dependencies !== undefined) errors.push(forbidden(path.child('dependencies'), 'dependencies is not supported'));
  if (schema.$ref !== undefined) errors.push(forbidden(path.child('$ref'), '$ref is not supported'));
  if (schema.type === 'null') errors.push(forbidden(path.child('type'), 'type cannot be set to null, use nullable as an alternative'));
  if (Array.isArray(schema.items)) errors.push(forbidden(path.child('items'), 'items must be a schema object and not an array'));
  if (insideResourceMeta && schema['x-kubernetes-embedded-resource'] === true) {
    errors.push(forbidden(path.child('x-kubernetes-embedded-resource'), 'must not be used inside of resource meta'));
  }
  if (schema.uniqueItems === true) {
    errors.push(forbidden(path.child('uniqueItems'), 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));
  }
  if (schema.additionalProperties !== undefined && schema.properties !== undefined && Object.keys(schema.properties).length > 0) {
    if (schema.additionalProperties !== true) {
      errors.push(forbidden(path.child('additionalProperties'), 'additionalProperties and properties are mutual exclusive'));
    }
  }
  if (schema['x-kubernetes-preserve-unknown-fields'] === false) {
    errors.push(invalid(path.child('x-kubernetes-preserve-unknown-fields'), false, 'must be true or undefined'));
  }
  markerRules(schema, path, errors);
}

function typeMustBe(schema: JSONSchemaProps, path: FieldPath, wanted: string, detail: string): FieldError[] {
  if (schema.type === wanted) return [];
  return [schema.type ? invalid(path.child('type'), schema.type, detail) : required(path.child('type'), detail)];
}

function markerRules(schema: JSONSchemaProps, path: FieldPath, errors: FieldError[]): void {
  const mapType = schema['x-kubernetes-map-type'];
  if (mapType !== undefined) {
    errors.push(...typeMustBe(schema, path, 'object', 'must be object if x-kubernetes-map-type is specified'));
    if (mapType !== 'atomic' && mapType !== 'granular') errors.push(notSupported(path.child('x-kubernetes-map-type'), mapType, ['atomic', 'granular']));
  }
  const listType = schema['x-kubernetes-list-type'];
  const items = Array.isArray(schema.items) ? undefined : schema.items;
  if (listType !== undefined) {
    errors.push(...typeMustBe(schema, path, 'array', 'must be array if x-kubernetes-list-type is specified'));
    if (listType !== 'atomic' && listType !== 'set' && listType !== 'map') {
      errors.push(notSupported(path.child('x-kubernetes-list-type'), listType, ['atomic', 'set', 'map']));
    }
    if (listType === 'set' && items?.type === 'object' && items['x-kubernetes-map-type'] !== 'atomic') {
      errors.push(invalid(path.child('items', 'x-kubernetes-map-type'), listType, 'must be atomic as item of a list with x-kubernetes-list-type=set'));
    }
    if (listType === 'set' && items?.type === 'array' && (items['x-kubernetes-list-type'] ?? 'atomic') !== 'atomic') {
      errors.push(invalid(path.child('items', 'x-kubernetes-list-type'), items['x-kubernetes-list-type'], 'must be atomic as item of a list with x-kubernetes-list-type=set'));
    }
    if ((listType === 'set' || listType === 'map') && items?.nullable === true) {
      errors.push(forbidden(path.child('items', 'nullable'), `cannot be nullable when x-kubernetes-list-type is ${listType}`));
    }
  }
  const keys = schema['x-kubernetes-list-map-keys'] ?? [];
  if (keys.length > 0) {
    if (listType === undefined) errors.push(required(path.child('x-kubernetes-list-type'), 'must be map if x-kubernetes-list-map-keys is non-empty'));
    else if (listType !== 'map') errors.push(invalid(path.child('x-kubernetes-list-type'), listType, 'must be map if x-kubernetes-list-map-keys is non-empty'));
  }
  if (listType !== 'map') return;
  if (keys.length === 0) errors.push(required(path.child('x-kubernetes-list-map-keys'), 'must not be empty if x-kubernetes-list-type is map'));
  if (schema.items === undefined) errors.push(required(path.child('items'), 'must have a schema if x-kubernetes-list-type is map'));
  if (items === undefined) return;
  if (items.type !== 'object') {
    errors.push(invalid(path.child('items', 'type'), items.type ?? '', "must be object if parent array's x-kubernetes-list-type is map"));
    return;
  }
  const seen = new Set<string>();
  for (const key of keys) {
    const property = items.properties?.[key];
    if (property === undefined) {
      errors.push(invalid(path.child('x-kubernetes-list-map-keys'), keys, 'entries must all be names of item properties'));
    } else {
      if (property.type === 'array' || property.type === 'object') {
        errors.push(invalid(path.child('items', 'properties').key(key).child('type'), items.type, "must be a scalar type if parent array's x-kubernetes-list-type is map"));
      }
      if (property.default === undefined && !(items.required ?? []).includes(key)) {
        errors.push(required(path.child('items', 'properties').key(key).child('default'), 'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property'));
      }
      if (property.nullable === true) {
        errors.push(forbidden(path.child('items', 'properties').key(key).child('nullable'), 'this property is in x-kubernetes-list-map-keys, so it cannot be nullable'));
      }
    }
    if (seen.has(key)) errors.push(invalid(path.child('x-kubernetes-list-map-keys'), keys, 'must not contain duplicate entries'));
    seen.add(key);
  }
}

/** The structural invariants of one node (the reference's validateStructuralInvariants). */
function structuralRules(schema: JSONSchemaProps, level: Level, path: FieldPath, errors: FieldError[]): void {
  const embedded = schema['x-kubernetes-embedded-resource'] === true;
  const intOrString = schema['x-kubernetes-int-or-string'] === true;
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
  if (schema.type === 'array' && schema.items === undefined) errors.push(required(path.child('items'), 'must be specified'));
  if (schema.additionalProperties !== undefined && schema.additionalProperties !== false && level === 'root') {
    errors.push(forbidden(path.child('additionalProperties'), 'must not be used at the root'));
  }
  if (intOrString && preserve) errors.push(invalid(path.child('x-kubernetes-preserve-unknown-fields'), true, 'must be false if x-kubernetes-int-or-string is true'));
  if (intOrString && embedded) errors.push(invalid(path.child('x-kubernetes-embedded-resource'), true, 'must be false if x-kubernetes-int-or-string is true'));
  for (const [name, parts] of [['allOf', schema.allOf], ['anyOf', schema.anyOf], ['oneOf', schema.oneOf]] as const) {
    parts?.forEach((part, index) => nestedRules(part, path.child(name).index(index), errors));
  }
  if (schema.not !== undefined) nestedRules(schema.not, path.child('not'), errors);
  if (schema.pattern !== undefined) patternRule(schema.pattern, path, errors);
  if (embedded && schema.type !== 'object') errors.push(...typeMustBe(schema, path, 'object', 'must be object if x-kubernetes-embedded-resource is true'));
  else if ((schema.type === undefined || schema.type === '') && !intOrString && !preserve) {
    const detail = { root: 'must not be empty at the root', item: 'must not be empty for specified array items', field: 'must not be empty for specified object fields' }[level];
    errors.push(required(path.child('type'), detail));
  }
  if (embedded && schema.additionalProperties !== undefined) {
    errors.push(forbidden(path.child('additionalProperties'), 'must not be used if x-kubernetes-embedded-resource is set'));
  }
  if (level === 'root' && schema.type && schema.type !== 'object') errors.push(invalid(path.child('type'), schema.type, 'must be object at the root'));
  const checkMetadata = level === 'root' || embedded;
  for (const field of ['kind', 'apiVersion'] as const) {
    const property = schema.properties?.[field];
    if (property !== undefined && checkMetadata && property.type !== 'string') {
      errors.push(invalid(path.child('properties').key(field).child('type'), property.type ?? '', 'must be string'));
    }
  }
  const metadata = schema.properties?.metadata;
  if (metadata !== undefined) {
    const metadataPath = path.child('properties').key('metadata');
    if (checkMetadata && metadata.type !== 'object') errors.push(invalid(metadataPath.child('type'), metadata.type ?? '', 'must be object'));
    if (level === 'root' && !onlyNameAndGenerateName(metadata)) {
      errors.push(forbidden(metadataPath, 'must not specify anything other than name and generateName, but metadata is implicitly specified'));
    }
  }
  if (embedded && !preserve && Object.keys(schema.properties ?? {}).length === 0) {
    errors.push(required(path.child('properties'), 'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields'));
  }
}

/** Root metadata may restrict name and generateName only (its type and default aside). */
function onlyNameAndGenerateName(metadata: JSONSchemaProps): boolean {
  const { type: _type, default: _default, description: _description, properties, ...rest } = metadata;
  const names = Object.keys(properties ?? {});
  return Object.keys(rest).length === 0 && names.every((name) => name === 'name' || name === 'generateName');
}

function patternRule(pattern: string, path: FieldPath, errors: FieldError[]): void {
  try {
    new RegExp(pattern, 'u');
  } catch (error) {
    errors.push(invalid(path.child('pattern'), pattern, `must be a valid regular expression, but isn't: ${(error as Error).message}`));
  }
}

/** Inside allOf/anyOf/oneOf/not only value validations may appear. */
function nestedRules(schema: JSONSchemaProps, path: FieldPath, errors: FieldError[]): void {
  const forbiddenHere: ReadonlyArray<[keyof JSONSchemaProps, string]> = [
    ['type', 'must be empty to be structural'],
    ['additionalProperties', 'must be undefined to be structural'],
    ['default', 'must be undefined to be structural'],
    ['title', 'must be empty to be structural'],
    ['description', 'must be empty to be structural'],
    ['nullable', 'must be false to be structural'],
    ['x-kubernetes-preserve-unknown-fields', 'must be false to be structural'],
    ['x-kubernetes-embedded-resource', 'must be false to be structural'],
    ['x-kubernetes-int-or-string', 'must be false to be structural'],
    ['x-kubernetes-list-map-keys', 'must be empty to be structural'],
    ['x-kubernetes-list-type', 'must be undefined to be structural'],
    ['x-kubernetes-map-type', 'must be undefined to be structural'],
    ['x-kubernetes-validations', 'must be empty to be structural'],
  ];
  for (const [key, detail] of forbiddenHere) {
    const value = schema[key];
    if (value === undefined || value === false || value === '' || (Array.isArray(value) && value.length === 0)) continue;
    errors.push(forbidden(path.child(key), detail));
  }
  if (schema.properties?.metadata !== undefined) errors.push(forbidden(path.child('properties').key('metadata'), 'must not be specified in a nested context'));
  for (const [name, property] of Object.entries(schema.properties ?? {})) nestedRules(property, path.child('properties').key(name), errors);
  if (schema.items !== undefined && !Array.isArray(schema.items)) nestedRules(schema.items, path.child('items'), errors);
  for (const [name, parts] of [['allOf', schema.allOf], ['anyOf', schema.anyOf], ['oneOf', schema.oneOf]] as const) {
    parts?.forEach((part, index) => nestedRules(part, path.child(name).index(index), errors));
  }
  if (schema.not !== undefined) nestedRules(schema.not, path.child('not'), errors);
}

function walk(schema: JSONSchemaProps, level: Level, path: FieldPath, insideResourceMeta: boolean, errors: { openAPI: FieldError[]; structural: FieldError[] }): void {
  openAPIRules(schema, path, insideResourceMeta, errors.openAPI);
  structuralRules(schema, level, path, errors.structural);
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const meta = (level === 'root' || schema['x-kubernetes-embedded-resource'] === true) && META_FIELDS.has(name);
    walk(property, 'field', path.child('properties').key(name), insideResourceMeta || meta, errors);
  }
  if (typeof schema.additionalProperties === 'object') walk(schema.additionalProperties, 'field', path.child('additionalProperties'), insideResourceMeta, errors);
  if (schema.items !== undefined && !Array.isArray(schema.items)) walk(schema.items, 'item', path.child('items'), insideResourceMeta, errors);
}

/** Each `default` below `schema`: pruned already, and valid for its node (the reference's ValidateDefaults). */
function defaultRules(schema: JSONSchemaProps, path: FieldPath, errors: FieldError[]): void {
  if (schema.default !== undefined) {
    const at = path.child('default');
    const pruned = copyJson(schema.default);
    if (pruneValueBySchema(pruned, schema).length > 0) errors.push(invalid(at, new GoValue(goSharpValue(schema.default)), 'must not have unknown fields'));
    for (const error of validateValueBySchema(schema.default, schema)) {
      errors.push({ ...error, field: error.field === '' ? at.toString() : `${at.toString()}.${error.field}` });
    }
  }
  for (const [name, property] of Object.entries(schema.properties ?? {})) defaultRules(property, path.child('properties').key(name), errors);
  if (typeof schema.additionalProperties === 'object') defaultRules(schema.additionalProperties, path.child('additionalProperties'), errors);
  if (schema.items !== undefined && !Array.isArray(schema.items)) defaultRules(schema.items, path.child('items'), errors);
}

/**
 * Every problem of one version's schema, the structural ones sorted by their text as the
 * reference sorts them. `statusEnabled`: the status subresource is on, which limits the root.
 */
export function validateCRDSchema(schema: JSONSchemaProps, path: FieldPath, statusEnabled: boolean): FieldError[] {
  const errors: FieldError[] = [];
  if (statusEnabled && schema.type !== undefined && schema.type !== 'object') {
    errors.push(invalid(path.child('type'), schema.type, 'only "object" is allowed as the type at the root of the schema if the status subresource is enabled'));
  }
  if (schema.nullable === true) errors.push(forbidden(path.child('nullable'), 'nullable cannot be true at the root'));
  const found = { openAPI: [] as FieldError[], structural: [] as FieldError[] };
  walk(schema, 'root', path, false, found);
  const text = (error: FieldError) => `${error.field}: ${error.detail}`;
  found.structural.sort((a, b) => (text(a) < text(b) ? -1 : text(a) > text(b) ? 1 : 0));
  // Defaults are only judged against a schema that is structural.
  if (found.structural.length === 0) defaultRules(schema, path, found.structural);
  return [...errors, ...found.structural, ...found.openAPI];
}
