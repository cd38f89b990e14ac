/**
 * JSON values → the reference's protobuf messages, the way Go's generated code writes them:
 * each message's layout (`protobuf-layout.ts`) is compiled once into a plan of fields with their
 * keys and kinds worked out; a message is first sized (`Size()`), then written back to front
 * into a buffer of exactly that size (`MarshalToSizedBuffer`), so that a nested message's
 * length is known when its prefix is written, with no intermediate buffers, no per-field
 * allocations and no copies. Both passes visit the properties an object has (far fewer than
 * its message's fields: a PodSpec has some forty), and then the fields Go writes even when they
 * hold their zero value (every non-pointer member but slices, maps and bytes) that the object
 * lacks, so that the bytes are Go's for the same content; the writer puts them in tag order.
 *
 * Sizing alone is what lets a list stream: its total length (which the envelope states before
 * the items) is the sum of its items' sizes, and the items are then written one at a time.
 *
 * Written by hand because protobufjs's Writer allocates an operation per field and a state per
 * nested message (four times JSON.stringify's time for a list of pods), and its reflection
 * cannot map the kinds' JSON forms (times, quantities, int-or-string, raw JSON) onto messages.
 */
import { isScalar, messageLayout, wireTypeOf, WIRE_BYTES, WIRE_VARINT, type FieldLayout } from './protobuf-layout';
import type { JsonObject, JsonValue } from './protobuf';

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
const EXTENSIONS = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1';
const SCHEMA_PROPS = `${EXTENSIONS}.JSONSchemaProps`;

/** How a message's body is made from its JSON form. */
const enum Body {
  /** A JSON object of the message's fields. */
  Fields,
  /** metav1.Time and MicroTime: an RFC 3339 string as seconds (1) and nanos (2), both always written. */
  Time,
  /** resource.Quantity: the string (1). */
  Quantity,
  /** intstr.IntOrString: type (1), intVal (2), strVal (3), all always written. */
  IntOrString,
  /** RawExtension, FieldsV1, apiextensions JSON: the value's JSON text as bytes (1). */
  RawJson,
  /** Verbs and ExtraValue: a JSON array of strings as repeated strings (1). */
  StringList,
  /** JSONSchemaPropsOrBool: a boolean, or `allows` true (1) and the schema (2). */
  PropsOrBool,
  /** JSONSchemaPropsOrArray: a schema (1), or an array of schemas (2). */
  PropsOrArray,
  /** JSONSchemaPropsOrStringArray: a schema (1), or an array of strings (2). */
  PropsOrStringArray,
}

const BODY_BY_NAME: ReadonlyMap<string, Body> = new Map([
  [`${META}.Time`, Body.Time],
  [`${META}.MicroTime`, Body.Time],
  ['io.k8s.apimachinery.pkg.api.resource.Quantity', Body.Quantity],
  ['io.k8s.apimachinery.pkg.util.intstr.IntOrString', Body.IntOrString],
  ['io.k8s.apimachinery.pkg.runtime.RawExtension', Body.RawJson],
  [`${META}.FieldsV1`, Body.RawJson],
  [`${EXTENSIONS}.JSON`, Body.RawJson],
  [`${META}.Verbs`, Body.StringList],
  [`${EXTENSIONS}.JSONSchemaPropsOrBool`, Body.PropsOrBool],
  [`${EXTENSIONS}.JSONSchemaPropsOrArray`, Body.PropsOrArray],
  [`${EXTENSIONS}.JSONSchemaPropsOrStringArray`, Body.PropsOrStringArray],
]);

function bodyOf(name: string): Body {
  return BODY_BY_NAME.get(name) ?? (name.endsWith('.ExtraValue') ? Body.StringList : Body.Fields);
}

/** How one value is written. */
const enum Kind {
  String,
  /** Base64 text in JSON, raw bytes on the wire. */
  Bytes,
  Bool,
  Int32,
  Uint32,
  Sint32,
  Int64,
  Uint64,
  Sint64,
  Double,
  Float,
  Message,
  /** A proto scalar no served kind uses; writing one is an error. */
  Unsupported,
}

const KIND_BY_SCALAR: ReadonlyMap<string, Kind> = new Map([
  ['string', Kind.String],
  ['bytes', Kind.Bytes],
  ['bool', Kind.Bool],
  ['int32', Kind.Int32],
  ['uint32', Kind.Uint32],
  ['sint32', Kind.Sint32],
  ['int64', Kind.Int64],
  ['uint64', Kind.Uint64],
  ['sint64', Kind.Sint64],
  ['double', Kind.Double],
  ['float', Kind.Float],
]);

/** A message compiled for writing. */
interface MessagePlan {
  readonly body: Body;
  /** For `Body.Fields`: the fields by JSON property, embedded structs left out. */
  readonly byName: ReadonlyMap<string, FieldPlan>;
  /** The embedded structs, whose properties sit in this message's JSON object. */
  readonly embedded: readonly FieldPlan[];
  /** The fields Go writes even when zero (non-pointer members, not repeated, not maps, not bytes). */
  readonly alwaysWritten: readonly FieldPlan[];
}

/** One field (or embedded struct) of a message, with everything the writers need precomputed. */
interface FieldPlan {
  /** The JSON property; unused for an embedded struct, which reads the parent's object. */
  readonly name: string;
  readonly embedded: boolean;
  readonly tag: number;
  /** The field's key (tag and wire type) as a varint value, and its encoded size. */
  readonly key: number;
  readonly keySize: number;
  readonly kind: Kind;
  /** The scalar or message name, for errors and for resolving `message`. */
  readonly type: string;
  readonly repeated: boolean;
  /** A map field: each entry is a message of `mapKey` (1) and `mapValue` (2). */
  readonly mapKey: FieldPlan | undefined;
  readonly mapValue: FieldPlan | undefined;
  /** A zero time is `null` in JSON and an empty message on the wire. */
  readonly nullIsEmptyMessage: boolean;
  /** The Go member is a pointer: written only when set. */
  readonly pointer: boolean;
  /** Resolved on first use: a message's layout may be missing where no value ever needs it. */
  message: MessagePlan | undefined;
}

const plans = new Map<string, MessagePlan>();

/**
 * The plan of message `name`; throws for a name without protobuf facts. Fields' message plans
 * resolve on first use, so recursive messages (JSONSchemaProps) compile.
 */
function planFor(name: string): MessagePlan {
  let plan = plans.get(name);
  if (plan === undefined) {
    const body = bodyOf(name);
    const fields = body === Body.Fields ? fieldPlansOf(name) : [];
    plan = {
      body,
      byName: new Map(fields.filter((field) => !field.embedded).map((field) => [field.name, field])),
      embedded: fields.filter((field) => field.embedded),
      alwaysWritten: fields.filter(
        (field) =>
          !field.embedded &&
          !field.pointer &&
          !field.repeated &&
          field.mapKey === undefined &&
          field.kind !== Kind.Bytes,
      ),
    };
    plans.set(name, plan);
  }
  return plan;
}

function fieldPlansOf(name: string): FieldPlan[] {
  return messageLayout(name).ordered.map((entry) =>
    'inline' in entry
      ? fieldPlan({ name: '', tag: entry.inline.tag, type: entry.inline.type, embedded: true })
      : fieldPlanOf(entry.field),
  );
}

function fieldPlanOf(field: FieldLayout): FieldPlan {
  return fieldPlan({
    name: field.name,
    tag: field.tag,
    type: field.type,
    repeated: field.repeated,
    pointer: field.pointer,
    ...(field.map === undefined
      ? {}
      : {
          mapKey: fieldPlan({ name: '', tag: 1, type: field.map.keyType }),
          mapValue: fieldPlan({ name: '', tag: 2, type: field.map.valueType }),
        }),
  });
}

/** Every plan is made here, so that all share one shape and the writers' property reads stay monomorphic. */
function fieldPlan(options: {
  name: string;
  tag: number;
  type: string;
  repeated?: boolean;
  pointer?: boolean;
  embedded?: boolean;
  mapKey?: FieldPlan;
  mapValue?: FieldPlan;
}): FieldPlan {
  const { tag, type } = options;
  const scalar = isScalar(type);
  const wire = options.mapKey !== undefined || options.embedded || !scalar ? WIRE_BYTES : wireTypeOf(type);
  const key = ((tag << 3) | wire) >>> 0;
  const body = scalar ? undefined : bodyOf(type);
  return {
    name: options.name,
    embedded: options.embedded === true,
    tag,
    key,
    keySize: varint32Size(key),
    kind: scalar ? (KIND_BY_SCALAR.get(type) ?? Kind.Unsupported) : Kind.Message,
    type,
    repeated: options.repeated === true,
    mapKey: options.mapKey,
    mapValue: options.mapValue,
    nullIsEmptyMessage: body === Body.Time,
    pointer: options.pointer === true,
    message: undefined,
  };
}

function messageOf(field: FieldPlan): MessagePlan {
  return (field.message ??= planFor(field.type));
}

// ---------------------------------------------------------------------------------------------
// Scalars: sizes and conversions shared by both passes

function varint32Size(value: number): number {
  if (value < 0x80) return 1;
  if (value < 0x4000) return 2;
  if (value < 0x200000) return 3;
  if (value < 0x10000000) return 4;
  return 5;
}

/** A 64-bit varint's halves, as protobufjs (and Go, for integral values) derive them from a number. */
let bitsLow = 0;
let bitsHigh = 0;

function setInt64Bits(value: number): void {
  const negative = value < 0;
  const magnitude = negative ? -value : value;
  let low = magnitude >>> 0;
  let high = ((magnitude - low) / 4294967296) >>> 0;
  if (negative) {
    high = ~high >>> 0;
    low = ~low >>> 0;
    if (++low > 4294967295) {
      low = 0;
      if (++high > 4294967295) high = 0;
    }
  }
  bitsLow = low;
  bitsHigh = high;
}

function zigZagBits(): void {
  const mask = bitsHigh >> 31;
  bitsHigh = (((bitsHigh << 1) | (bitsLow >>> 31)) ^ mask) >>> 0;
  bitsLow = ((bitsLow << 1) ^ mask) >>> 0;
}

function varint64BitsSize(): number {
  let low = bitsLow;
  let high = bitsHigh;
  let size = 1;
  while (high !== 0) {
    size++;
    low = ((low >>> 7) | (high << 25)) >>> 0;
    high >>>= 7;
  }
  while (low > 127) {
    size++;
    low >>>= 7;
  }
  return size;
}

function int64Size(value: number): number {
  if (value >= 0 && value < 0x10000000 && value === Math.floor(value)) return varint32Size(value);
  setInt64Bits(value);
  return varint64BitsSize();
}

/** int32 as protobufjs and Go write it: negative values sign-extended to ten bytes, others as uint32. */
function int32Size(value: number): number {
  return value < 0 ? int64Size(value) : varint32Size(value >>> 0);
}

function sint64Size(value: number): number {
  setInt64Bits(value);
  zigZagBits();
  return varint64BitsSize();
}

function zigZag32(value: number): number {
  return ((value << 1) ^ (value >> 31)) >>> 0;
}

/** The UTF-8 length of a string; most are short and ASCII, which a loop answers faster than a call into C++. */
export function utf8Length(text: string): number {
  const length = text.length;
  if (length > 32) return Buffer.byteLength(text, 'utf8');
  for (let index = 0; index < length; index++) {
    if (text.charCodeAt(index) >= 0x80) return Buffer.byteLength(text, 'utf8');
  }
  return length;
}

function stringOf(value: JsonValue): string {
  return typeof value === 'string' ? value : String(value);
}

/** RFC 3339 text as seconds and nanoseconds; the last answer is kept, since a list repeats its times. */
let lastTimeText = '';
let lastSeconds = 0;
let lastNanos = 0;

function parseTime(text: string): void {
  if (text === lastTimeText) return;
  const milliseconds = Date.parse(text);
  if (Number.isNaN(milliseconds)) throw new Error(`invalid time ${JSON.stringify(text)}`);
  const dot = text.indexOf('.');
  let nanos = 0;
  if (dot >= 0) {
    let digits = 0;
    for (let index = dot + 1; index < text.length && digits < 9; index++, digits++) {
      const code = text.charCodeAt(index);
      if (code < 0x30 || code > 0x39) break;
      nanos = nanos * 10 + (code - 0x30);
    }
    for (; digits < 9; digits++) nanos *= 10;
  }
  lastTimeText = text;
  lastSeconds = Math.floor(milliseconds / 1000);
  lastNanos = nanos;
}

function unsupported(field: FieldPlan): Error {
  return new Error(`protobuf scalar ${field.type} is not supported`);
}

// ---------------------------------------------------------------------------------------------
// Sizing

/** The encoded size of message `plan`'s body for `value` (no key, no length prefix). */
function bodySize(plan: MessagePlan, value: JsonValue): number {
  switch (plan.body) {
    case Body.Fields:
      return fieldsSize(plan, typeof value === 'object' && value !== null ? (value as JsonObject) : EMPTY);
    case Body.Time: {
      parseTime(stringOf(value));
      // A set time writes both, zero or not (Go's Timestamp); a zero time (null) is an empty message.
      return 1 + int64Size(lastSeconds) + 1 + int64Size(lastNanos);
    }
    case Body.Quantity:
      return lengthDelimitedSize(1, utf8Length(stringOf(value)));
    case Body.IntOrString: {
      const isInt = typeof value === 'number';
      return 2 + (isInt ? 1 + int32Size(value) : 2) + lengthDelimitedSize(1, isInt ? 0 : utf8Length(stringOf(value)));
    }
    case Body.RawJson:
      return lengthDelimitedSize(1, Buffer.byteLength(JSON.stringify(value), 'utf8'));
    case Body.StringList:
      return stringListSize(value);
    case Body.PropsOrBool:
      return typeof value === 'boolean' ? 2 : 2 + nestedSize(planFor(SCHEMA_PROPS), value);
    case Body.PropsOrArray: {
      if (!Array.isArray(value)) return nestedSize(planFor(SCHEMA_PROPS), value);
      let size = 0;
      for (const item of value) size += nestedSize(planFor(SCHEMA_PROPS), item);
      return size;
    }
    case Body.PropsOrStringArray:
      return Array.isArray(value) ? stringListSize(value) : nestedSize(planFor(SCHEMA_PROPS), value);
  }
}

const EMPTY: JsonObject = {};

/** A one-byte key, a length and that many bytes. */
function lengthDelimitedSize(keySize: number, length: number): number {
  return keySize + varint32Size(length) + length;
}

/** A message as a field with a one-byte key. */
function nestedSize(plan: MessagePlan, value: JsonValue): number {
  return lengthDelimitedSize(1, bodySize(plan, value));
}

function stringListSize(value: JsonValue): number {
  const items = value as JsonValue[];
  let size = 0;
  for (let index = 0; index < items.length; index++) size += lengthDelimitedSize(1, utf8Length(stringOf(items[index])));
  return size;
}

/** Sizes are order-free, so the object's own properties are visited: fewer than its message's fields. */
function fieldsSize(plan: MessagePlan, object: JsonObject): number {
  let size = 0;
  for (const name in object) {
    const field = plan.byName.get(name);
    if (field === undefined) continue;
    const value = object[name];
    if (value === undefined) continue;
    if (value === null) {
      if (field.nullIsEmptyMessage) size += field.keySize + 1;
      continue;
    }
    if (field.mapKey !== undefined) {
      size += mapSize(field, value as JsonObject);
    } else if (field.repeated) {
      const items = value as JsonValue[];
      for (let item = 0; item < items.length; item++) size += singleSize(field, items[item]);
    } else {
      size += singleSize(field, value);
    }
  }
  const embedded = plan.embedded;
  for (let index = 0; index < embedded.length; index++) {
    // Embedded structs are non-pointers in the reference: always written, maybe empty.
    size += lengthDelimitedSize(embedded[index].keySize, bodySize(messageOf(embedded[index]), object));
  }
  const alwaysWritten = plan.alwaysWritten;
  for (let index = 0; index < alwaysWritten.length; index++) {
    const field = alwaysWritten[index];
    if (lacks(object, field)) size += zeroSize(field);
  }
  return size;
}

/** Whether the object leaves out a field Go always writes (absent, or null where null is not a zero time). */
function lacks(object: JsonObject, field: FieldPlan): boolean {
  const value = object[field.name];
  return value === undefined || (value === null && !field.nullIsEmptyMessage);
}

/**
 * The JSON value whose encoding is Go's zero value of a message; undefined for an empty body
 * (a zero time, raw JSON with no bytes, empty lists). A zero Quantity is written as "0".
 */
function zeroValueOf(plan: MessagePlan): JsonValue | undefined {
  switch (plan.body) {
    case Body.Fields:
      return EMPTY;
    case Body.Quantity:
      return '0';
    case Body.IntOrString:
      return 0;
    case Body.PropsOrBool:
      return false;
    default:
      return undefined;
  }
}

/** A field Go writes though zero: its key and zero value. */
function zeroSize(field: FieldPlan): number {
  switch (field.kind) {
    case Kind.Message: {
      const plan = messageOf(field);
      const zero = zeroValueOf(plan);
      return lengthDelimitedSize(field.keySize, zero === undefined ? 0 : bodySize(plan, zero));
    }
    case Kind.Double:
      return field.keySize + 8;
    case Kind.Float:
      return field.keySize + 4;
    case Kind.Unsupported:
      throw unsupported(field);
    default:
      // An empty string's length, or a varint 0.
      return field.keySize + 1;
  }
}

function mapSize(field: FieldPlan, map: JsonObject): number {
  const keyField = field.mapKey as FieldPlan;
  const valueField = field.mapValue as FieldPlan;
  let size = 0;
  for (const key in map) {
    const value = map[key];
    const entry = singleSize(keyField, key) + (value !== null ? singleSize(valueField, value) : 0);
    size += lengthDelimitedSize(field.keySize, entry);
  }
  return size;
}

/** One value of `field` with its key. */
function singleSize(field: FieldPlan, value: JsonValue): number {
  switch (field.kind) {
    case Kind.String:
      return lengthDelimitedSize(field.keySize, utf8Length(stringOf(value)));
    case Kind.Message:
      return lengthDelimitedSize(field.keySize, bodySize(messageOf(field), value));
    case Kind.Bool:
      return field.keySize + 1;
    case Kind.Int32:
      return field.keySize + int32Size(Number(value));
    case Kind.Int64:
    case Kind.Uint64:
      return field.keySize + int64Size(Number(value));
    case Kind.Uint32:
      return field.keySize + varint32Size(Number(value) >>> 0);
    case Kind.Sint32:
      return field.keySize + varint32Size(zigZag32(Number(value)));
    case Kind.Sint64:
      return field.keySize + sint64Size(Number(value));
    case Kind.Double:
      return field.keySize + 8;
    case Kind.Float:
      return field.keySize + 4;
    case Kind.Bytes:
      // Decoded, not estimated from the text's length: Buffer.from skips what is not base64.
      return lengthDelimitedSize(field.keySize, Buffer.from(stringOf(value), 'base64').length);
    case Kind.Unsupported:
      throw unsupported(field);
  }
}

// ---------------------------------------------------------------------------------------------
// Writing, back to front: the last field first, each value before its length and key

/** Go sorts map keys bytewise; UTF-16 order differs from it only where a key holds a surrogate. */
function sortedKeys(map: JsonObject): string[] {
  const keys = Object.keys(map);
  if (keys.length < 2) return keys;
  if (keys.some((key) => /[\ud800-\udfff]/.test(key)))
    return keys.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  return keys.sort();
}

/** A buffer filled from its end; `position` is where the bytes written so far begin. */
class ReverseWriter {
  constructor(
    readonly buffer: Buffer,
    public position: number,
  ) {}

  byte(value: number): void {
    this.buffer[--this.position] = value;
  }

  varint32(value: number): void {
    let position = (this.position -= varint32Size(value));
    const buffer = this.buffer;
    while (value > 127) {
      buffer[position++] = (value & 127) | 128;
      value >>>= 7;
    }
    buffer[position] = value;
  }

  /** The 64-bit varint of `bitsLow`/`bitsHigh`. */
  varint64Bits(): void {
    let position = (this.position -= varint64BitsSize());
    const buffer = this.buffer;
    let low = bitsLow;
    let high = bitsHigh;
    while (high !== 0) {
      buffer[position++] = (low & 127) | 128;
      low = ((low >>> 7) | (high << 25)) >>> 0;
      high >>>= 7;
    }
    while (low > 127) {
      buffer[position++] = (low & 127) | 128;
      low >>>= 7;
    }
    buffer[position] = low;
  }

  int32(value: number): void {
    if (value < 0) this.int64(value);
    else this.varint32(value >>> 0);
  }

  int64(value: number): void {
    if (value >= 0 && value < 0x10000000 && value === Math.floor(value)) {
      this.varint32(value);
      return;
    }
    setInt64Bits(value);
    this.varint64Bits();
  }

  /** The string's bytes, then its length before them. */
  string(text: string): void {
    const end = this.position;
    const buffer = this.buffer;
    const length = text.length;
    let position = end;
    let ascii = length <= 32;
    for (let index = length - 1; ascii && index >= 0; index--) {
      const code = text.charCodeAt(index);
      if (code >= 0x80) ascii = false;
      else buffer[--position] = code;
    }
    if (!ascii) {
      const byteLength = Buffer.byteLength(text, 'utf8');
      position = end - byteLength;
      buffer.write(text, position, byteLength, 'utf8');
    }
    this.position = position;
    this.varint32(end - position);
  }

  bytes(bytes: Buffer): void {
    this.position -= bytes.length;
    bytes.copy(this.buffer, this.position);
    this.varint32(bytes.length);
  }

  key(field: FieldPlan): void {
    if (field.keySize === 1) this.byte(field.key);
    else this.varint32(field.key);
  }

  /** The length of what was written since `end`, then the key. */
  delimit(end: number, field: FieldPlan): void {
    this.varint32(end - this.position);
    this.key(field);
  }
}

function writeBody(writer: ReverseWriter, plan: MessagePlan, value: JsonValue): void {
  switch (plan.body) {
    case Body.Fields:
      writeFields(writer, plan, typeof value === 'object' && value !== null ? (value as JsonObject) : EMPTY);
      return;
    case Body.Time: {
      parseTime(stringOf(value));
      const nanos = lastNanos;
      const seconds = lastSeconds;
      writer.int64(nanos);
      writer.byte((2 << 3) | WIRE_VARINT);
      writer.int64(seconds);
      writer.byte((1 << 3) | WIRE_VARINT);
      return;
    }
    case Body.Quantity:
      writer.string(stringOf(value));
      writer.byte((1 << 3) | WIRE_BYTES);
      return;
    case Body.IntOrString: {
      const isInt = typeof value === 'number';
      writer.string(isInt ? '' : stringOf(value));
      writer.byte((3 << 3) | WIRE_BYTES);
      writer.int32(isInt ? value : 0);
      writer.byte((2 << 3) | WIRE_VARINT);
      writer.byte(isInt ? 0 : 1);
      writer.byte((1 << 3) | WIRE_VARINT);
      return;
    }
    case Body.RawJson:
      writer.string(JSON.stringify(value));
      writer.byte((1 << 3) | WIRE_BYTES);
      return;
    case Body.StringList:
      writeStringList(writer, value as JsonValue[]);
      return;
    case Body.PropsOrBool:
      if (typeof value === 'boolean') {
        writer.byte(value ? 1 : 0);
      } else {
        writeNested(writer, (2 << 3) | WIRE_BYTES, value);
        writer.byte(1);
      }
      writer.byte((1 << 3) | WIRE_VARINT);
      return;
    case Body.PropsOrArray:
      if (Array.isArray(value))
        for (let index = value.length - 1; index >= 0; index--)
          writeNested(writer, (2 << 3) | WIRE_BYTES, value[index]);
      else writeNested(writer, (1 << 3) | WIRE_BYTES, value);
      return;
    case Body.PropsOrStringArray:
      if (Array.isArray(value)) writeStringList(writer, value, (2 << 3) | WIRE_BYTES);
      else writeNested(writer, (1 << 3) | WIRE_BYTES, value);
      return;
  }
}

function writeStringList(writer: ReverseWriter, items: readonly JsonValue[], key = (1 << 3) | WIRE_BYTES): void {
  for (let index = items.length - 1; index >= 0; index--) {
    writer.string(stringOf(items[index]));
    writer.byte(key);
  }
}

/** A JSONSchemaProps as a field with a one-byte key. */
function writeNested(writer: ReverseWriter, key: number, value: JsonValue): void {
  const end = writer.position;
  writeBody(writer, planFor(SCHEMA_PROPS), value);
  writer.varint32(end - writer.position);
  writer.byte(key);
}

/**
 * The fields present in the objects being written, in tag order: one segment per message being
 * written, above its parent's. Kept across calls so that writing allocates nothing.
 */
const presentFields: FieldPlan[] = [];
const presentValues: JsonValue[] = [];
let presentTop = 0;

/** Adds a present field to the current segment (from `base`), keeping the segment in tag order. */
function pushPresent(base: number, field: FieldPlan, value: JsonValue): void {
  let index = presentTop++;
  while (index > base && presentFields[index - 1].tag > field.tag) {
    presentFields[index] = presentFields[index - 1];
    presentValues[index] = presentValues[index - 1];
    index--;
  }
  presentFields[index] = field;
  presentValues[index] = value;
}

/** The object's own properties are visited (fewer than its message's fields), then written last tag first. */
function writeFields(writer: ReverseWriter, plan: MessagePlan, object: JsonObject): void {
  const base = presentTop;
  for (const name in object) {
    const field = plan.byName.get(name);
    if (field === undefined) continue;
    const value = object[name];
    if (value !== undefined) pushPresent(base, field, value);
  }
  const embedded = plan.embedded;
  for (let index = 0; index < embedded.length; index++) pushPresent(base, embedded[index], object);
  const alwaysWritten = plan.alwaysWritten;
  for (let index = 0; index < alwaysWritten.length; index++) {
    if (lacks(object, alwaysWritten[index])) pushPresent(base, alwaysWritten[index], ZERO);
  }
  const top = presentTop;
  for (let index = top - 1; index >= base; index--) {
    const field = presentFields[index];
    const value = presentValues[index];
    if (value === ZERO) {
      writeZero(writer, field);
    } else if (field.embedded) {
      // Embedded structs are non-pointers in the reference: always written, maybe empty.
      const end = writer.position;
      writeBody(writer, messageOf(field), value);
      writer.delimit(end, field);
    } else if (value === null) {
      if (field.nullIsEmptyMessage) {
        writer.byte(0);
        writer.key(field);
      }
    } else if (field.mapKey !== undefined) {
      writeMap(writer, field, value as JsonObject);
    } else if (field.repeated) {
      const items = value as JsonValue[];
      for (let item = items.length - 1; item >= 0; item--) writeSingle(writer, field, items[item]);
    } else {
      writeSingle(writer, field, value);
    }
  }
  // Nested messages used the stack above `top` and gave it back; drop this segment's references.
  for (let index = base; index < top; index++) presentValues[index] = null;
  presentTop = base;
}

/** Marks, in the present fields, one the object lacks that is written as its zero value. */
const ZERO: JsonObject = {};

function writeZero(writer: ReverseWriter, field: FieldPlan): void {
  switch (field.kind) {
    case Kind.Message: {
      const end = writer.position;
      const plan = messageOf(field);
      const zero = zeroValueOf(plan);
      if (zero !== undefined) writeBody(writer, plan, zero);
      writer.varint32(end - writer.position);
      break;
    }
    case Kind.Double:
    case Kind.Float: {
      const width = field.kind === Kind.Double ? 8 : 4;
      writer.position -= width;
      writer.buffer.fill(0, writer.position, writer.position + width);
      break;
    }
    default:
      writer.byte(0);
  }
  writer.key(field);
}

function writeMap(writer: ReverseWriter, field: FieldPlan, map: JsonObject): void {
  const keyField = field.mapKey as FieldPlan;
  const valueField = field.mapValue as FieldPlan;
  const keys = sortedKeys(map);
  for (let index = keys.length - 1; index >= 0; index--) {
    const key = keys[index];
    const value = map[key];
    const end = writer.position;
    if (value !== null) writeSingle(writer, valueField, value);
    writeSingle(writer, keyField, key);
    writer.delimit(end, field);
  }
}

function writeSingle(writer: ReverseWriter, field: FieldPlan, value: JsonValue): void {
  switch (field.kind) {
    case Kind.String:
      writer.string(stringOf(value));
      break;
    case Kind.Message: {
      const end = writer.position;
      writeBody(writer, messageOf(field), value);
      writer.varint32(end - writer.position);
      break;
    }
    case Kind.Bool:
      writer.byte(value === true ? 1 : 0);
      break;
    case Kind.Int32:
      writer.int32(Number(value));
      break;
    case Kind.Int64:
    case Kind.Uint64:
      writer.int64(Number(value));
      break;
    case Kind.Uint32:
      writer.varint32(Number(value) >>> 0);
      break;
    case Kind.Sint32:
      writer.varint32(zigZag32(Number(value)));
      break;
    case Kind.Sint64:
      setInt64Bits(Number(value));
      zigZagBits();
      writer.varint64Bits();
      break;
    case Kind.Double:
      writer.position -= 8;
      writer.buffer.writeDoubleLE(Number(value), writer.position);
      break;
    case Kind.Float:
      writer.position -= 4;
      writer.buffer.writeFloatLE(Number(value), writer.position);
      break;
    case Kind.Bytes:
      writer.bytes(Buffer.from(stringOf(value), 'base64'));
      break;
    case Kind.Unsupported:
      throw unsupported(field);
  }
  writer.key(field);
}

// ---------------------------------------------------------------------------------------------
// The interface: size, then write into a slice of exactly that size

/** The size of a length-delimited field: key, length, then `length` bytes. */
export function lengthDelimitedFieldSize(tag: number, length: number): number {
  return lengthDelimitedSize(varint32Size(((tag << 3) | WIRE_BYTES) >>> 0), length);
}

/** A message compiled once for repeated writing. */
export interface MessageEncoder {
  /** The body's encoded size (no key, no length prefix). */
  size(value: JsonValue): number;
  /**
   * Writes the body into `target` so that it ends at `end`, preceded by its length and the key
   * of field `tag` when one is given; `size` is what `size()` answered for the value.
   */
  writeInto(options: { value: JsonValue; size: number; target: Buffer; end: number; tag?: number }): void;
}

/** The encoder of message `type` (a definition name); throws for a name without protobuf facts. */
export function messageEncoder(type: string): MessageEncoder {
  const plan = planFor(type);
  return {
    size: (value) => bodySize(plan, value),
    writeInto: ({ value, size, target, end, tag }) => {
      const writer = new ReverseWriter(target, end);
      // A write that failed half-way left its segments on the stack.
      presentTop = 0;
      writeBody(writer, plan, value);
      // Objects served are not copied; one changed between sizing and writing would corrupt the stream.
      if (end - writer.position !== size)
        throw new Error(`${type} changed while it was written: sized ${size} bytes, wrote ${end - writer.position}`);
      if (tag !== undefined) {
        writer.varint32(size);
        writer.varint32(((tag << 3) | WIRE_BYTES) >>> 0);
      }
    },
  };
}

/** Encodes a JSON value as message `type`, without any envelope. */
export function encodeMessage(value: JsonValue, type: string): Buffer {
  return encodeWith(messageEncoder(type), value);
}

/** Encodes a JSON value with a compiled encoder: the message's body alone, in a buffer of its own. */
export function encodeWith(encoder: MessageEncoder, value: JsonValue): Buffer {
  const size = encoder.size(value);
  const target = Buffer.allocUnsafe(size);
  encoder.writeInto({ value, size, target, end: size });
  return target;
}
