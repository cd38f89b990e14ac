/**
 * Schema-driven decoding of a request body into an object, as the reference's typed decoder
 * behaves: JSON or YAML in, the first type mismatch rejected with Go's `json: cannot unmarshal`
 * text, unknown fields dropped (and reported), duplicate fields found (JSON only, and only when
 * field validation is not `Ignore`; the scan that names them costs about three parses, so it
 * runs only when counting the body's members says some key repeats).
 *
 * Schemas are the OpenAPI-style definitions of server/schema/ (keyed like
 * `io.k8s.api.apps.v1.Deployment`); an object without a definition, or a node marked
 * `x-kubernetes-preserve-unknown-fields`, is taken as it is.
 */
import { canonicalQuantity, QUANTITY_FORMAT_ERROR } from '../quantity/quantity';
import type { Document, LineCounter } from 'yaml';
import {
  GoYamlConversionError,
  GoYamlSyntaxError,
  goYamlSyntaxMessage,
  goYamlToJSON,
  parseGoYaml,
  type GoYamlReading,
} from './go-yaml';
import { firstOverflowingLiteral, NumberLiteral, plainNumbers } from './number-literal';
import type { KubeObject } from '../../api/objects';
import { goQuote } from '../../api/go-quote';
import { goInt64OfFloat, isGoInt64 } from '../../api/go-number';
import { GO_TYPE_META_STRUCT, goJSONSyntaxError, goJSONSyntaxProblem } from '../../api/go-json-syntax';
import { checkNestingDepth, MAX_NESTING_DEPTH, nestingDepth, tooDeep } from '../request/nesting';
import { isObject } from '../json/value';
import { badRequest, invalid } from '../status/catalogue';
import { FieldPath, invalid as invalidField } from '../status/field-errors';
import type { StatusError } from '../status/status-error';
import { goTimeParseError, RFC3339_LAYOUT, RFC3339_MICRO_LAYOUT } from './go-time';
import { goBase64ErrorOffset } from '../json/go-base64';

type JsoncParser = typeof import('jsonc-parser');
let jsoncParser: JsoncParser | undefined;

export interface SchemaNode {
  readonly type?: string;
  readonly format?: string;
  readonly properties?: Readonly<Record<string, SchemaNode>>;
  readonly items?: SchemaNode;
  readonly additionalProperties?: SchemaNode | boolean;
  readonly $ref?: string;
  readonly allOf?: readonly SchemaNode[];
  readonly 'x-kubernetes-preserve-unknown-fields'?: boolean;
  readonly 'x-kubernetes-int-or-string'?: boolean;
  readonly 'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  readonly 'x-kubernetes-list-map-keys'?: readonly string[];
  readonly 'x-kubernetes-map-type'?: 'atomic' | 'granular';
  /** One marker as a string, several as a list (server/schema's data keeps the reference's form). */
  readonly 'x-kubernetes-patch-merge-key'?: string | readonly string[];
  readonly 'x-kubernetes-patch-strategy'?: string | readonly string[];
  /** JSON types a string-typed definition also takes (IntOrString: integer; Quantity: number). */
  readonly 'x-capstan-openapi-v3-one-of'?: readonly string[];
  /** The member's protobuf tag, which follows its place in the Go struct. */
  readonly 'x-capstan-protobuf'?: { readonly tag: number };
}

export type Definitions = Readonly<Record<string, SchemaNode>>;

/** A schema node with its `$ref` followed, and the definition name it came from (for Go's struct names). */
export interface ResolvedSchema {
  readonly node: SchemaNode;
  readonly definition?: string;
}

export function resolveSchema(definitions: Definitions, node: SchemaNode, definition?: string): ResolvedSchema {
  let current = node;
  let name = definition;
  for (let depth = 0; depth < 16; depth++) {
    const ref = current.$ref ?? (current.allOf?.length === 1 ? current.allOf[0].$ref : undefined);
    if (ref === undefined) break;
    name = ref.slice(ref.lastIndexOf('/') + 1);
    const target = definitions[name];
    if (target === undefined) return { node: {}, definition: name };
    current = target;
  }
  return { node: current, definition: name };
}

export function resolveDefinition(definitions: Definitions, definition: string): ResolvedSchema | undefined {
  const node = definitions[definition];
  return node === undefined ? undefined : { node, definition };
}

// ---- parsing -----------------------------------------------------------------------------

export type BodyFormat = 'json' | 'yaml';

export interface ParsedBody {
  readonly value: unknown;
  /** Keys seen twice in one object, when asked. */
  readonly repeatedKeys: RepeatedKeys;
}

/** Keys a body repeats in one object, as the reference's strict decoders report them. */
export interface RepeatedKeys {
  /** JSON: paths of the keys (`spec.replicas`). */
  readonly fieldPaths: readonly string[];
  /** YAML: `line 7: key "a" already set in map`, as the YAML library words them. */
  readonly yamlLines: readonly string[];
  /**
   * JSON: every key's path in the order the text holds them, a repeated key each time it comes;
   * asked only when unknown and repeated fields are both to be reported, in the order met.
   */
  readonly keysInOrder?: () => readonly string[];
}

export const NO_REPEATED_KEYS: RepeatedKeys = { fieldPaths: [], yamlLines: [] };

/** A body the decoder could not even read a kind from, worded as the reference's transformDecodeError. */
export function unrecognizedObject(expectedKind: string, cause: string, body: Buffer): StatusError {
  return badRequest(
    `the object provided is unrecognized (must be of type ${expectedKind}): ${cause} (${summarizeData(body)})`,
  );
}

/** The reference's summary of such a body: its first 30 bytes, as text when it looks like JSON, else in hex. */
function summarizeData(body: Buffer): string {
  const MAX = 30;
  if (body.length === 0) return '<empty>';
  const head = body.subarray(0, MAX);
  const shown = body[0] === 0x7b /* { */ ? head.toString('utf8') : head.toString('hex');
  return body.length > MAX ? `${shown} ...` : shown;
}

/**
 * The reference's decoder reads a body's apiVersion and kind first, into that struct of two
 * strings, matching the names in any case: a member of another JSON type there fails before
 * anything else is read (a null reads as empty), and Go names the first in the text. Go reads
 * every coming of a repeated key, so `members` gives them all when the text repeats one.
 */
export function typeMetaReadError(value: unknown, members?: Iterable<readonly [string, unknown]>): string | undefined {
  if (!isObject(value)) return undefined;
  for (const [member, field] of members ?? Object.entries(value)) {
    const name = member.toLowerCase() === 'apiversion' ? 'apiVersion' : member.toLowerCase() === 'kind' ? 'kind' : '';
    if (name === '' || field === null || typeof field === 'string') continue;
    const kind = field instanceof NumberLiteral ? 'number' : jsonKind(field);
    return `couldn't get version/kind; json parse error: json: cannot unmarshal ${kind} into Go struct field .${name} of type string`;
  }
  return undefined;
}

export function parseBody(options: {
  readonly body: Buffer;
  readonly format: BodyFormat;
  readonly expectedKind: string;
  readonly findDuplicates: boolean;
}): ParsedBody {
  const text = options.body.toString('utf8');
  if (options.format === 'yaml') {
    const { documents, lines } = parseGoYaml(text);
    const first = documents.find((doc) => doc.contents !== null) ?? documents[0];
    if (first === undefined)
      throw unrecognizedObject(
        options.expectedKind,
        "couldn't get version/kind; json parse error: unexpected end of JSON input",
        options.body,
      );
    const { value, repeatedKeys } = readYaml(first, lines, options.expectedKind, options.body);
    checkTypeMetaHolder(value, options);
    checkTypeMetaMembers(value, options);
    return {
      value,
      repeatedKeys: options.findDuplicates ? { fieldPaths: [], yamlLines: repeatedKeys } : NO_REPEATED_KEYS,
    };
  }
  let value: unknown;
  try {
    value = parseJsonKeepingNumbers(text);
  } catch {
    throw unrecognizedObject(
      options.expectedKind,
      `couldn't get version/kind; json parse error: ${goJSONSyntaxError(text)}`,
      options.body,
    );
  }
  if (nestingDepth(value) > MAX_NESTING_DEPTH) {
    // Past Go's own bound the reference's scanner refused the text already, in its words.
    const goProblem = goJSONSyntaxProblem(text);
    if (goProblem !== undefined)
      throw unrecognizedObject(
        options.expectedKind,
        `couldn't get version/kind; json parse error: ${goProblem}`,
        options.body,
      );
    throw tooDeep('json');
  }
  checkTypeMetaHolder(value, options);
  const repeatsKeys = textRepeatsKeys(text, value);
  checkTypeMetaMembers(value, options, repeatsKeys ? topLevelMembers(text) : undefined);
  const scan = options.findDuplicates && repeatsKeys;
  return {
    value,
    repeatedKeys: scan
      ? { fieldPaths: findDuplicateKeys(text), yamlLines: [], keysInOrder: () => keyPathsInOrder(text) }
      : NO_REPEATED_KEYS,
  };
}

/** The reference reads the kind first, into a struct a scalar or list cannot fill (null reads as empty). */
function checkTypeMetaHolder(value: unknown, options: { readonly body: Buffer; readonly expectedKind: string }): void {
  if (value === null || (isObject(value) && !(value instanceof NumberLiteral))) return;
  const kind = value instanceof NumberLiteral ? 'number' : jsonKind(value);
  throw unrecognizedObject(
    options.expectedKind,
    `couldn't get version/kind; json parse error: json: cannot unmarshal ${kind} into Go value of type ${GO_TYPE_META_STRUCT}`,
    options.body,
  );
}

function checkTypeMetaMembers(
  value: unknown,
  options: { readonly body: Buffer; readonly expectedKind: string },
  members?: Iterable<readonly [string, unknown]>,
): void {
  const error = typeMetaReadError(value, members);
  if (error !== undefined) throw unrecognizedObject(options.expectedKind, error, options.body);
}

/** A YAML document as the reference reads it, or its refusal (bad syntax, a key or number JSON cannot hold, aliasing). */
function readYaml(document: Document.Parsed, lines: LineCounter, expectedKind: string, body: Buffer): GoYamlReading {
  try {
    return goYamlToJSON(document, lines);
  } catch (error) {
    if (error instanceof GoYamlSyntaxError)
      throw unrecognizedObject(expectedKind, goYamlSyntaxMessage(error.error, body.toString('utf8')), body);
    if (error instanceof GoYamlConversionError) throw unrecognizedObject(expectedKind, error.message, body);
    throw error;
  }
}

/** Integers JSON.parse keeps exactly whatever member they land in. */
const PLAIN_SAFE_INTEGER = /^-?\d{1,15}$/;

type ReviverWithSource = (key: string, value: unknown, context: { source?: string }) => unknown;

/**
 * JSON.parse, with number literals other than plain safe integers kept as NumberLiterals. The
 * reviver that sees the literals' source costs several times the parse, so it runs only when a
 * scan of the text finds such a literal (real bodies seldom carry one).
 */
export function parseJsonKeepingNumbers(text: string): unknown {
  if (!hasUnusualNumber(text)) return JSON.parse(text);
  const reviver: ReviverWithSource = (_key, value, context) =>
    typeof value === 'number' && context.source !== undefined && !PLAIN_SAFE_INTEGER.test(context.source)
      ? new NumberLiteral(context.source)
      : value;
  return JSON.parse(text, reviver as (key: string, value: unknown) => unknown);
}

/** Whether the text has, outside strings, a fraction, an exponent or a run of 16 or more digits. */
function hasUnusualNumber(text: string): boolean {
  const QUOTE = 0x22;
  const BACKSLASH = 0x5c;
  let digits = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x30 && code <= 0x39) {
      if (++digits >= 16) return true;
      continue;
    }
    if (code === 0x2e /* . */ || ((code === 0x65 || code === 0x45) /* e E */ && digits > 0)) return true;
    digits = 0;
    if (code === QUOTE) {
      for (i++; i < text.length; i++) {
        const inner = text.charCodeAt(i);
        if (inner === BACKSLASH) i++;
        else if (inner === QUOTE) break;
      }
    }
  }
  return false;
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Whether Go decodes the literal into the integer member: integer syntax, within its bounds. */
function fitsInteger(source: string, format: string | undefined): boolean {
  if (!/^-?\d+$/.test(source)) return false;
  const value = BigInt(source);
  return format === 'int32'
    ? value >= BigInt(INT32_MIN) && value <= BigInt(INT32_MAX)
    : value >= INT64_MIN && value <= INT64_MAX;
}

/**
 * Whether a valid JSON text repeats a key somewhere, given what JSON.parse made of it: the
 * parsed value then holds fewer members than the text.
 */
export function textRepeatsKeys(text: string, parsed: unknown): boolean {
  return memberCount(text) !== parsedMemberCount(parsed);
}

/**
 * How many object members a valid JSON text holds: its colons outside strings. When the parsed
 * value holds as many, no key was repeated, and the path-finding scan (several times the cost
 * of the parse) is skipped; bodies with repeated keys are rare.
 */
function memberCount(text: string): number {
  const QUOTE = 0x22;
  const BACKSLASH = 0x5c;
  const COLON = 0x3a;
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === COLON) count++;
    else if (code === QUOTE) {
      // To the closing quote, stepping over escapes.
      for (i++; i < text.length; i++) {
        const inner = text.charCodeAt(i);
        if (inner === BACKSLASH) i++;
        else if (inner === QUOTE) break;
      }
    }
  }
  return count;
}

function parsedMemberCount(value: unknown): number {
  if (typeof value !== 'object' || value === null || value instanceof NumberLiteral) return 0;
  let count = 0;
  if (Array.isArray(value)) {
    for (const item of value) count += parsedMemberCount(item);
    return count;
  }
  for (const key of Object.keys(value)) count += 1 + parsedMemberCount((value as Record<string, unknown>)[key]);
  return count;
}

/**
 * Paths of repeated keys, in the order they are met, printed as the reference does. The parser
 * that finds them is loaded with the first body that repeats a key: most servers never see one.
 */
export function findDuplicateKeys(text: string): string[] {
  jsoncParser ??= require('jsonc-parser') as JsoncParser;
  const duplicates: string[] = [];
  const seen: Set<string>[] = [];
  jsoncParser.visit(text, {
    onObjectBegin: () => {
      seen.push(new Set());
    },
    onObjectEnd: () => {
      seen.pop();
    },
    onObjectProperty: (property, _offset, _length, _line, _column, pathSupplier) => {
      const keys = seen[seen.length - 1];
      if (keys.has(property)) duplicates.push(formatPath([...pathSupplier(), property]));
      else keys.add(property);
    },
  });
  return duplicates;
}

/**
 * The top-level object's members in the text's order, a repeated key each time it comes with
 * the value it comes with (JSON.parse keeps only the last).
 */
function topLevelMembers(text: string): [string, unknown][] {
  const parser = (jsoncParser ??= require('jsonc-parser') as JsoncParser);
  const root = parser.parseTree(text);
  if (root?.type !== 'object') return [];
  return (root.children ?? []).flatMap(({ children: [key, value] = [] }) =>
    key === undefined || value === undefined ? [] : [[key.value as string, parser.getNodeValue(value)]],
  );
}

/** Every key's path in the text's order, a repeated key each time it comes. */
export function keyPathsInOrder(text: string): string[] {
  jsoncParser ??= require('jsonc-parser') as JsoncParser;
  const paths: string[] = [];
  jsoncParser.visit(text, {
    onObjectProperty: (property, _offset, _length, _line, _column, pathSupplier) => {
      paths.push(formatPath([...pathSupplier(), property]));
    },
  });
  return paths;
}

/**
 * Unknown and repeated fields in the order a typed decoder meets them (the reference's strict
 * decoding): an unknown key where it comes, a repeat at its second coming. Without the keys'
 * order, or with a path it does not hold, all unknown ones come first.
 */
function inOrderMet(
  unknown: readonly string[],
  repeated: readonly string[],
  keysInOrder: (() => readonly string[]) | undefined,
): string[] {
  const problems = [
    ...unknown.map((path) => ({ path, text: `unknown field ${goQuote(path)}`, occurrence: 0 })),
    ...repeated.map((path) => ({ path, text: `duplicate field ${goQuote(path)}`, occurrence: 1 })),
  ];
  if (keysInOrder === undefined || unknown.length === 0 || repeated.length === 0)
    return problems.map((problem) => problem.text);
  const positions = new Map<string, number[]>();
  for (const [index, path] of keysInOrder().entries()) {
    const comings = positions.get(path);
    if (comings === undefined) positions.set(path, [index]);
    else comings.push(index);
  }
  // The n-th report of one path is its n-th coming (after the first, for a repeat).
  const taken = new Map<string, number>();
  const placed = problems.map((problem) => {
    const key = `${problem.occurrence}:${problem.path}`;
    const nth = taken.get(key) ?? 0;
    taken.set(key, nth + 1);
    return { text: problem.text, at: positions.get(problem.path)?.[problem.occurrence + nth] };
  });
  if (placed.some((problem) => problem.at === undefined)) return problems.map((problem) => problem.text);
  return placed.sort((a, b) => a.at! - b.at!).map((problem) => problem.text);
}

/** A field path as the reference's decoders print it: `spec.containers[0].name`, `[0].value`. */
export function formatPath(segments: readonly (string | number)[]): string {
  let out = '';
  for (const segment of segments) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out === '' ? segment : `.${segment}`;
  }
  return out;
}

// ---- typing against the schema -----------------------------------------------------------

export interface TypedResult {
  /** The object with unknown fields (and nulls the schema knows) removed. */
  readonly object: unknown;
  readonly unknownFields: readonly string[];
  /** Go's unmarshal error for the first mismatch, if any. */
  readonly typeError?: string;
}

interface Walk {
  readonly definitions: Definitions;
  readonly unknownFields: string[];
  /**
   * The value is the map the reference converts into the Go type with its unstructured
   * converter (a strategic merge's result) rather than JSON it unmarshals: see fromMapValue.
   */
  readonly fromMap: boolean;
  typeError?: string;
}

function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'object';
  if (typeof value === 'boolean') return 'bool';
  return typeof value; // string, number
}

/** The Go type name the reference would print for a schema node. */
function goTypeName(definitions: Definitions, schema: ResolvedSchema): string {
  const { node, definition } = schema;
  if (node['x-kubernetes-int-or-string']) return 'intstr.IntOrString';
  // Their decoders read a string first, and Go's message names that.
  if (definition !== undefined && timeLayoutOf(definition) !== undefined) return 'string';
  if (definition !== undefined) {
    // A named definition is a Go type of its package: v1.DeploymentSpec, intstr.IntOrString, resource.Quantity.
    const parts = definition.split('.');
    return `${parts[parts.length - 2]}.${parts[parts.length - 1]}`;
  }
  switch (node.type) {
    case 'integer':
      return node.format === 'int32' ? 'int32' : 'int64';
    case 'number':
      return 'float64';
    case 'boolean':
      return 'bool';
    case 'string':
      return 'string';
    case 'array':
      return `[]${node.items ? goTypeName(definitions, resolveSchema(definitions, node.items)) : 'interface {}'}`;
    case 'object':
      if (typeof node.additionalProperties === 'object') {
        return `map[string]${goTypeName(definitions, resolveSchema(definitions, node.additionalProperties))}`;
      }
      return 'map[string]interface {}';
    default:
      return 'interface {}';
  }
}

function structName(definition: string | undefined): string {
  return definition === undefined ? '' : definition.slice(definition.lastIndexOf('.') + 1);
}

/** A value's JSON type as a bit, to test against the types a schema node accepts. */
const STRING = 1;
const INTEGER = 2;
const FRACTION = 4;
const BOOLEAN = 8;
const ARRAY = 16;
const OBJECT = 32;
/** Anything else a decoder may hand over (undefined, bigint): only untyped nodes take it. */
const OTHER = 64;
const ANY = STRING | INTEGER | FRACTION | BOOLEAN | ARRAY | OBJECT | OTHER;

function typeBit(value: unknown): number {
  switch (typeof value) {
    case 'string':
      return STRING;
    case 'number':
      return Number.isInteger(value) ? INTEGER : FRACTION;
    case 'boolean':
      return BOOLEAN;
    case 'object':
      return Array.isArray(value) ? ARRAY : OBJECT; // null never gets here
    default:
      return OTHER;
  }
}

const TYPE_BITS: Readonly<Record<string, number>> = {
  integer: INTEGER,
  number: INTEGER | FRACTION,
  boolean: BOOLEAN,
  string: STRING,
  array: ARRAY,
  object: OBJECT,
};

/** The JSON types a node accepts: int-or-string, the listed alternatives, else its `type` (none: any). */
function acceptedBits(node: SchemaNode): number {
  if (node['x-kubernetes-int-or-string'] || node.format === 'int-or-string') return STRING | INTEGER;
  // Go's []byte takes its base64 text, or the bytes as a list of numbers.
  if (node.type === 'string' && node.format === 'byte') return STRING | ARRAY;
  const alternatives = node['x-capstan-openapi-v3-one-of'];
  if (alternatives !== undefined)
    return alternatives.reduce((bits, type) => bits | (Object.hasOwn(TYPE_BITS, type) ? TYPE_BITS[type] : 0), 0);
  return node.type !== undefined && Object.hasOwn(TYPE_BITS, node.type) ? TYPE_BITS[node.type] : ANY;
}

/** The layout Go parses a timestamp type with (metav1.Time, metav1.MicroTime); undefined for other types. */
function timeLayoutOf(definition: string | undefined): typeof RFC3339_LAYOUT | typeof RFC3339_MICRO_LAYOUT | undefined {
  if (definition === 'io.k8s.apimachinery.pkg.apis.meta.v1.Time') return RFC3339_LAYOUT;
  if (definition === 'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime') return RFC3339_MICRO_LAYOUT;
  return undefined;
}

/**
 * Go types that keep the raw JSON they are given, whatever its type (runtime.RawExtension,
 * metav1.FieldsV1): decoding takes any value there, and validation judges it, as the
 * reference's does.
 */
function holdsAnyJson(definition: string | undefined): boolean {
  return definition !== undefined && (definition.endsWith('.runtime.RawExtension') || definition.endsWith('.FieldsV1'));
}

/**
 * A schema node prepared for typing values: what it accepts and its children, looked up in
 * maps. Reading the same facts off the schema's JSON objects, which come in hundreds of
 * shapes, made every property access a slow (megamorphic) one; typing a pod cost ~80 us.
 * Built once per node and definitions (see `SchemaTypes`), children on first need.
 */
class TypeNode {
  readonly accepted: number;
  readonly preserveUnknown: boolean;
  /** An int32 member: a larger integer is Go's unmarshal error. */
  readonly isInt32: boolean;
  /** A `[]byte` in Go: base64 text its decoder must accept, or a list of byte values. */
  readonly isBytes: boolean;
  /** The Go struct the node's fields belong to, for unmarshal errors ('' when not a named type). */
  readonly structName: string;
  /** A timestamp: the layout its text must fit. */
  readonly timeLayout: ReturnType<typeof timeLayoutOf>;
  /** A resource.Quantity: its text (or number) is kept as the reference's decoder writes it. */
  readonly isQuantity: boolean;
  private readonly declared: ReadonlyMap<string, SchemaNode> | undefined;
  private readonly fields = new Map<string, TypeNode>();
  private itemsNode: TypeNode | undefined;
  private valuesNode: TypeNode | undefined;

  constructor(
    private readonly types: SchemaTypes,
    readonly schema: ResolvedSchema,
  ) {
    const { node } = schema;
    this.accepted = holdsAnyJson(schema.definition) ? ANY : acceptedBits(node);
    this.isInt32 = node.type === 'integer' && node.format === 'int32';
    this.isBytes = node.type === 'string' && node.format === 'byte';
    this.preserveUnknown = Boolean(node['x-kubernetes-preserve-unknown-fields']);
    this.structName = structName(schema.definition);
    this.timeLayout = timeLayoutOf(schema.definition);
    this.isQuantity = schema.definition?.endsWith('.resource.Quantity') ?? false;
    this.declared = node.properties === undefined ? undefined : new Map(Object.entries(node.properties));
  }

  get hasItems(): boolean {
    return this.schema.node.items !== undefined;
  }

  items(): TypeNode {
    this.itemsNode ??= this.types.of(this.schema.node.items!);
    return this.itemsNode;
  }

  /** True when the node lists its fields (a struct); unknown ones are dropped. */
  get isStruct(): boolean {
    return this.declared !== undefined;
  }

  /** Where a declared field comes in the Go struct (by its protobuf tag); unknown ones after all. */
  fieldOrder(name: string): number {
    return this.declared?.get(name)?.['x-capstan-protobuf']?.tag ?? Number.POSITIVE_INFINITY;
  }

  /** The type of a declared field; undefined for an unknown one. */
  field(name: string): TypeNode | undefined {
    let found = this.fields.get(name);
    if (found === undefined) {
      const declared = this.declared?.get(name);
      if (declared === undefined) return undefined;
      found = this.types.of(declared);
      this.fields.set(name, found);
    }
    return found;
  }

  /**
   * What Go's decoder leaves where a list item or a map value is `null`: the zero value of the
   * item's type (an empty struct, "", 0, false), which validation then judges. Untyped and
   * timestamp items (metav1.Time's zero marshals as null) stay null.
   */
  zero(): unknown {
    const { node, definition } = this.schema;
    if (node['x-kubernetes-int-or-string'] || node.format === 'int-or-string') return 0;
    if (definition?.endsWith('.resource.Quantity')) return '0';
    if (this.isStruct) return {};
    switch (node.type) {
      case 'string':
        return node.format === 'date-time' ? null : '';
      case 'integer':
      case 'number':
        return 0;
      case 'boolean':
        return false;
      case 'array':
        return [];
      case 'object':
        return {};
      default:
        return null;
    }
  }

  /** The type of a map's values, when the node is a map of one type. */
  values(): TypeNode | undefined {
    const additional = this.schema.node.additionalProperties;
    if (typeof additional !== 'object') return undefined;
    this.valuesNode ??= this.types.of(additional);
    return this.valuesNode;
  }
}

/** The TypeNodes of one set of definitions, one per schema node (so recursive schemas stay finite). */
class SchemaTypes {
  private readonly byNode = new WeakMap<SchemaNode, TypeNode>();
  private readonly roots = new Map<string, TypeNode | undefined>();

  constructor(readonly definitions: Definitions) {}

  of(node: SchemaNode): TypeNode {
    let found = this.byNode.get(node);
    if (found === undefined) {
      found = new TypeNode(this, resolveSchema(this.definitions, node));
      this.byNode.set(node, found);
    }
    return found;
  }

  root(definition: string): TypeNode | undefined {
    if (!this.roots.has(definition)) {
      const resolved = resolveDefinition(this.definitions, definition);
      this.roots.set(definition, resolved === undefined ? undefined : new TypeNode(this, resolved));
    }
    return this.roots.get(definition);
  }
}

const schemaTypes = new WeakMap<Definitions, SchemaTypes>();

function schemaTypesOf(definitions: Definitions): SchemaTypes {
  let types = schemaTypes.get(definitions);
  if (types === undefined) {
    types = new SchemaTypes(definitions);
    schemaTypes.set(definitions, types);
  }
  return types;
}

function typeErrorText(walk: Walk, value: unknown, schema: ResolvedSchema, parentStruct: string, path: string): string {
  let what = jsonKind(value);
  if (what === 'number' && schema.node.type === 'integer') what = `number ${String(value)}`;
  const target = goTypeName(walk.definitions, schema);
  return parentStruct === ''
    ? `json: cannot unmarshal ${what} into Go value of type ${target}`
    : `json: cannot unmarshal ${what} into Go struct field ${parentStruct}.${path} of type ${target}`;
}

/**
 * Where a value sits: `path` names it as strict decoding errors do (with list indices and map
 * keys); `goPath` as Go's unmarshal type errors do, which name struct fields only.
 */
interface Location {
  readonly path: string;
  readonly goPath: string;
  readonly parentStruct: string;
}

/** The Go kind the unstructured converter sees a decoded value as (reflect.Kind's names). */
function goKindOfMapValue(value: unknown): string {
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return isGoInt64(value) ? 'int64' : 'float64';
  return Array.isArray(value) ? 'slice' : 'map';
}

/** The Go kind of a node of one plain JSON type; undefined for any other (those with their own decoding among them). */
function plainGoKind(type: TypeNode): 'int32' | 'int64' | 'float64' | 'string' | 'bool' | undefined {
  if (type.isQuantity || type.isBytes || type.timeLayout !== undefined) return undefined;
  switch (type.accepted) {
    case INTEGER:
      return type.isInt32 ? 'int32' : 'int64';
    case INTEGER | FRACTION:
      return 'float64';
    case STRING:
      return 'string';
    case BOOLEAN:
      return 'bool';
    default:
      return undefined;
  }
}

const NOT_CONVERTED = Symbol('not converted');

/**
 * runtime.DefaultUnstructuredConverter's reading of a map value into a member of a plain type or
 * a struct, map or slice, where it differs from JSON's: integers convert between Go's integer
 * types as Go converts them (int32 keeps the low 32 bits; a whole float64 goes through int64,
 * which holds the least int64 for what it cannot), a fraction into an integer or a number into
 * a string is "cannot convert", another kind "unrecognized type", and a container from what is
 * none "cannot restore". NOT_CONVERTED where the ordinary typing applies.
 */
function fromMapValue(walk: Walk, value: unknown, type: TypeNode): unknown {
  const source = goKindOfMapValue(value);
  const kind = plainGoKind(type);
  const refuse = (error: string) => {
    walk.typeError ??= error;
    return value;
  };
  // Types with their own JSON decoding get the value marshalled alone: their errors name no field.
  const { node } = type.schema;
  if (node['x-kubernetes-int-or-string'] || node.format === 'int-or-string') {
    if (source === 'string' || (source === 'int64' && (value as number) >= INT32_MIN && (value as number) <= INT32_MAX))
      return NOT_CONVERTED;
    const what = source === 'int64' || source === 'float64' ? `number ${String(value)}` : jsonKind(value);
    return refuse(`json: cannot unmarshal ${what} into Go value of type int32`);
  }
  if (type.isQuantity)
    return source === 'string' || source === 'int64' || source === 'float64'
      ? NOT_CONVERTED
      : refuse(QUANTITY_FORMAT_ERROR);
  if (type.timeLayout !== undefined)
    return source === 'string'
      ? NOT_CONVERTED
      : refuse(`json: cannot unmarshal ${jsonKind(value)} into Go value of type string`);
  if (kind === 'int32' || kind === 'int64') {
    if (source !== 'int64' && source !== 'float64') return refuse(`unrecognized type: ${kind}`);
    const number = value as number;
    if (source === 'float64' && Math.trunc(number) !== number) return refuse(`cannot convert float64 to ${kind}`);
    const whole = source === 'int64' ? BigInt(number) : goInt64OfFloat(number);
    return Number(kind === 'int32' ? BigInt.asIntN(32, whole) : whole);
  }
  if (kind === 'float64')
    return source === 'int64' || source === 'float64' ? value : refuse('unrecognized type: float64');
  if (kind === 'string') {
    if (source === 'string') return value;
    return refuse(source === 'int64' ? 'cannot convert int64 to string' : 'unrecognized type: string');
  }
  if (kind === 'bool') return source === 'bool' ? value : refuse('unrecognized type: bool');
  if (type.accepted === OBJECT && source !== 'map')
    return refuse(type.isStruct ? `cannot restore struct from: ${source}` : `cannot restore map from ${source}`);
  if (type.accepted === ARRAY && source !== 'slice') return refuse(`cannot restore slice from ${source}`);
  return NOT_CONVERTED;
}

function typeValue(walk: Walk, value: unknown, type: TypeNode, location: Location): unknown {
  if (value === null) return type.zero();
  if (value instanceof NumberLiteral) return typeNumberLiteral(walk, value, type, location);
  if (walk.fromMap) {
    const converted = fromMapValue(walk, value, type);
    if (converted !== NOT_CONVERTED) return converted;
  }
  const bit = typeBit(value);
  if (
    (type.accepted & bit) === 0 ||
    (bit === INTEGER && type.isInt32 && ((value as number) < INT32_MIN || (value as number) > INT32_MAX))
  ) {
    walk.typeError ??= typeErrorText(walk, value, type.schema, location.parentStruct, location.goPath);
    return value;
  }
  if (typeof value === 'string' && type.isBytes) {
    const offset = goBase64ErrorOffset(value);
    if (offset !== undefined) walk.typeError ??= `illegal base64 data at input byte ${offset}`;
    return value;
  }
  if (typeof value === 'string' && type.timeLayout !== undefined) {
    const problem = goTimeParseError(value, type.timeLayout);
    if (problem !== undefined) walk.typeError ??= problem;
    return value;
  }
  // A whole number is a quantity's text too; other numbers came as NumberLiterals (typeNumberLiteral).
  if (type.isQuantity && (typeof value === 'string' || typeof value === 'number'))
    return quantityText(walk, String(value));
  if (Array.isArray(value)) {
    if (type.isBytes) return bytesFromNumbers(walk, value, location);
    if (!type.hasItems) return plainNumbers(value);
    const items = type.items();
    const { goPath, parentStruct } = location;
    return value.map((item, index) =>
      typeValue(walk, item, items, { path: `${location.path}[${index}]`, goPath, parentStruct }),
    );
  }
  if (typeof value !== 'object') return value;
  if (type.preserveUnknown) return plainNumbers(value);
  const record = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  if (type.isStruct) {
    const ownStruct = type.structName || location.parentStruct;
    const keys = Object.keys(record);
    // The unstructured converter walks a struct's fields in Go's order and stops at the first
    // error; JSON is read in the text's. The members keep their order either way.
    const visited = walk.fromMap ? [...keys].sort((a, b) => type.fieldOrder(a) - type.fieldOrder(b)) : keys;
    const typed = new Map<string, unknown>();
    for (const key of visited) {
      const child = record[key];
      const childPath = location.path === '' ? key : `${location.path}.${key}`;
      const field = type.field(key);
      if (field === undefined) {
        walk.unknownFields.push(childPath);
        continue;
      }
      if (child === null) continue;
      const goPath = location.goPath === '' ? key : `${location.goPath}.${key}`;
      typed.set(key, typeValue(walk, child, field, { path: childPath, goPath, parentStruct: ownStruct }));
    }
    for (const key of keys) if (typed.has(key)) out[key] = typed.get(key);
    return out;
  }
  const values = type.values();
  if (values !== undefined) {
    const { goPath, parentStruct } = location;
    for (const key of Object.keys(record)) {
      const childPath = location.path === '' ? key : `${location.path}.${key}`;
      out[key] = typeValue(walk, record[key], values, { path: childPath, goPath, parentStruct });
    }
    return out;
  }
  return plainNumbers(value);
}

/** A number literal against the member's type: an integer member takes integer syntax within its bounds only. */
function typeNumberLiteral(walk: Walk, literal: NumberLiteral, type: TypeNode, location: Location): unknown {
  const { node } = type.schema;
  const integerOnly = (type.accepted & INTEGER) !== 0 && (type.accepted & FRACTION) === 0;
  if ((type.accepted & (INTEGER | FRACTION)) === 0 || (integerOnly && !fitsInteger(literal.source, node.format))) {
    const target = goTypeName(walk.definitions, type.schema);
    // Go names the literal only when it fails a number member (a fraction or out of range).
    const what = (type.accepted & (INTEGER | FRACTION)) === 0 ? 'number' : `number ${literal.source}`;
    walk.typeError ??=
      location.parentStruct === ''
        ? `json: cannot unmarshal ${what} into Go value of type ${target}`
        : `json: cannot unmarshal ${what} into Go struct field ${location.parentStruct}.${location.goPath} of type ${target}`;
    return literal.value;
  }
  // A number is a quantity's text too (Quantity's UnmarshalJSON parses it alike).
  if (type.isQuantity) return quantityText(walk, literal.source);
  return literal.value;
}

/**
 * A []byte written as a list of numbers, as its base64 text: Go decodes each item as a uint8, and
 * names the first that is none (a string, or a number out of range or with a fraction).
 */
function bytesFromNumbers(walk: Walk, items: readonly unknown[], location: Location): string {
  const bytes: number[] = [];
  for (const item of items) {
    const source = item instanceof NumberLiteral ? item.source : typeof item === 'number' ? String(item) : undefined;
    if (item === null) bytes.push(0);
    else if (source !== undefined && /^\d+$/.test(source) && Number(source) <= 255) bytes.push(Number(source));
    else {
      const what = source !== undefined ? `number ${source}` : jsonKind(item);
      walk.typeError ??=
        location.parentStruct === ''
          ? `json: cannot unmarshal ${what} into Go value of type uint8`
          : `json: cannot unmarshal ${what} into Go struct field ${location.parentStruct}.${location.goPath} of type uint8`;
      return '';
    }
  }
  return Buffer.from(bytes).toString('base64');
}

/** A quantity as the reference decodes it: its kept or canonical text, or Go's error for text that is none. */
function quantityText(walk: Walk, text: string): string {
  const canonical = canonicalQuantityCached(text);
  if (canonical !== undefined) return canonical;
  walk.typeError ??= QUANTITY_FORMAT_ERROR;
  return text;
}

/**
 * Decoded quantities by their text: objects repeat a few (`100m`, `128Mi`), and canonical
 * forms take big-integer arithmetic. Emptied when full, so odd texts cost the work, not memory.
 */
const canonicalQuantities = new Map<string, string | undefined>();
const CANONICAL_QUANTITIES_KEPT = 512;
const CANONICAL_QUANTITY_KEY_LENGTH = 64;

function canonicalQuantityCached(text: string): string | undefined {
  if (canonicalQuantities.has(text)) return canonicalQuantities.get(text);
  const canonical = canonicalQuantity(text);
  if (text.length <= CANONICAL_QUANTITY_KEY_LENGTH) {
    if (canonicalQuantities.size >= CANONICAL_QUANTITIES_KEPT) canonicalQuantities.clear();
    canonicalQuantities.set(text, canonical);
  }
  return canonical;
}

/** Types `value` against the definition; without one, returns it unchanged. */
export function typeAgainstSchema(
  definitions: Definitions | undefined,
  definition: string,
  value: unknown,
  options: { readonly fromMap?: boolean } = {},
): TypedResult {
  const root = definitions === undefined ? undefined : schemaTypesOf(definitions).root(definition);
  if (definitions === undefined || root === undefined) return { object: plainNumbers(value), unknownFields: [] };
  const walk: Walk = { definitions, unknownFields: [], fromMap: options.fromMap ?? false };
  const object = typeValue(walk, value, root, { path: '', goPath: '', parentStruct: '' });
  // The converter reports the unknown fields it met sorted.
  if (walk.fromMap) walk.unknownFields.sort();
  return { object, unknownFields: walk.unknownFields, typeError: walk.typeError };
}

// ---- the whole decode --------------------------------------------------------------------

export type FieldValidationLevel = 'Ignore' | 'Warn' | 'Strict';

export interface DecodeRequest {
  readonly definitions?: Definitions;
  /** OpenAPI definition of the expected kind in the served version. */
  readonly definition: string;
  readonly expectedKind: string;
  readonly servedVersion: string;
  readonly fieldValidation: FieldValidationLevel;
  /**
   * The value is a create or update body itself: the reference reports its strict errors as a
   * body that "cannot be handled as" the kind; a patch's result as a 422 on the `patch` it made.
   */
  readonly wholeBody?: boolean;
  /** A patch's result: what its 422 prints as the `patch` value (default: the result as JSON). */
  readonly shownPatch?: () => string;
  /** A patch's result: what strict decoding of the patch document reported, reported first. */
  readonly patchProblems?: readonly string[];
  /** A strategic merge's result, which the reference converts from its map (see fromMapValue). */
  readonly fromMap?: boolean;
  /**
   * Takes the place of typing for kinds decoded unstructured (custom resources): removes what
   * the kind does not declare and answers those paths (see ResourceType.prune).
   */
  readonly prune?: (object: KubeObject) => string[];
}

export interface DecodedObject {
  readonly object: KubeObject;
  /** `Warning` texts for fieldValidation=Warn (unknown and duplicate fields). */
  readonly warnings: readonly string[];
}

/** The definition an unstructured object's metadata is read into. */
const OBJECT_META_DEFINITION = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

/**
 * An unstructured object pruned by its kind's schema. Its metadata is the one part typed: the
 * reference reads it alone into an ObjectMeta (so Go names its fields from ObjectMeta, not from
 * the object) and reports the members ObjectMeta lacks, sorted, before those the pruning removes.
 */
function pruned(
  definitions: Definitions | undefined,
  object: KubeObject,
  prune: (object: KubeObject) => string[],
): TypedResult {
  const metadataFields: string[] = [];
  if ('metadata' in object) {
    const metadata = typeAgainstSchema(definitions, OBJECT_META_DEFINITION, object.metadata);
    if (metadata.typeError !== undefined) return { object, unknownFields: [], typeError: metadata.typeError };
    object.metadata = metadata.object as KubeObject['metadata'];
    metadataFields.push(...metadata.unknownFields.map((path) => `metadata.${path}`).sort());
  }
  return { object, unknownFields: [...metadataFields, ...prune(object)] };
}

/** Whether a field path (`spec.a[0].b`) is `ancestor` or inside it. */
function isAtOrUnder(path: string, ancestor: string): boolean {
  return path === ancestor || path.startsWith(`${ancestor}.`) || path.startsWith(`${ancestor}[`);
}

/**
 * Types an already parsed value (a request body, or the result of a patch) and applies the
 * field validation level. Throws 400 for a type mismatch or, under Strict, for unknown or
 * duplicate fields.
 */
export function decodeValue(request: DecodeRequest, value: unknown, repeatedKeys: RepeatedKeys): DecodedObject {
  // Protobuf and CBOR bodies and patch results arrive here parsed by others: typing recurses.
  checkNestingDepth(value, 'object');
  const prune = isObject(value) ? request.prune : undefined;
  const unstructured = prune !== undefined;
  // Pruning removes in place what a strict patch's 422 prints: that text is taken first.
  const shownBeforePruning =
    unstructured && !request.wholeBody && request.fieldValidation === 'Strict' ? request.shownPatch?.() : undefined;
  const overflowing = unstructured ? firstOverflowingLiteral(value) : undefined;
  const typed: TypedResult =
    overflowing !== undefined
      ? {
          object: value,
          unknownFields: [],
          typeError: `json: cannot unmarshal number ${overflowing} into Go value of type float64`,
        }
      : prune !== undefined
        ? pruned(request.definitions, plainNumbers(value) as KubeObject, prune)
        : typeAgainstSchema(request.definitions, request.definition, value, { fromMap: request.fromMap });
  const handledAs = `${request.expectedKind} in version ${goQuote(request.servedVersion)} cannot be handled as a ${request.expectedKind}`;
  // A patch's result the type does not fit, or that strict decoding refuses, is the patch's
  // fault: the reference answers 422 naming the result it could not decode.
  const patchFault = (detail: string) =>
    invalid({ group: '', kind: '' }, '', [
      invalidField(
        FieldPath.root('patch'),
        shownBeforePruning ?? request.shownPatch?.() ?? JSON.stringify(value),
        detail,
      ),
    ]);
  if (typed.typeError !== undefined) {
    if (!request.wholeBody) throw patchFault(typed.typeError);
    throw badRequest(`${handledAs}: ${typed.typeError}`);
  }
  // A typed decoder skips what its type does not know, so a key repeated there (or inside it) is
  // only unknown, and reports both as it meets them. An unstructured decode reads every key,
  // reporting repeats as it goes, and the pruning after it adds the unknown fields: repeats first.
  // Pruning writes a path between quotes as it is, where the decoders quote it with %q.
  const resultProblems = unstructured
    ? [
        ...repeatedKeys.fieldPaths.map((path) => `duplicate field ${goQuote(path)}`),
        ...typed.unknownFields.map((path) => `unknown field "${path}"`),
      ]
    : inOrderMet(
        typed.unknownFields,
        repeatedKeys.fieldPaths.filter((path) => !typed.unknownFields.some((field) => isAtOrUnder(path, field))),
        repeatedKeys.keysInOrder,
      );
  const problems = [...(request.patchProblems ?? []), ...resultProblems];
  const { yamlLines } = repeatedKeys;
  if (request.fieldValidation === 'Strict' && problems.length + yamlLines.length > 0) {
    // The YAML decoder's own error comes first, its lines indented under one heading.
    const yamlError = yamlLines.length > 0 ? [`yaml: unmarshal errors:\n  ${yamlLines.join('\n  ')}`] : [];
    const strictError = `strict decoding error: ${[...yamlError, ...problems].join(', ')}`;
    throw request.wholeBody ? badRequest(`${handledAs}: ${strictError}`) : patchFault(strictError);
  }
  return {
    object: typed.object as KubeObject,
    warnings: request.fieldValidation === 'Warn' ? [...yamlLines, ...problems] : [],
  };
}
