/**
 * CEL types from OpenAPI (structural) schemas, and values shaped to them.
 *
 * As the reference maps them: an object with properties is an object type whose fields are the
 * escaped property names; an object with additionalProperties is a map; integer is int, number
 * double; a string with format byte is bytes, date and date-time timestamp, duration duration;
 * int-or-string and preserve-unknown-fields are dynamic. An embedded resource always has
 * apiVersion, kind and metadata (name, generateName).
 */
import { Duration } from './engine-values';
import { escapePropertyName } from './escaping';
import { withListSemantics, type ListSemantics } from './libraries/compare';
import { fromJson, type CelValue } from './values';

/** The parts of a CustomResourceDefinition's structural schema that CEL typing reads. */
export interface CelSchema {
  readonly type?: string;
  readonly format?: string;
  readonly properties?: Readonly<Record<string, CelSchema>>;
  readonly additionalProperties?: CelSchema | boolean;
  readonly items?: CelSchema;
  readonly required?: readonly string[];
  readonly maxLength?: number;
  readonly maxItems?: number;
  readonly maxProperties?: number;
  readonly nullable?: boolean;
  readonly 'x-kubernetes-int-or-string'?: boolean;
  readonly 'x-kubernetes-preserve-unknown-fields'?: boolean;
  readonly 'x-kubernetes-embedded-resource'?: boolean;
  readonly 'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  readonly 'x-kubernetes-list-map-keys'?: readonly string[];
}

/** An object type to register with the CEL environment: its name, its fields' CEL types and its values' class. */
export interface ObjectTypeDeclaration {
  readonly name: string;
  readonly fields: Record<string, string>;
  readonly ctor: new () => SchemaObject;
}

/**
 * A value of an object schema: its set fields by CEL name. Each object schema has its own
 * subclass, registered as the constructor of the schema's CEL type, so the engine knows the
 * value's type wherever it sits (a list item, a map value), not only as a variable or a field
 * it converts on the way (an item of a list of objects was otherwise a plain map at run time).
 */
export class SchemaObject extends Map<string, CelValue> {}

const classesBySchema = new WeakMap<CelSchema, new () => SchemaObject>();

function classOf(schema: CelSchema): new () => SchemaObject {
  let ctor = classesBySchema.get(schema);
  if (ctor === undefined) {
    ctor = class extends SchemaObject {};
    classesBySchema.set(schema, ctor);
  }
  return ctor;
}

const EMBEDDED_METADATA: CelSchema = {
  type: 'object',
  properties: { name: { type: 'string' }, generateName: { type: 'string' } },
};

/** A schema with what an embedded resource always carries added. */
function effectiveProperties(schema: CelSchema): Readonly<Record<string, CelSchema>> | undefined {
  if (!schema['x-kubernetes-embedded-resource']) return schema.properties;
  return {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: EMBEDDED_METADATA,
    ...schema.properties,
  };
}

function isDynamic(schema: CelSchema): boolean {
  if (schema['x-kubernetes-int-or-string']) return true;
  if (schema.type === undefined) return true;
  return schema.type === 'object' && !!schema['x-kubernetes-preserve-unknown-fields'] && !effectiveProperties(schema);
}

// Element and value types are named `<parent>.__items__` and `<parent>.__values__`: no escaped
// property name is either (escaping turns `__` into `__underscores__`).

/** Object types declared so far, by the schema they stand for. */
export type DeclaredTypes = Map<CelSchema, string>;

/**
 * The CEL type of `schema`, declaring (into `out`) the object types it needs under names
 * starting with `typeName`. A schema already in `declared` keeps its type, so that `self` and
 * `oldSelf` of one schema have one type (and compare with `==`).
 */
export function celTypeOf(
  schema: CelSchema,
  typeName: string,
  out: ObjectTypeDeclaration[],
  declared: DeclaredTypes = new Map(),
): string {
  if (isDynamic(schema)) return 'dyn';
  switch (schema.type) {
    case 'boolean':
      return 'bool';
    case 'integer':
      return 'int';
    case 'number':
      return 'double';
    case 'string':
      switch (schema.format) {
        case 'byte':
          return 'bytes';
        case 'date':
        case 'date-time':
          return 'google.protobuf.Timestamp';
        case 'duration':
          return 'google.protobuf.Duration';
        default:
          return 'string';
      }
    case 'array':
      return `list<${schema.items ? celTypeOf(schema.items, `${typeName}.__items__`, out, declared) : 'dyn'}>`;
    case 'object': {
      const properties = effectiveProperties(schema);
      if (properties) {
        const existing = declared.get(schema);
        if (existing !== undefined) return existing;
        declared.set(schema, typeName);
        const fields: Record<string, string> = {};
        for (const [property, propertySchema] of Object.entries(properties)) {
          const field = escapePropertyName(property);
          if (field !== undefined) fields[field] = celTypeOf(propertySchema, `${typeName}.${field}`, out, declared);
        }
        out.push({ name: typeName, fields, ctor: classOf(schema) });
        return typeName;
      }
      const additional = schema.additionalProperties;
      if (typeof additional === 'object')
        return `map<string, ${celTypeOf(additional, `${typeName}.__values__`, out, declared)}>`;
      return 'map<string, dyn>';
    }
    default:
      return 'dyn';
  }
}

/** Go's duration syntax (`1h2m3.5s`), which is what a `format: duration` string holds. */
function parseDuration(text: string): Duration | undefined {
  const match = /^([+-])?((?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|ms|s|m|h))+$/.exec(text);
  if (!match) return undefined;
  const units: Record<string, number> = { ns: 1e-9, us: 1e-6, µs: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };
  let seconds = 0;
  for (const part of text.matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/g)) {
    seconds += Number(part[1]) * units[part[2]];
  }
  if (match[1] === '-') seconds = -seconds;
  const whole = Math.trunc(seconds);
  return new Duration(whole, Math.round((seconds - whole) * 1e9));
}

// Per object schema, its properties' CEL field names and schemas: values are converted far more
// often than schemas change, so the escaping is done once per schema.
const fieldsBySchema = new WeakMap<CelSchema, ReadonlyMap<string, { name: string; schema: CelSchema }>>();

function objectFields(schema: CelSchema): ReadonlyMap<string, { name: string; schema: CelSchema }> | undefined {
  let fields = fieldsBySchema.get(schema);
  if (fields === undefined) {
    const properties = effectiveProperties(schema);
    if (!properties) return undefined;
    const map = new Map<string, { name: string; schema: CelSchema }>();
    for (const [property, propertySchema] of Object.entries(properties)) {
      const name = escapePropertyName(property);
      if (name !== undefined) map.set(property, { name, schema: propertySchema });
    }
    fieldsBySchema.set(schema, map);
    fields = map;
  }
  return fields;
}

/** How a list of `schema` compares: set and map lists without regard to order. */
function listSemantics(schema: CelSchema): ListSemantics | undefined {
  switch (schema['x-kubernetes-list-type']) {
    case 'set':
      return { type: 'set' };
    case 'map': {
      const keys = (schema['x-kubernetes-list-map-keys'] ?? []).map(escapePropertyName);
      return keys.every((key) => key !== undefined) ? { type: 'map', keys: keys as string[] } : undefined;
    }
    default:
      return undefined;
  }
}

/** `value` (decoded JSON) as the CEL value of `schema`'s type. */
export function valueForSchema(schema: CelSchema, value: unknown): CelValue {
  if (value === null || value === undefined) return null;
  if (isDynamic(schema)) return fromJson(value);
  switch (schema.type) {
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value) ? BigInt(value) : fromJson(value);
    case 'number':
      return typeof value === 'number' ? value : fromJson(value);
    case 'string':
      if (typeof value !== 'string') return fromJson(value);
      switch (schema.format) {
        case 'byte':
          return new Uint8Array(Buffer.from(value, 'base64'));
        case 'date':
        case 'date-time': {
          const time = new Date(value);
          return Number.isNaN(time.getTime()) ? value : time;
        }
        case 'duration':
          return parseDuration(value) ?? value;
        default:
          return value;
      }
    case 'array': {
      if (!Array.isArray(value)) return fromJson(value);
      const list = schema.items ? value.map((item) => valueForSchema(schema.items!, item)) : value.map(fromJson);
      const semantics = listSemantics(schema);
      return semantics ? withListSemantics(list, semantics) : list;
    }
    case 'object': {
      if (typeof value !== 'object' || Array.isArray(value)) return fromJson(value);
      const fieldsOfSchema = objectFields(schema);
      if (fieldsOfSchema) {
        const fields = new (classOf(schema))();
        for (const property in value) {
          const field = fieldsOfSchema.get(property);
          if (field === undefined) continue;
          const propertyValue = (value as Record<string, unknown>)[property];
          if (propertyValue === null && !field.schema.nullable) continue;
          fields.set(field.name, valueForSchema(field.schema, propertyValue));
        }
        return fields;
      }
      const entries = Object.entries(value as Record<string, unknown>);
      const additional = schema.additionalProperties;
      return new Map(
        entries.map(([k, v]) => [k, typeof additional === 'object' ? valueForSchema(additional, v) : fromJson(v)]),
      );
    }
    default:
      return fromJson(value);
  }
}
