/**
 * The rules a CRD's `openAPIV3Schema` must satisfy when the CRD is written, with the
 * reference's messages: what OpenAPI v3 a CRD may use at all (no $ref, no patternProperties,
 * ...), the list and map markers, and the structural-schema invariants (every node typed,
 * objects at the root, no types or defaults inside allOf/anyOf/oneOf/not, metadata restricted
 * to name and generateName, embedded resources as objects, RE2 patterns, the int-or-string
 * anyOf forms); with status as a subresource, only the root fields that survive status being
 * validated apart; no defaults in a resource's metadata, kind or apiVersion.
 *
 * Defaults must validate against their node and hold nothing pruning would remove; a default
 * of the whole resource names its apiVersion and kind.
 *
 * Not checked yet: that value validations only name fields the structure specifies
 * (structural completeness).
 */
import type { FieldError } from '../registry/types';
import { FieldPath, forbidden, GoValue, invalid, notSupported, required } from '../status/field-errors';
import { compileRe2 } from '../regex/re2';
import { copyJson, goMarshal, isObject } from '../json/value';
import type { JSONSchemaProps, ValidationRule } from './crd-types';
import { pruneValueBySchema } from './schema-pruning';
import { embeddedResourceErrors, validateValueBySchema } from './schema-validation';
import { hasValidationRules, validateDefaultByRules } from './validation-rules';

const OPENAPI_V3_TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const META_FIELDS = new Set(['metadata', 'kind', 'apiVersion']);

type Level = 'root' | 'item' | 'field';

/** Where a node sits, as the OpenAPI rules care: inside a resource's metadata, and why defaults are refused there. */
interface OpenAPIContext {
  readonly insideResourceMeta: boolean;
  /** Set: defaults are refused here, for this reason (`in top-level metadata`, ...). */
  readonly defaultsForbidden?: string;
}

/** The OpenAPI v3 subset a CRD may use (the reference's specStandardValidatorV3 and its callers). */
function openAPIRules(
  schema: JSONSchemaProps,
  path: FieldPath,
  { insideResourceMeta, defaultsForbidden }: OpenAPIContext,
  errors: FieldError[],
): void {
  if (
    schema.type !== undefined &&
    schema.type !== '' &&
    schema.type !== 'null' &&
    !OPENAPI_V3_TYPES.includes(schema.type)
  ) {
    errors.push(notSupported(path.child('type'), schema.type, OPENAPI_V3_TYPES));
  }
  // Pruning a value of a default there could not be told from the server's own metadata.
  if (schema.default !== undefined && defaultsForbidden !== undefined)
    errors.push(forbidden(path.child('default'), `must not be set ${defaultsForbidden}`));
  if (schema.id !== undefined && schema.id !== '') errors.push(forbidden(path.child('id'), 'id is not supported'));
  if (schema.additionalItems !== undefined)
    errors.push(forbidden(path.child('additionalItems'), 'additionalItems is not supported'));
  if (schema.patternProperties !== undefined && Object.keys(schema.patternProperties).length > 0) {
    errors.push(forbidden(path.child('patternProperties'), 'patternProperties is not supported'));
  }
  if (schema.definitions !== undefined && Object.keys(schema.definitions).length > 0) {
    errors.push(forbidden(path.child('definitions'), 'definitions is not supported'));
  }
  if (schema.dependencies !== undefined)
    errors.push(forbidden(path.child('dependencies'), 'dependencies is not supported'));
  if (schema.$ref !== undefined) errors.push(forbidden(path.child('$ref'), '$ref is not supported'));
  if (schema.type === 'null')
    errors.push(forbidden(path.child('type'), 'type cannot be set to null, use nullable as an alternative'));
  if (Array.isArray(schema.items))
    errors.push(forbidden(path.child('items'), 'items must be a schema object and not an array'));
  if (insideResourceMeta && schema['x-kubernetes-embedded-resource'] === true) {
    errors.push(forbidden(path.child('x-kubernetes-embedded-resource'), 'must not be used inside of resource meta'));
  }
  if (schema.uniqueItems === true) {
    errors.push(
      forbidden(
        path.child('uniqueItems'),
        'uniqueItems cannot be set to true since the runtime complexity becomes quadratic',
      ),
    );
  }
  if (
    schema.additionalProperties !== undefined &&
    schema.properties !== undefined &&
    Object.keys(schema.properties).length > 0
  ) {
    if (schema.additionalProperties !== true) {
      errors.push(
        forbidden(path.child('additionalProperties'), 'additionalProperties and properties are mutual exclusive'),
      );
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
    if (mapType !== 'atomic' && mapType !== 'granular')
      errors.push(notSupported(path.child('x-kubernetes-map-type'), mapType, ['atomic', 'granular']));
  }
  const listType = schema['x-kubernetes-list-type'];
  const items = Array.isArray(schema.items) ? undefined : schema.items;
  if (listType !== undefined) {
    errors.push(...typeMustBe(schema, path, 'array', 'must be array if x-kubernetes-list-type is specified'));
    if (listType !== 'atomic' && listType !== 'set' && listType !== 'map') {
      errors.push(notSupported(path.child('x-kubernetes-list-type'), listType, ['atomic', 'set', 'map']));
    }
    if (listType === 'set' && items?.type === 'object' && items['x-kubernetes-map-type'] !== 'atomic') {
      errors.push(
        invalid(
          path.child('items', 'x-kubernetes-map-type'),
          // The reference shows the item's list type here, not its map type: nil for an object.
          items['x-kubernetes-list-type'] ?? null,
          'must be atomic as item of a list with x-kubernetes-list-type=set',
        ),
      );
    }
    if (listType === 'set' && items?.type === 'array' && (items['x-kubernetes-list-type'] ?? 'atomic') !== 'atomic') {
      errors.push(
        invalid(
          path.child('items', 'x-kubernetes-list-type'),
          items['x-kubernetes-list-type'],
          'must be atomic as item of a list with x-kubernetes-list-type=set',
        ),
      );
    }
    if ((listType === 'set' || listType === 'map') && items?.nullable === true) {
      errors.push(
        forbidden(path.child('items', 'nullable'), `cannot be nullable when x-kubernetes-list-type is ${listType}`),
      );
    }
  }
  const keys = schema['x-kubernetes-list-map-keys'] ?? [];
  if (keys.length > 0) {
    if (listType === undefined)
      errors.push(
        required(path.child('x-kubernetes-list-type'), 'must be map if x-kubernetes-list-map-keys is non-empty'),
      );
    else if (listType !== 'map')
      errors.push(
        invalid(
          path.child('x-kubernetes-list-type'),
          listType,
          'must be map if x-kubernetes-list-map-keys is non-empty',
        ),
      );
  }
  if (listType !== 'map') return;
  if (keys.length === 0)
    errors.push(
      required(path.child('x-kubernetes-list-map-keys'), 'must not be empty if x-kubernetes-list-type is map'),
    );
  if (schema.items === undefined)
    errors.push(required(path.child('items'), 'must have a schema if x-kubernetes-list-type is map'));
  if (items === undefined) return;
  if (items.type !== 'object') {
    errors.push(
      invalid(
        path.child('items', 'type'),
        items.type ?? '',
        "must be object if parent array's x-kubernetes-list-type is map",
      ),
    );
    return;
  }
  const seen = new Set<string>();
  for (const key of keys) {
    const property = items.properties?.[key];
    if (property === undefined) {
      errors.push(
        invalid(path.child('x-kubernetes-list-map-keys'), keys, 'entries must all be names of item properties'),
      );
    } else {
      if (property.type === 'array' || property.type === 'object') {
        errors.push(
          invalid(
            path.child('items', 'properties').key(key).child('type'),
            items.type,
            "must be a scalar type if parent array's x-kubernetes-list-type is map",
          ),
        );
      }
      if (property.default === undefined && !(items.required ?? []).includes(key)) {
        errors.push(
          required(
            path.child('items', 'properties').key(key).child('default'),
            'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property',
          ),
        );
      }
      if (property.nullable === true) {
        errors.push(
          forbidden(
            path.child('items', 'properties').key(key).child('nullable'),
            'this property is in x-kubernetes-list-map-keys, so it cannot be nullable',
          ),
        );
      }
    }
    if (seen.has(key))
      errors.push(invalid(path.child('x-kubernetes-list-map-keys'), keys, 'must not contain duplicate entries'));
    seen.add(key);
  }
}

/** The structural invariants of one node (the reference's validateStructuralInvariants). */
function structuralRules(schema: JSONSchemaProps, level: Level, path: FieldPath, errors: FieldError[]): void {
  const embedded = schema['x-kubernetes-embedded-resource'] === true;
  const intOrString = schema['x-kubernetes-int-or-string'] === true;
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
  if (schema.type === 'array' && schema.items === undefined)
    errors.push(required(path.child('items'), 'must be specified'));
  if (schema.additionalProperties !== undefined && schema.additionalProperties !== false && level === 'root') {
    errors.push(forbidden(path.child('additionalProperties'), 'must not be used at the root'));
  }
  if (intOrString && preserve)
    errors.push(
      invalid(
        path.child('x-kubernetes-preserve-unknown-fields'),
        true,
        'must be false if x-kubernetes-int-or-string is true',
      ),
    );
  if (intOrString && embedded)
    errors.push(
      invalid(
        path.child('x-kubernetes-embedded-resource'),
        true,
        'must be false if x-kubernetes-int-or-string is true',
      ),
    );
  // The two int-or-string forms: anyOf [integer, string], or that as allOf's first anyOf.
  if (!isIntOrStringAnyOf(schema.anyOf))
    schema.anyOf?.forEach((part, index) => nestedRules(part, path.child('anyOf').index(index), errors));
  const allOfFirstIntOrString = isIntOrStringAnyOf(schema.allOf?.[0]?.anyOf);
  schema.allOf?.forEach((part, index) =>
    nestedRules(part, path.child('allOf').index(index), errors, index === 0 && allOfFirstIntOrString),
  );
  schema.oneOf?.forEach((part, index) => nestedRules(part, path.child('oneOf').index(index), errors));
  if (schema.not !== undefined) nestedRules(schema.not, path.child('not'), errors);
  if (schema.pattern !== undefined) patternRule(schema.pattern, path, errors);
  if (embedded && schema.type !== 'object')
    errors.push(...typeMustBe(schema, path, 'object', 'must be object if x-kubernetes-embedded-resource is true'));
  else if ((schema.type === undefined || schema.type === '') && !intOrString && !preserve) {
    const detail = {
      root: 'must not be empty at the root',
      item: 'must not be empty for specified array items',
      field: 'must not be empty for specified object fields',
    }[level];
    errors.push(required(path.child('type'), detail));
  }
  if (embedded && schema.additionalProperties !== undefined) {
    errors.push(
      forbidden(path.child('additionalProperties'), 'must not be used if x-kubernetes-embedded-resource is set'),
    );
  }
  if (level === 'root' && schema.type && schema.type !== 'object')
    errors.push(invalid(path.child('type'), schema.type, 'must be object at the root'));
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
    if (checkMetadata && metadata.type !== 'object')
      errors.push(invalid(metadataPath.child('type'), metadata.type ?? '', 'must be object'));
    if (level === 'root' && !onlyNameAndGenerateName(metadata)) {
      errors.push(
        forbidden(
          metadataPath,
          'must not specify anything other than name and generateName, but metadata is implicitly specified',
        ),
      );
    }
  }
  if (embedded && !preserve && Object.keys(schema.properties ?? {}).length === 0) {
    errors.push(
      required(
        path.child('properties'),
        'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields',
      ),
    );
  }
}

/** Root metadata may restrict name and generateName only (its type and default aside). */
function onlyNameAndGenerateName(metadata: JSONSchemaProps): boolean {
  const { type: _type, default: _default, description: _description, properties, ...rest } = metadata;
  const names = Object.keys(properties ?? {});
  return Object.keys(rest).length === 0 && names.every((name) => name === 'name' || name === 'generateName');
}

/** Patterns are RE2's (Go's regexp), with its error texts: no lookaround, no backreferences. */
function patternRule(pattern: string, path: FieldPath, errors: FieldError[]): void {
  try {
    compileRe2(pattern);
  } catch (error) {
    errors.push(
      invalid(
        path.child('pattern'),
        pattern,
        `must be a valid regular expression, but isn't: ${(error as Error).message}`,
      ),
    );
  }
}

/** `anyOf: [{type: integer}, {type: string}]`, the one place value validations may name types (int-or-string). */
function isIntOrStringAnyOf(parts: readonly JSONSchemaProps[] | undefined): boolean {
  const only = (part: JSONSchemaProps, type: string) => Object.keys(part).length === 1 && part.type === type;
  return parts?.length === 2 && only(parts[0], 'integer') && only(parts[1], 'string');
}

/** Inside allOf/anyOf/oneOf/not only value validations may appear (`skipAnyOf`: its anyOf is the int-or-string form). */
function nestedRules(schema: JSONSchemaProps, path: FieldPath, errors: FieldError[], skipAnyOf = false): void {
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
    if (value === undefined || value === false || value === '' || (Array.isArray(value) && value.length === 0))
      continue;
    errors.push(forbidden(path.child(key), detail));
  }
  if (schema.properties?.metadata !== undefined)
    errors.push(forbidden(path.child('properties').key('metadata'), 'must not be specified in a nested context'));
  for (const [name, property] of Object.entries(schema.properties ?? {}))
    nestedRules(property, path.child('properties').key(name), errors);
  if (schema.items !== undefined && !Array.isArray(schema.items))
    nestedRules(schema.items, path.child('items'), errors);
  if (!skipAnyOf) schema.anyOf?.forEach((part, index) => nestedRules(part, path.child('anyOf').index(index), errors));
  schema.allOf?.forEach((part, index) => nestedRules(part, path.child('allOf').index(index), errors));
  schema.oneOf?.forEach((part, index) => nestedRules(part, path.child('oneOf').index(index), errors));
  if (schema.not !== undefined) nestedRules(schema.not, path.child('not'), errors);
}

function walk(
  schema: JSONSchemaProps,
  level: Level,
  path: FieldPath,
  context: OpenAPIContext,
  errors: { openAPI: FieldError[]; structural: FieldError[] },
): void {
  openAPIRules(schema, path, context, errors.openAPI);
  structuralRules(schema, level, path, errors.structural);
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    const meta = (level === 'root' || schema['x-kubernetes-embedded-resource'] === true) && META_FIELDS.has(name);
    const inner: OpenAPIContext = meta
      ? {
          insideResourceMeta: true,
          defaultsForbidden: level === 'root' ? `in top-level ${name}` : context.defaultsForbidden,
        }
      : context;
    walk(property, 'field', path.child('properties').key(name), inner, errors);
  }
  if (typeof schema.additionalProperties === 'object') {
    const inner: OpenAPIContext = context.insideResourceMeta
      ? { insideResourceMeta: true, defaultsForbidden: 'inside additionalProperties applying to object metadata' }
      : context;
    walk(schema.additionalProperties, 'field', path.child('additionalProperties'), inner, errors);
  }
  if (schema.items !== undefined && !Array.isArray(schema.items))
    walk(schema.items, 'item', path.child('items'), context, errors);
}

/**
 * Each `default` below `schema`: pruned already, and valid for its node (the reference's
 * ValidateDefaults), then for its rules; a default of the whole resource must name its
 * apiVersion and kind.
 */
function defaultRules(schema: JSONSchemaProps, path: FieldPath, errors: FieldError[], atRoot = false): void {
  if (schema.default !== undefined) {
    const at = path.child('default');
    if (atRoot && isObject(schema.default)) errors.push(...embeddedResourceErrors(at, schema.default));
    const pruned = copyJson(schema.default);
    if (pruneValueBySchema(pruned, schema).length > 0)
      errors.push(invalid(at, new GoValue(goMarshal(schema.default)), 'must not have unknown fields'));
    const schemaErrors = validateValueBySchema(schema.default, schema);
    for (const error of schemaErrors) {
      errors.push({ ...error, field: error.field === '' ? at.toString() : `${at.toString()}.${error.field}` });
    }
    if (schemaErrors.length === 0 && hasValidationRules(schema))
      errors.push(...validateDefaultByRules(schema.default, schema, at));
  }
  for (const [name, property] of Object.entries(schema.properties ?? {}))
    defaultRules(property, path.child('properties').key(name), errors);
  if (typeof schema.additionalProperties === 'object')
    defaultRules(schema.additionalProperties, path.child('additionalProperties'), errors);
  if (schema.items !== undefined && !Array.isArray(schema.items))
    defaultRules(schema.items, path.child('items'), errors);
}

/**
 * The fields of the reference's internal JSONSchemaProps, in its order, by JSON name: how each
 * prints when the reference shows a schema as a value (Go's JSON of the struct: Go field names,
 * every field, zero values included), and whether the root may set it when status is a
 * subresource (the rest of a root schema would be lost when status is validated on its own).
 */
const GO_SCHEMA_FIELDS: ReadonlyArray<{
  readonly json: string;
  readonly go: string;
  readonly zero: unknown;
  readonly allowedAtStatusRoot?: true;
  readonly kind?: 'schema' | 'schemas' | 'schemaMap' | 'orArray' | 'orBool' | 'dependencies' | 'docs' | 'rules';
}> = [
  { json: 'id', go: 'ID', zero: '' },
  { json: '$schema', go: 'Schema', zero: '' },
  { json: '$ref', go: 'Ref', zero: null },
  { json: 'description', go: 'Description', zero: '', allowedAtStatusRoot: true },
  { json: 'type', go: 'Type', zero: '', allowedAtStatusRoot: true },
  { json: 'nullable', go: 'Nullable', zero: false },
  { json: 'format', go: 'Format', zero: '', allowedAtStatusRoot: true },
  { json: 'title', go: 'Title', zero: '', allowedAtStatusRoot: true },
  { json: 'default', go: 'Default', zero: null },
  { json: 'maximum', go: 'Maximum', zero: null, allowedAtStatusRoot: true },
  { json: 'exclusiveMaximum', go: 'ExclusiveMaximum', zero: false, allowedAtStatusRoot: true },
  { json: 'minimum', go: 'Minimum', zero: null, allowedAtStatusRoot: true },
  { json: 'exclusiveMinimum', go: 'ExclusiveMinimum', zero: false, allowedAtStatusRoot: true },
  { json: 'maxLength', go: 'MaxLength', zero: null, allowedAtStatusRoot: true },
  { json: 'minLength', go: 'MinLength', zero: null, allowedAtStatusRoot: true },
  { json: 'pattern', go: 'Pattern', zero: '', allowedAtStatusRoot: true },
  { json: 'maxItems', go: 'MaxItems', zero: null, allowedAtStatusRoot: true },
  { json: 'minItems', go: 'MinItems', zero: null, allowedAtStatusRoot: true },
  { json: 'uniqueItems', go: 'UniqueItems', zero: false, allowedAtStatusRoot: true },
  { json: 'multipleOf', go: 'MultipleOf', zero: null, allowedAtStatusRoot: true },
  { json: 'enum', go: 'Enum', zero: null },
  { json: 'maxProperties', go: 'MaxProperties', zero: null },
  { json: 'minProperties', go: 'MinProperties', zero: null },
  { json: 'required', go: 'Required', zero: null, allowedAtStatusRoot: true },
  { json: 'items', go: 'Items', zero: null, allowedAtStatusRoot: true, kind: 'orArray' },
  { json: 'allOf', go: 'AllOf', zero: null, kind: 'schemas' },
  { json: 'oneOf', go: 'OneOf', zero: null, kind: 'schemas' },
  { json: 'anyOf', go: 'AnyOf', zero: null, kind: 'schemas' },
  { json: 'not', go: 'Not', zero: null, kind: 'schema' },
  { json: 'properties', go: 'Properties', zero: null, allowedAtStatusRoot: true, kind: 'schemaMap' },
  { json: 'additionalProperties', go: 'AdditionalProperties', zero: null, kind: 'orBool' },
  { json: 'patternProperties', go: 'PatternProperties', zero: null, kind: 'schemaMap' },
  { json: 'dependencies', go: 'Dependencies', zero: null, kind: 'dependencies' },
  { json: 'additionalItems', go: 'AdditionalItems', zero: null, kind: 'orBool' },
  { json: 'definitions', go: 'Definitions', zero: null, kind: 'schemaMap' },
  { json: 'externalDocs', go: 'ExternalDocs', zero: null, allowedAtStatusRoot: true, kind: 'docs' },
  { json: 'example', go: 'Example', zero: null, allowedAtStatusRoot: true },
  { json: 'x-kubernetes-preserve-unknown-fields', go: 'XPreserveUnknownFields', zero: null, allowedAtStatusRoot: true },
  { json: 'x-kubernetes-embedded-resource', go: 'XEmbeddedResource', zero: false },
  { json: 'x-kubernetes-int-or-string', go: 'XIntOrString', zero: false },
  { json: 'x-kubernetes-list-map-keys', go: 'XListMapKeys', zero: null },
  { json: 'x-kubernetes-list-type', go: 'XListType', zero: null },
  { json: 'x-kubernetes-map-type', go: 'XMapType', zero: null },
  { json: 'x-kubernetes-validations', go: 'XValidations', zero: null, allowedAtStatusRoot: true, kind: 'rules' },
];

/** A schema as the reference prints its internal JSONSchemaProps (see GO_SCHEMA_FIELDS). */
function goSchemaJSON(schema: JSONSchemaProps): string {
  const record = schema as unknown as Record<string, unknown>;
  const schemaMap = (map: Record<string, JSONSchemaProps>) =>
    `{${Object.keys(map)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${goSchemaJSON(map[key])}`)
      .join(',')}}`;
  const fields = GO_SCHEMA_FIELDS.map(({ json, go, zero, kind }) => {
    const value = record[json];
    if (value === undefined) return `"${go}":${JSON.stringify(zero)}`;
    let text: string;
    switch (kind) {
      case 'schema':
        text = goSchemaJSON(value as JSONSchemaProps);
        break;
      case 'schemas':
        text = `[${(value as JSONSchemaProps[]).map(goSchemaJSON).join(',')}]`;
        break;
      case 'schemaMap':
        text = schemaMap(value as Record<string, JSONSchemaProps>);
        break;
      case 'orArray':
        text = Array.isArray(value)
          ? `{"Schema":null,"JSONSchemas":[${value.map(goSchemaJSON).join(',')}]}`
          : `{"Schema":${goSchemaJSON(value as JSONSchemaProps)},"JSONSchemas":null}`;
        break;
      case 'orBool':
        text =
          typeof value === 'boolean'
            ? `{"Allows":${value},"Schema":null}`
            : `{"Allows":true,"Schema":${goSchemaJSON(value as JSONSchemaProps)}}`;
        break;
      case 'dependencies':
        text = `{${Object.keys(value as object)
          .sort()
          .map((key) => {
            const dependency = (value as Record<string, unknown>)[key];
            const inner = Array.isArray(dependency)
              ? `{"Schema":null,"Property":${goMarshal(dependency)}}`
              : `{"Schema":${goSchemaJSON(dependency as JSONSchemaProps)},"Property":null}`;
            return `${JSON.stringify(key)}:${inner}`;
          })
          .join(',')}}`;
        break;
      case 'docs': {
        const docs = value as { description?: string; url?: string };
        text = `{"Description":${JSON.stringify(docs.description ?? '')},"URL":${JSON.stringify(docs.url ?? '')}}`;
        break;
      }
      case 'rules':
        text = `[${(value as ValidationRule[]).map((rule) => `{"Rule":${JSON.stringify(rule.rule ?? '')},"Message":${JSON.stringify(rule.message ?? '')},"MessageExpression":${JSON.stringify(rule.messageExpression ?? '')},"Reason":${JSON.stringify(rule.reason ?? null)},"FieldPath":${JSON.stringify(rule.fieldPath ?? '')},"OptionalOldSelf":${JSON.stringify(rule.optionalOldSelf ?? null)}}`).join(',')}]`;
        break;
      default:
        text = goMarshal(value);
    }
    return `"${go}":${text}`;
  });
  return `{${fields.join(',')}}`;
}

const ALLOWED_AT_STATUS_ROOT = `[${GO_SCHEMA_FIELDS.filter((field) => field.allowedAtStatusRoot)
  .map((field) => field.go)
  .join(' ')}]`;

/**
 * With status as a subresource, the root may be typed object only and set only the fields that
 * survive taking `properties.status` apart (the first offending field, in the reference's field
 * order, is reported, once).
 */
function statusRootRule(schema: JSONSchemaProps, path: FieldPath): FieldError | undefined {
  const record = schema as unknown as Record<string, unknown>;
  for (const field of GO_SCHEMA_FIELDS) {
    const value = record[field.json];
    // Booleans and strings that are not pointers are unset when false or empty.
    if (value === undefined || (value === field.zero && (field.zero === false || field.zero === ''))) continue;
    if (field.json === 'type') {
      if (value !== 'object')
        return invalid(
          path.child('type'),
          value,
          'only "object" is allowed as the type at the root of the schema if the status subresource is enabled',
        );
      continue;
    }
    if (!field.allowedAtStatusRoot) {
      return invalid(
        path,
        new GoValue(goSchemaJSON(schema)),
        `only ${ALLOWED_AT_STATUS_ROOT} fields are allowed at the root of the schema if the status subresource is enabled`,
      );
    }
  }
  return undefined;
}

/**
 * Every problem of one version's schema, the structural ones sorted by their text as the
 * reference sorts them. `statusEnabled`: the status subresource is on, which limits the root.
 */
export function validateCRDSchema(schema: JSONSchemaProps, path: FieldPath, statusEnabled: boolean): FieldError[] {
  const errors: FieldError[] = [];
  const statusRoot = statusEnabled ? statusRootRule(schema, path) : undefined;
  if (statusRoot) errors.push(statusRoot);
  if (schema.nullable === true) errors.push(forbidden(path.child('nullable'), 'nullable cannot be true at the root'));
  const found = { openAPI: [] as FieldError[], structural: [] as FieldError[] };
  walk(schema, 'root', path, { insideResourceMeta: false }, found);
  // A schema the reference cannot read as a structural one is not judged as one: its reading
  // error stands in for the structural problems, shown only when nothing else is wrong.
  const unreadable = unsupportedStructuralField(schema);
  if (unreadable !== undefined) {
    const all = [...errors, ...found.openAPI];
    return all.length > 0 ? all : [invalid(path, '', unreadable)];
  }
  const text = (error: FieldError) => `${error.field}: ${error.detail}`;
  found.structural.sort((a, b) => (text(a) < text(b) ? -1 : text(a) > text(b) ? 1 : 0));
  // Defaults are only judged against a schema that is structural.
  if (found.structural.length === 0) defaultRules(schema, path, found.structural, true);
  return [...errors, ...found.structural, ...found.openAPI];
}

/**
 * The first member the reference's structural reading of a schema (NewStructural) refuses, in
 * the order it reads them: the node's own members, its value validations (not, allOf, anyOf,
 * oneOf), then its items, properties and additionalProperties.
 */
function unsupportedStructuralField(schema: JSONSchemaProps): string | undefined {
  const refused = (member: string) => `OpenAPIV3Schema '${member}' is not supported`;
  if (schema.id) return refused('id');
  if (schema.$schema) return refused('schema');
  if (schema.$ref) return refused('$ref');
  if (Object.keys(schema.patternProperties ?? {}).length > 0) return refused('patternProperties');
  if (Object.keys(schema.dependencies ?? {}).length > 0) return refused('dependencies');
  if (schema.additionalItems !== undefined && schema.additionalItems !== null) return refused('additionalItems');
  if (Object.keys(schema.definitions ?? {}).length > 0) return refused('definitions');
  const parts = [
    ...(schema.not ? [schema.not] : []),
    ...(schema.allOf ?? []),
    ...(schema.anyOf ?? []),
    ...(schema.oneOf ?? []),
  ];
  for (const part of parts) {
    const found = unsupportedStructuralField(part);
    if (found !== undefined) return found;
  }
  if (Array.isArray(schema.items) && schema.items.length > 0)
    return "OpenAPIV3Schema 'items' must be a schema, but is an array";
  const children = [
    ...(schema.items !== undefined && !Array.isArray(schema.items) ? [schema.items] : []),
    ...Object.values(schema.properties ?? {}),
    ...(typeof schema.additionalProperties === 'object' ? [schema.additionalProperties] : []),
  ];
  for (const child of children) {
    const found = unsupportedStructuralField(child);
    if (found !== undefined) return found;
  }
  return undefined;
}
