/**
 * v1 objects written as the reference's `json.MarshalIndent(x, "", " ")` writes its INTERNAL Go
 * structs, and the diff of two of them that apimachinery's diff.Diff appends to the "may not
 * change" messages. The internal types carry no json tags, so every field is written under its
 * Go name, in declaration order, zero values and nil included; their layout, and where each field
 * comes from in v1, is generated from the release's types (internal-json-fields.ts).
 */
import { isObject } from '../json/value';
import { goJSONEscaped } from '../../api/go-quote';
import { canonicalQuantity } from '../quantity/quantity';
import { compareStrings } from '../string-order';
import { goTextDiff } from './go-unified-diff';
import { INTERNAL_STRUCTS, type InternalField } from './internal-json-fields';
import { metaTime } from '../../api/objects';

type JsonObject = Record<string, unknown>;

/**
 * Where the value was read from. A stored object went through protobuf, which keeps no empty
 * list or map: they come back nil and print `null`; a request body's `[]` and `{}` stay empty
 * lists and maps.
 */
export interface InternalJsonOptions {
  readonly stored: boolean;
}

/** The fields core.PodSecurityContext takes from the v1 PodSpec (movedFrom in the generated table). */
const POD_SPEC_SECURITY_FIELDS = (INTERNAL_STRUCTS['core.PodSecurityContext'] ?? []).filter(
  (field) => field.movedFrom === 'core.PodSpec',
);

/**
 * What Convert_v1_PodSpec_To_core_PodSpec does besides copying fields of one name: the internal
 * security context is never nil and holds the host namespace fields of the v1 spec, and the
 * deprecated `serviceAccount` stands in for an empty `serviceAccountName`.
 */
function podSpecAsInternal(spec: JsonObject): JsonObject {
  const securityContext: JsonObject = isObject(spec.securityContext) ? { ...spec.securityContext } : {};
  for (const field of POD_SPEC_SECURITY_FIELDS) securityContext[field.v1Key] = spec[field.v1Key];
  const serviceAccountName = spec.serviceAccountName || spec.serviceAccount;
  return { ...spec, securityContext, serviceAccountName };
}

/**
 * v1 writes a schema's `items`, `additionalProperties` and `dependencies` members as one JSON
 * value of either form; the internal structs hold each form in a field of its own.
 */
const schemaOrArray = (v1: unknown): JsonObject => (Array.isArray(v1) ? { JSONSchemas: v1 } : { Schema: v1 });
const schemaOrBool = (v1: unknown): JsonObject =>
  typeof v1 === 'boolean' ? { Allows: v1 } : { Allows: true, Schema: v1 };
const schemaOrStringArray = (v1: unknown): JsonObject => (Array.isArray(v1) ? { Property: v1 } : { Schema: v1 });

/** The conversions of v1 values that move fields, by internal struct. */
const AS_INTERNAL: Readonly<Record<string, (v1: unknown) => JsonObject>> = {
  'core.PodSpec': (v1) => podSpecAsInternal(isObject(v1) ? v1 : {}),
  'apiextensions.JSONSchemaPropsOrArray': schemaOrArray,
  'apiextensions.JSONSchemaPropsOrBool': schemaOrBool,
  'apiextensions.JSONSchemaPropsOrStringArray': schemaOrStringArray,
};

/**
 * The v1 object that holds the fields of the internal struct `name` under their generated v1
 * keys: the v1 value itself, or what the conversion makes of it where fields move.
 */
export function internalSource(name: string, value: unknown): JsonObject {
  const convert = AS_INTERNAL[name];
  if (convert !== undefined) return convert(value);
  return isObject(value) ? value : {};
}

/** The value at a generated v1 key: dotted where the internal struct flattens what v1 nests. */
export function v1Value(source: JsonObject, v1Key: string): unknown {
  if (!v1Key.includes('.')) return source[v1Key];
  return v1Key.split('.').reduce<unknown>((value, key) => (isObject(value) ? value[key] : undefined), source);
}

/** Text with nothing JSON or Go escapes, the common case, needs only its quotes. */
const PLAIN_TEXT = /^[\w .,:;/=+@~-]*$/;

const goString = (text: string) => (PLAIN_TEXT.test(text) ? `"${text}"` : goJSONEscaped(JSON.stringify(text)));

/** metav1.Time's MarshalJSON: RFC 3339 in UTC to the second, `null` for the zero time. */
function goTime(value: unknown): string {
  if (typeof value !== 'string') return 'null';
  const time = new Date(value);
  if (Number.isNaN(time.getTime())) return goString(value);
  return `"${metaTime(time)}"`;
}

/**
 * Any JSON value: as MarshalIndent re-indents the bytes a MarshalJSON gave it (metav1.FieldsV1
 * gives its raw JSON), objects keeping their keys in the order they came; or, `sorted`, as it
 * writes the maps of an interface{} json.Unmarshal filled (apiextensions.JSON).
 */
function rawJson(value: unknown, indent: string, sorted = false): string {
  const inner = `${indent} `;
  if (Array.isArray(value))
    return value.length === 0
      ? '[]'
      : `[\n${value.map((item) => `${inner}${rawJson(item, inner, sorted)}`).join(',\n')}\n${indent}]`;
  if (isObject(value)) {
    const keys = Object.keys(value).filter((key) => value[key] !== undefined);
    if (sorted) keys.sort(compareStrings);
    if (keys.length === 0) return '{}';
    return `{\n${keys.map((key) => `${inner}${goString(key)}: ${rawJson(value[key], inner, sorted)}`).join(',\n')}\n${indent}}`;
  }
  return value === undefined ? 'null' : goJSONEscaped(JSON.stringify(value));
}

/** The types written by a MarshalJSON of their own that are Go structs, never empty to `omitempty`. */
const MARSHALED_STRUCTS = new Set(['Quantity', 'IntOrString', 'Time', 'FieldsV1', 'RawExtension']);

/**
 * encoding/json's isEmptyValue, for the `omitempty` fields of the metav1 types: structs (and the
 * structs with a MarshalJSON) are never empty.
 */
function isEmptyGoValue(type: string, value: unknown): boolean {
  const isStruct = type in INTERNAL_STRUCTS || MARSHALED_STRUCTS.has(type);
  if (value === undefined || value === null) return !isStruct;
  if (type.startsWith('[]') || type.startsWith('map[')) {
    if (Array.isArray(value)) return value.length === 0;
    return value === '' || (isObject(value) && Object.keys(value).length === 0);
  }
  return value === '' || value === false || value === 0;
}

/** A struct's fields with their keys already quoted: a pod spec writes about a thousand of them. */
interface FieldPlan {
  readonly field: InternalField;
  readonly quotedKey: string;
}

const fieldPlans = new Map<string, readonly FieldPlan[]>();

function fieldPlanOf(name: string): readonly FieldPlan[] {
  let plan = fieldPlans.get(name);
  if (plan === undefined) {
    const fields = INTERNAL_STRUCTS[name];
    if (fields === undefined) throw new Error(`internal-json-fields.ts has no struct ${name}`);
    plan = fields.map((field) => ({ field, quotedKey: goString(field.key) }));
    fieldPlans.set(name, plan);
  }
  return plan;
}

function renderStruct(name: string, value: unknown, indent: string, options: InternalJsonOptions): string {
  const plan = fieldPlanOf(name);
  const source = internalSource(name, value);
  const inner = `${indent} `;
  const members: string[] = [];
  for (const { field, quotedKey } of plan) {
    const member = v1Value(source, field.v1Key);
    if (field.omitEmpty && isEmptyGoValue(field.type, member)) continue;
    // omitzero is generated for metav1.Time only, whose zero is the absent time.
    if (field.omitZero && (member === undefined || member === null)) continue;
    members.push(`${inner}${quotedKey}: ${render(field.type, member, inner, options)}`);
  }
  return members.length === 0 ? '{}' : `{\n${members.join(',\n')}\n${indent}}`;
}

function render(type: string, value: unknown, indent: string, options: InternalJsonOptions): string {
  const inner = `${indent} `;
  if (type.startsWith('*'))
    return value === undefined || value === null ? 'null' : render(type.slice(1), value, indent, options);
  if (type === '[]byte') return typeof value === 'string' ? goString(value) : 'null';
  if (type.startsWith('[]')) {
    if (!Array.isArray(value) || (value.length === 0 && options.stored)) return 'null';
    if (value.length === 0) return '[]';
    const elem = type.slice(2);
    return `[\n${value.map((item) => `${inner}${render(elem, item, inner, options)}`).join(',\n')}\n${indent}]`;
  }
  if (type.startsWith('map[string]')) {
    if (!isObject(value)) return 'null';
    const keys = Object.keys(value)
      .filter((key) => value[key] !== undefined)
      .sort(compareStrings);
    if (keys.length === 0) return options.stored ? 'null' : '{}';
    const elem = type.slice('map[string]'.length);
    return `{\n${keys.map((key) => `${inner}${goString(key)}: ${render(elem, value[key], inner, options)}`).join(',\n')}\n${indent}}`;
  }
  switch (type) {
    case 'string':
      return typeof value === 'string' ? goString(value) : '""';
    case 'bool':
      return value === true ? 'true' : 'false';
    case 'int':
      return typeof value === 'number' ? String(value) : '0';
    // Go writes a float64 as JavaScript does: exponents from 1e21 and below 1e-6.
    case 'float':
      return typeof value === 'number' ? String(value) : '0';
    case 'JSONValue':
      return value === undefined || value === null ? 'null' : rawJson(value, indent, true);
    case 'Quantity':
      return typeof value === 'string' ? goString(canonicalQuantity(value) ?? value) : '"0"';
    case 'Time':
      return goTime(value);
    case 'FieldsV1':
    case 'RawExtension':
      return value === undefined || value === null ? 'null' : rawJson(value, indent);
    case 'IntOrString':
      return typeof value === 'number' ? String(value) : typeof value === 'string' ? goString(value) : '0';
  }
  return renderStruct(type, value, indent, options);
}

/**
 * A v1 value as MarshalIndent writes its internal form. `type` is a type of the generated table:
 * a struct's name (`core.PodSpec`), or a list, map or pointer of one (`[]core.Container`).
 */
export function internalJson(type: string, value: unknown, options: InternalJsonOptions): string {
  return render(type, value, '', options);
}

/** A v1 value as json.Marshal writes its internal form: how field errors print a Go struct. */
export function internalCompactJson(type: string, value: unknown): string {
  return goJSONEscaped(JSON.stringify(JSON.parse(internalJson(type, value, { stored: false }))));
}

/**
 * diff.Diff of the internal forms of a stored value and the one an update brings: the text the
 * reference appends to a Forbidden message.
 */
export function internalDiff(type: string, stored: unknown, updated: unknown): string {
  return goTextDiff(internalJson(type, stored, { stored: true }), internalJson(type, updated, { stored: false }));
}
