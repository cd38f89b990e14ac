/**
 * A JSON object in the shape encoding/json gives the Go type it decodes to, for the kinds the
 * reference stores and answers as JSON (CustomResourceDefinitions, APIServices): what reaches
 * their servers is decoded into the v1 Go structs and written back from them, so
 *   - a member tagged `omitempty` is left out at its zero (`shortNames: []`, `deprecated: false`,
 *     a schema's `nullable: false` or `description: ""`);
 *   - a list, map or pointer without `omitempty` that is nil is written `null` (a new CRD's
 *     `status.conditions`);
 *   - a plain scalar without `omitempty` is written at its zero when absent;
 *   - a struct held by value is always written, `omitempty` or not (encoding/json never finds a
 *     struct empty).
 * The facts come from the protobuf facts of the generated definitions (omitempty, pointer,
 * repeated, map). Values written by a MarshalJSON of their own are left as they are: a schema's
 * `default`, `enum` and `example` (raw JSON), the apimachinery types (ObjectMeta, Time), while
 * the schema-or-array and schema-or-bool members are shaped as the schema they hold.
 */
import { definitionFor, type ProtobufField } from './definitions';
import { isObject } from '../json/value';

type JsonObject = Record<string, unknown>;

const SCHEMA = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps';

/** Members whose MarshalJSON writes the JSON schema they hold, or the list or bool beside it. */
const SCHEMA_HOLDERS = new Set([`${SCHEMA}OrArray`, `${SCHEMA}OrBool`, `${SCHEMA}OrStringArray`]);

/** The zero value encoding/json writes for a proto scalar type, by the type's name. */
function scalarZero(type: string | undefined): unknown {
  switch (type) {
    case 'bool':
      return false;
    case 'string':
    case 'bytes':
      return '';
    default:
      return 0;
  }
}

/** encoding/json's isEmptyValue for what JSON can hold: false, 0, "", an empty list or map. */
function isEmptyGoValue(value: unknown): boolean {
  if (value === false || value === 0 || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  return isObject(value) && Object.keys(value).length === 0;
}

/** A struct of the generated definitions that encoding/json writes member by member. */
function isShapedStruct(name: string | undefined): name is string {
  if (name === undefined || name.startsWith('io.k8s.apimachinery.')) return false;
  return SCHEMA_HOLDERS.has(name) || definitionFor(name)?.properties !== undefined;
}

/** One member of a struct, with what shaping it needs worked out once. */
interface MemberPlan {
  readonly key: string;
  readonly facts: ProtobufField;
  /** The struct its value, its list's items or its map's values are shaped as. */
  readonly struct?: string;
  /** A value written by a MarshalJSON of its own (a Time held by value): left as it is. */
  readonly ownMarshal: boolean;
}

interface StructPlan {
  /** The members shaped only when present: `omitempty` ones, and pointers, lists and maps. */
  readonly byKey: ReadonlyMap<string, MemberPlan>;
  /** The members written whatever they hold: no `omitempty`, or a struct held by value. */
  readonly written: readonly MemberPlan[];
}

const plans = new Map<string, StructPlan>();

/** A large CRD's schema has thousands of nodes: each struct's members are read off its definition once. */
function planOf(name: string): StructPlan {
  let plan = plans.get(name);
  if (plan !== undefined) return plan;
  const byKey = new Map<string, MemberPlan>();
  const written: MemberPlan[] = [];
  for (const [key, schema] of Object.entries(definitionFor(name)?.properties ?? {})) {
    const facts = schema['x-capstan-protobuf'];
    if (facts === undefined || key === 'metadata') continue;
    const elementType = facts.map ? facts.map.value.type : facts.type;
    const byValue = facts.repeated !== true && facts.map === undefined && facts.pointer !== true;
    const struct = isShapedStruct(elementType) ? elementType : undefined;
    const ownMarshal = byValue && struct === undefined && elementType !== undefined && !!definitionFor(elementType);
    const member: MemberPlan = { key, facts, ...(struct === undefined ? {} : { struct }), ownMarshal };
    if (facts.omitempty !== true || (byValue && struct !== undefined)) written.push(member);
    else byKey.set(key, member);
  }
  plan = { byKey, written };
  plans.set(name, plan);
  return plan;
}

/** Shapes `value`, held as the Go type `name`, in place where it is an object; returns it. */
function shapeValue(name: string, value: unknown): unknown {
  if (SCHEMA_HOLDERS.has(name)) {
    if (Array.isArray(value)) return value.map((item) => shapeValue(SCHEMA, item));
    return isObject(value) ? shapeValue(SCHEMA, value) : value;
  }
  if (isObject(value)) shapeObject(name, value);
  return value;
}

function shapeMember(object: JsonObject, { key, facts, struct, ownMarshal }: MemberPlan): void {
  if (ownMarshal) return;
  const value = object[key];
  const absent = value === undefined || value === null;
  if (facts.repeated === true || facts.map !== undefined || facts.pointer === true) {
    if (absent) {
      if (facts.omitempty === true) delete object[key];
      else object[key] = null;
      return;
    }
    if (facts.pointer !== true && facts.omitempty === true && isEmptyGoValue(value)) {
      delete object[key];
      return;
    }
    if (struct === undefined) return;
    if (facts.pointer === true) object[key] = shapeValue(struct, value);
    else if (Array.isArray(value)) value.forEach((item) => shapeValue(struct, item));
    else if (isObject(value)) for (const item of Object.values(value)) shapeValue(struct, item);
    return;
  }
  if (struct !== undefined) {
    object[key] = shapeValue(struct, isObject(value) ? value : {});
    return;
  }
  if (absent) {
    if (facts.omitempty === true) delete object[key];
    else object[key] = scalarZero(facts.type);
  } else if (facts.omitempty === true && isEmptyGoValue(value)) {
    delete object[key];
  }
}

/** Shapes the members of `object`, held as the Go struct of definition `name`, in place. */
export function shapeObject(name: string, object: JsonObject): void {
  const { byKey, written } = planOf(name);
  for (const key of Object.keys(object)) {
    const member = byKey.get(key);
    if (member !== undefined) shapeMember(object, member);
  }
  for (const member of written) shapeMember(object, member);
}
