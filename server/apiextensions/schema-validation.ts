/**
 * Validation of a custom resource by its version's OpenAPI v3 schema, with the reference's
 * texts: the value checks of its schema validator (`spec.replicas in body must be of type
 * integer: "string"`, `... should be greater than or equal to 1`), turned into field errors the
 * way the reference turns them (required → Required, enum → Unsupported value, maxLength →
 * Too long, maxItems/maxProperties → Too many, type → Invalid), then the uniqueness of
 * `x-kubernetes-list-type: set|map` lists and the apiVersion/kind of embedded resources.
 *
 * Written by hand: the JSON-schema libraries for JavaScript (ajv and kin) word their errors
 * their own way and know nothing of nullable, int-or-string or the list markers; the texts are
 * what kubectl users read.
 */
import type { RE2JS } from 're2js';
import { compileRe2 } from '../regex/re2';
import type { FieldError } from '../registry/types';
import { goFormatFloat, goInt64OfFloat, isGoInt64 } from '../../api/go-number';
import { goMarshal, isObject } from '../json/value';
import {
  deepEqual,
  duplicate,
  FieldPath,
  GoValue,
  invalid,
  notSupported,
  required,
  tooLong,
} from '../status/field-errors';
import { isDNS1035Label } from '../validation/names';
import { formatError } from './string-formats';
import type { JSONSchemaProps } from './crd-types';
import type { RatchetPosition } from './ratcheting';
import { itemsOf } from './schema-members';

/** The JSON type of a decoded value as the schema validator names it. */
function jsonType(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'boolean';
  // The decoder made an int64 of a whole number below 2^63 and a float64 of any other, and the
  // validator takes a float64 as an integer only within 2^53: anything bigger is a "number".
  if (typeof value === 'number') return isGoInt64(value) ? 'integer' : 'number';
  if (Array.isArray(value)) return 'array';
  return 'object';
}

/** Error names as the validator builds them: `spec.replicas`, `spec.ports[0].name`; the root is empty. */
function child(name: string, key: string): string {
  return name === '' ? key : `${name}.${key}`;
}

function pathOf(name: string): FieldPath {
  return FieldPath.root(name);
}

function typeInvalid(name: string, shown: unknown, message: string): FieldError {
  return { type: 'FieldValueTypeInvalid', field: name, detail: `Invalid value: ${JSON.stringify(shown)}: ${message}` };
}

function tooMany(name: string, actual: number, max: number): FieldError {
  return {
    type: 'FieldValueTooMany',
    field: name,
    detail: `Too many: ${actual}: must have at most ${max} ${max === 1 ? 'item' : 'items'}`,
  };
}

/** Length in characters (runes), as the validator counts strings. */
function runeLength(value: string): number {
  let count = 0;
  for (const _ of value) count++;
  return count;
}

/**
 * Patterns are RE2's, as the reference's (Go's regexp): what they accept, and linear time, so
 * that no CRD's pattern can make a write of its objects hang (a backtracking JavaScript RegExp
 * can take exponential time on `(a+)+$`).
 */
const compiledPatterns = new Map<string, RE2JS | null>();
function patternOf(source: string): RE2JS | null {
  let compiled = compiledPatterns.get(source);
  if (compiled === undefined) {
    try {
      compiled = compileRe2(source);
    } catch {
      compiled = null;
    }
    compiledPatterns.set(source, compiled);
  }
  return compiled;
}

function typeMatches(schema: JSONSchemaProps, actual: string): boolean {
  if (schema.type === undefined || schema.type === '') return true;
  if (schema.type === actual) return true;
  return schema.type === 'number' && actual === 'integer';
}

/** Where a node's checks descend into its value: a list's items, an object's members. */
interface Descent {
  readonly items: () => void;
  readonly members: () => void;
}

/**
 * The checks of one node on its value (value validations, also under allOf/anyOf/oneOf/not), in
 * the order of kube-openapi's SchemaValidator: the type, the junctors, then each validator that
 * applies to the value's own JSON type, whether or not it is the declared one: the string's
 * (its first failing length or pattern), its format, the number's, the list's (its items
 * first, then its bounds), the enum, the object's (its bounds, its members, then the required
 * ones). A null meets the type and the enum only. `descend` walks the items and members, where
 * the value is of the declared type.
 */
function checkNode(
  name: string,
  value: unknown,
  schema: JSONSchemaProps,
  report: (error: FieldError) => void,
  descend?: Descent,
): void {
  const actual = jsonType(value);
  if (actual === 'null') {
    if (schema.type && !schema.nullable)
      report(typeInvalid(name, 'null', `${name} in body must be of type ${schema.type}: "null"`));
    else if (schema.enum !== undefined && !schema.enum.some((member) => member === null))
      checkEnum(name, value, schema.enum, report);
    return;
  }
  let declaredType = true;
  if (schema['x-kubernetes-int-or-string'] === true && schema.type === undefined) {
    if (actual !== 'integer' && actual !== 'string') {
      report(typeInvalid(name, actual, `${name} in body must be of type integer,string: "${actual}"`));
      declaredType = false;
    }
  } else if (!typeMatches(schema, actual)) {
    report(typeInvalid(name, actual, `${name} in body must be of type ${schema.type}: "${actual}"`));
    declaredType = false;
  }
  checkJunctors(name, value, schema, report);
  if (typeof value === 'string') checkString(name, value, schema, report);
  if (typeof value === 'number') checkNumber(name, value, schema, report);
  if (Array.isArray(value)) {
    if (declaredType) descend?.items();
    if (schema.minItems !== undefined && value.length < schema.minItems) {
      report(invalid(pathOf(name), value.length, `${name} in body should have at least ${schema.minItems} items`));
    }
    if (schema.maxItems !== undefined && value.length > schema.maxItems)
      report(tooMany(name, value.length, schema.maxItems));
  }
  if (schema.enum !== undefined) checkEnum(name, value, schema.enum, report);
  if (isObject(value)) {
    const size = Object.keys(value).length;
    if (schema.minProperties !== undefined && size < schema.minProperties) {
      report(invalid(pathOf(name), size, `${name} in body should have at least ${schema.minProperties} properties`));
    }
    if (schema.maxProperties !== undefined && size > schema.maxProperties)
      report(tooMany(name, size, schema.maxProperties));
    if (declaredType) descend?.members();
    for (const key of schema.required ?? []) {
      if (!(key in value)) report(required(pathOf(child(name, key))));
    }
  }
}

/** The string's lengths and pattern, of which the validator reports the first that fails; then its format. */
function checkString(name: string, value: string, schema: JSONSchemaProps, report: (error: FieldError) => void): void {
  const length = runeLength(value);
  const pattern = schema.pattern === undefined ? null : patternOf(schema.pattern);
  if (schema.maxLength !== undefined && length > schema.maxLength) report(tooLong(pathOf(name), schema.maxLength));
  else if (schema.minLength !== undefined && length < schema.minLength)
    report(invalid(pathOf(name), value, `${name} in body should be at least ${schema.minLength} chars long`));
  else if (pattern !== null && !pattern.test(value))
    report(invalid(pathOf(name), value, `${name} in body should match '${schema.pattern}'`));
  if (
    schema.format !== undefined &&
    schema.format !== '' &&
    schema.type === 'string' &&
    formatError(schema.format, value)
  ) {
    report(typeInvalid(name, value, `${name} in body must be of type ${schema.format}: ${JSON.stringify(value)}`));
  }
}

/**
 * A number is judged in the type the decoder gave it, then printed in it: an int64 against the
 * schema's bounds and factor made int64 as Go converts them (a fraction dropped, so 1 meets a
 * minimum of 1.5 and a factor of 0.25 is 0), a float64 against them as they are. multipleOf
 * comes first, then minimum, then maximum, as the validator merges its results.
 */
function checkNumber(name: string, value: number, schema: JSONSchemaProps, report: (error: FieldError) => void): void {
  const { minimum, maximum, multipleOf } = schema;
  const asInt64 = isGoInt64(value);
  const inValueType = (bound: number) => {
    if (!asInt64) return { compared: bound, shown: goFormatFloat(bound, 64) };
    const int64 = goInt64OfFloat(bound);
    return { compared: Number(int64), shown: int64.toString(), int64 };
  };
  if (multipleOf !== undefined) {
    const factor = inValueType(multipleOf);
    if (factor.compared <= 0)
      report(
        invalid(
          pathOf(name),
          new GoValue(factor.shown),
          `factor MultipleOf declared for ${name} must be positive: ${factor.shown}`,
        ),
      );
    else if (factor.int64 !== undefined ? BigInt(value) % factor.int64 !== 0n : !isFloatMultiple(value, multipleOf))
      report(invalid(pathOf(name), value, `${name} in body should be a multiple of ${factor.shown}`));
  }
  if (minimum !== undefined) {
    const bound = inValueType(minimum);
    if (schema.exclusiveMinimum ? value <= bound.compared : value < bound.compared) {
      const words = schema.exclusiveMinimum ? 'should be greater than' : 'should be greater than or equal to';
      report(invalid(pathOf(name), value, `${name} in body ${words} ${bound.shown}`));
    }
  }
  if (maximum !== undefined) {
    const bound = inValueType(maximum);
    if (schema.exclusiveMaximum ? value >= bound.compared : value > bound.compared) {
      const words = schema.exclusiveMaximum ? 'should be less than' : 'should be less than or equal to';
      report(invalid(pathOf(name), value, `${name} in body ${words} ${bound.shown}`));
    }
  }
}

/** Relative error below which the validator takes a float64 quotient as whole. */
const WHOLE_QUOTIENT_EPSILON = 1e-9;

/**
 * The validator's float64 multipleOf: the quotient (the value times the inverse of a factor
 * below 1) taken as whole within a relative error, as go-openapi's IsFloat64AJSONInteger does.
 * It measures a negative quotient against its conversion to uint64, which lands near 2^64, so
 * only an exact whole one passes; so does no quotient between 0 and 1.
 */
function isFloatMultiple(value: number, factor: number): boolean {
  const quotient = factor < 1 ? (1 / factor) * value : value / factor;
  if (!Number.isFinite(quotient) || Math.abs(quotient) > Number.MAX_SAFE_INTEGER) return false;
  if (Number.isInteger(quotient)) return true;
  const whole = Math.trunc(quotient);
  if (quotient < 0 || whole === 0) return false;
  return (quotient - whole) / (quotient + whole) < WHOLE_QUOTIENT_EPSILON;
}

function checkEnum(
  name: string,
  value: unknown,
  members: readonly unknown[],
  report: (error: FieldError) => void,
): void {
  if (members.some((member) => deepEqual(member, value))) return;
  const supported = members.map((member) => (typeof member === 'string' ? member : goMarshal(member)));
  report(notSupported(pathOf(name), typeof value === 'string' ? value : new GoValue(goMarshal(value)), supported));
}

function nodeErrors(name: string, value: unknown, schema: JSONSchemaProps): FieldError[] {
  const errors: FieldError[] = [];
  checkNode(name, value, schema, (error) => errors.push(error));
  return errors;
}

/** allOf, anyOf, oneOf and not: value validations on the same value (structural schemas keep them type-free). */
function checkJunctors(
  name: string,
  value: unknown,
  schema: JSONSchemaProps,
  report: (error: FieldError) => void,
): void {
  for (const part of schema.allOf ?? []) nodeErrors(name, value, part).forEach(report);
  const quoted = JSON.stringify(name);
  if (
    schema.anyOf !== undefined &&
    schema.anyOf.length > 0 &&
    !schema.anyOf.some((part) => nodeErrors(name, value, part).length === 0)
  ) {
    report(invalid(FieldPath.root(), '', `${quoted} must validate at least one schema (anyOf)`));
  }
  if (schema.oneOf !== undefined && schema.oneOf.length > 0) {
    const passing = schema.oneOf.filter((part) => nodeErrors(name, value, part).length === 0).length;
    if (passing !== 1)
      report(
        invalid(
          FieldPath.root(),
          '',
          `${quoted} must validate one and only one schema (oneOf). ${passing === 0 ? 'Found none valid' : `Found ${passing} valid alternatives`}`,
        ),
      );
  }
  if (schema.not !== undefined && nodeErrors(name, value, schema.not).length === 0) {
    report(invalid(FieldPath.root(), '', `${quoted} must not validate the schema (not)`));
  }
}

/** Field paths of list-set and list-map duplicates print like `spec.ports[1]`, as the reference's field paths do. */
function listDuplicates(
  path: FieldPath,
  list: readonly unknown[],
  schema: JSONSchemaProps,
  errors: FieldError[],
): void {
  const listType = schema['x-kubernetes-list-type'];
  if (listType === 'map') {
    const index = list.findIndex((item) => item !== null && !isObject(item));
    if (index >= 0) {
      errors.push(
        invalid(
          path.index(index),
          new GoValue(goMarshal(list[index])),
          'must be an object for an array of list-type map',
        ),
      );
      return;
    }
    const keys = schema['x-kubernetes-list-map-keys'] ?? [];
    const keyOf = (item: unknown): Record<string, unknown> => {
      const key: Record<string, unknown> = {};
      for (const field of keys) if (isObject(item) && field in item) key[field] = item[field];
      return key;
    };
    reportRepeats(path, list.map(keyOf), errors);
  } else if (listType === 'set') {
    reportRepeats(path, list, errors);
  }
}

function reportRepeats(path: FieldPath, values: readonly unknown[], errors: FieldError[]): void {
  const seen = new Set<string>();
  values.forEach((value, index) => {
    const key = JSON.stringify(value, Object.keys(isObject(value) ? value : {}).sort());
    if (seen.has(key))
      errors.push(duplicate(path.index(index), typeof value === 'string' ? value : new GoValue(goMarshal(value))));
    seen.add(key);
  });
}

/** An embedded resource's (or a root default's) apiVersion and kind problems. */
export function embeddedResourceErrors(path: FieldPath, value: Record<string, unknown>): FieldError[] {
  const errors: FieldError[] = [];
  const { apiVersion, kind } = value;
  if (apiVersion === undefined) errors.push(required(path.child('apiVersion')));
  else if (typeof apiVersion !== 'string')
    errors.push(invalid(path.child('apiVersion'), new GoValue(goMarshal(apiVersion)), 'must be a string'));
  else if (apiVersion === '') errors.push(invalid(path.child('apiVersion'), apiVersion, 'must not be empty'));
  if (kind === undefined) errors.push(required(path.child('kind')));
  else if (typeof kind !== 'string')
    errors.push(invalid(path.child('kind'), new GoValue(goMarshal(kind)), 'must be a string'));
  else if (kind === '') errors.push(invalid(path.child('kind'), kind, 'must not be empty'));
  else {
    const problems = isDNS1035Label(kind.toLowerCase());
    if (problems.length > 0)
      errors.push(
        invalid(path.child('kind'), kind, `may have mixed case, but should otherwise match: ${problems.join(',')}`),
      );
  }
  return errors;
}

interface Walk {
  readonly valueErrors: FieldError[];
  readonly embeddedErrors: FieldError[];
  readonly listErrors: FieldError[];
}

function newWalk(): Walk {
  return { valueErrors: [], embeddedErrors: [], listErrors: [] };
}

/** `ratchet`: where an update stands (see ratcheting.ts); absent on create. */
function walk(
  state: Walk,
  name: string,
  path: FieldPath,
  value: unknown,
  schema: JSONSchemaProps,
  atRoot: boolean,
  ratchet?: RatchetPosition,
): void {
  // The node's own errors are dropped where ratcheting keeps an unchanged value (its members'
  // are judged at their own positions).
  const own = new Set<FieldError>();
  const report = (error: FieldError) => {
    state.valueErrors.push(error);
    own.add(error);
  };
  const items = itemsOf(schema);
  checkNode(name, value, schema, report, {
    items: () => {
      if (items !== undefined)
        (value as unknown[]).forEach((item, index) =>
          walk(state, `${name}[${index}]`, path.index(index), item, items, false, ratchet?.index(index)),
        );
    },
    members: () => {
      const record = value as Record<string, unknown>;
      if (schema['x-kubernetes-embedded-resource'] === true)
        state.embeddedErrors.push(...embeddedResourceErrors(path, record));
      for (const [key, member] of Object.entries(record)) {
        // metadata, apiVersion and kind of the root are checked by the generic object rules.
        if (atRoot && (key === 'metadata' || key === 'apiVersion' || key === 'kind')) continue;
        const property = schema.properties?.[key];
        if (property !== undefined)
          walk(state, child(name, key), path.child(key), member, property, false, ratchet?.key(key));
        else if (typeof schema.additionalProperties === 'object')
          walk(state, child(name, key), path.key(key), member, schema.additionalProperties, false, ratchet?.key(key));
      }
    },
  });
  if (own.size > 0 && ratchet?.ratchets()) {
    const kept = state.valueErrors.filter((error) => !own.has(error));
    state.valueErrors.splice(0, state.valueErrors.length, ...kept);
  }
  if (Array.isArray(value) && typeMatches(schema, 'array')) listDuplicates(path, value, schema, state.listErrors);
}

/** An update's stored object and where ratcheting starts (ratcheting.ts). */
export interface SchemaUpdate {
  readonly old: unknown;
  readonly ratchet: RatchetPosition;
}

/** A custom resource's schema problems by kind, which the reference reports apart. */
export interface SchemaProblems {
  /** The schema validator's value checks. */
  readonly values: readonly FieldError[];
  /** Embedded resources' apiVersion and kind. */
  readonly embedded: readonly FieldError[];
  /** List sets' and maps' repeated items. */
  readonly lists: readonly FieldError[];
}

/**
 * Every schema problem of `object` (a whole custom resource, already pruned and defaulted). On
 * an update, value problems of unchanged values are dropped, and list uniqueness is checked only
 * when the stored object had no such problem (as the reference ratchets it, all or nothing).
 */
export function schemaProblems(object: unknown, schema: JSONSchemaProps, update?: SchemaUpdate): SchemaProblems {
  const state = newWalk();
  walk(state, '', FieldPath.root(), object, schema, true, update?.ratchet);
  let listErrors = state.listErrors;
  if (listErrors.length > 0 && update !== undefined) {
    const stored = newWalk();
    walk(stored, '', FieldPath.root(), update.old, schema, true);
    if (stored.listErrors.length > 0) listErrors = [];
  }
  return { values: state.valueErrors, embedded: state.embeddedErrors, lists: listErrors };
}

/**
 * A status write's schema problems: the reference validates the status alone against its own
 * schema (so messages name its members from there, `phase in body`, under the field path
 * `status.phase`), and no embedded resource; list uniqueness over the whole object as on any
 * update.
 */
export function statusSchemaProblems(object: unknown, schema: JSONSchemaProps, update: SchemaUpdate): SchemaProblems {
  const state = newWalk();
  const statusSchema = schema.properties?.status;
  if (statusSchema !== undefined && isObject(object) && 'status' in object)
    walk(state, '', FieldPath.root(), object.status, statusSchema, false, update.ratchet.key('status'));
  // The messages name members from the status; the field paths are the object's.
  const values = state.valueErrors.map((error) => ({
    ...error,
    field: error.field === '' ? 'status' : `status.${error.field}`,
  }));
  return { values, embedded: [], lists: schemaProblems(object, schema, update).lists };
}

/**
 * Every schema problem of a value that is not a whole resource (a schema's `default`): the
 * reference judges a default by the schema validator alone, so a set's or map's repeated
 * items are no problem there.
 */
export function validateValueBySchema(value: unknown, schema: JSONSchemaProps): FieldError[] {
  const state = newWalk();
  walk(state, '', FieldPath.root(), value, schema, false);
  return [...state.valueErrors, ...state.embeddedErrors];
}
