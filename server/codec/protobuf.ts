/**
 * The reference's protobuf messages → JSON values, driven by the layouts of `protobuf-layout.ts`.
 * protobufjs supplies the wire-level Reader; what is read here is the mapping between a kind's
 * generated message and its JSON form, including the few messages whose JSON form is not an
 * object of their fields. Writing is `protobuf-encoder.ts`.
 */
import { Reader, util, type Long } from 'protobufjs/minimal';
import {
  isScalar,
  messageLayout,
  wireTypeOf,
  WIRE_BYTES,
  type FieldLayout,
  type MessageLayout,
} from './protobuf-layout';
import { sharedFieldsV1 } from './shared-field-sets';
import { readSharedString, sharedUtf8 } from './short-strings';
import { metaTimeAt } from '../../api/objects';

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
const EXTENSIONS = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1';
const TIME = `${META}.Time`;
const OBJECT_META = `${META}.ObjectMeta`;
const MICRO_TIME = `${META}.MicroTime`;
const FIELDS_V1 = `${META}.FieldsV1`;
const VERBS = `${META}.Verbs`;
const QUANTITY = 'io.k8s.apimachinery.pkg.api.resource.Quantity';
const INT_OR_STRING = 'io.k8s.apimachinery.pkg.util.intstr.IntOrString';
const RAW_EXTENSION = 'io.k8s.apimachinery.pkg.runtime.RawExtension';
const EXTENSIONS_JSON = `${EXTENSIONS}.JSON`;
const PROPS_OR_BOOL = `${EXTENSIONS}.JSONSchemaPropsOrBool`;
const PROPS_OR_ARRAY = `${EXTENSIONS}.JSONSchemaPropsOrArray`;
const PROPS_OR_STRING_ARRAY = `${EXTENSIONS}.JSONSchemaPropsOrStringArray`;

function isExtraValue(type: string): boolean {
  return type.endsWith('.ExtraValue');
}

// ---------------------------------------------------------------------------------------------
// Decoding

/** protobufjs answers 64-bit integers as `Long` when the `long` package is present, else as numbers. */
function toNumber(value: number | Long, unsigned = false): number {
  return typeof value === 'number' ? value : util.LongBits.from(value).toNumber(unsigned);
}

/**
 * How a decode reads what is not on the wire. `nilListsAsNull`: a list or map member without
 * `omitempty` reads as `null` when absent, as Go prints the nil slice it decodes to; for stored
 * objects, which are served as read. A request body leaves it absent, as the handlers expect of
 * a member the client did not send. `sharedFieldSets`: FieldsV1 values are shared between
 * objects whose entries are the same bytes (shared-field-sets.ts); for stored objects, which
 * nothing changes in place, not for a request body, which the handlers fill in.
 */
export interface ReadOptions {
  readonly nilListsAsNull: boolean;
  readonly sharedFieldSets: boolean;
}

const AS_SENT: ReadOptions = { nilListsAsNull: false, sharedFieldSets: false };

/** Reads a length-delimited message body from the reader's position. */
function readNested(reader: Reader, type: string, options: ReadOptions): JsonValue | undefined {
  const length = reader.uint32();
  return readMessage(reader, reader.pos + length, type, options);
}

/**
 * Decodes message `type` from `reader` up to `end` into its JSON form.
 */
export function readMessage(
  reader: Reader,
  end: number,
  type: string,
  options: ReadOptions = AS_SENT,
): JsonValue | undefined {
  switch (type) {
    case TIME:
    case MICRO_TIME: {
      let seconds = 0;
      let nanos = 0;
      while (reader.pos < end) {
        const key = reader.uint32();
        if (key >>> 3 === 1) seconds = toNumber(reader.int64());
        else if (key >>> 3 === 2) nanos = reader.int32();
        else reader.skipType(key & 7);
      }
      if (seconds === 0 && nanos === 0) return null;
      return formatTime(seconds, nanos, type === MICRO_TIME);
    }
    case QUANTITY:
    case EXTENSIONS_JSON:
    case RAW_EXTENSION:
    case FIELDS_V1: {
      let content: Uint8Array = new Uint8Array(0);
      while (reader.pos < end) {
        const key = reader.uint32();
        if (key >>> 3 === 1) content = reader.bytes();
        else reader.skipType(key & 7);
      }
      if (type === QUANTITY) return sharedUtf8(content);
      if (type === FIELDS_V1 && options.sharedFieldSets && content.length > 0)
        return sharedFieldsV1(content) as JsonValue;
      return content.length === 0 ? null : (JSON.parse(Buffer.from(content).toString('utf8')) as JsonValue);
    }
    case INT_OR_STRING: {
      let kind = 0;
      let intVal = 0;
      let strVal = '';
      while (reader.pos < end) {
        const key = reader.uint32();
        const tag = key >>> 3;
        if (tag === 1) kind = toNumber(reader.int64());
        else if (tag === 2) intVal = reader.int32();
        else if (tag === 3) strVal = readSharedString(reader);
        else reader.skipType(key & 7);
      }
      return kind === 1 ? strVal : intVal;
    }
    case PROPS_OR_BOOL: {
      let allows = false;
      let schema: JsonValue | undefined;
      while (reader.pos < end) {
        const key = reader.uint32();
        if (key >>> 3 === 1) allows = reader.bool();
        else if (key >>> 3 === 2) schema = readNested(reader, `${EXTENSIONS}.JSONSchemaProps`, options);
        else reader.skipType(key & 7);
      }
      return schema ?? allows;
    }
    case PROPS_OR_ARRAY:
    case PROPS_OR_STRING_ARRAY: {
      let schema: JsonValue | undefined;
      const items: JsonValue[] = [];
      while (reader.pos < end) {
        const key = reader.uint32();
        if (key >>> 3 === 1) schema = readNested(reader, `${EXTENSIONS}.JSONSchemaProps`, options);
        else if (key >>> 3 === 2)
          items.push(
            type === PROPS_OR_ARRAY
              ? (readNested(reader, `${EXTENSIONS}.JSONSchemaProps`, options) ?? {})
              : reader.string(),
          );
        else reader.skipType(key & 7);
      }
      return schema ?? items;
    }
  }
  if (type === VERBS || isExtraValue(type)) {
    const items: JsonValue[] = [];
    while (reader.pos < end) {
      const key = reader.uint32();
      if (key >>> 3 === 1) items.push(readSharedString(reader));
      else reader.skipType(key & 7);
    }
    return items;
  }
  const object: JsonObject = {};
  readFields(reader, end, messageLayout(type), object, options);
  // The one Time the reference leaves out of JSON when zero (omitzero since 1.34): a template's.
  if (type === OBJECT_META && object.creationTimestamp === null) delete object.creationTimestamp;
  return object;
}

function readFields(
  reader: Reader,
  end: number,
  layout: MessageLayout,
  object: JsonObject,
  options: ReadOptions,
): void {
  while (reader.pos < end) {
    const key = reader.uint32();
    const tag = key >>> 3;
    const wire = key & 7;
    const field = layout.byTag.get(tag);
    if (field === undefined) {
      const inline = layout.inlineByTag.get(tag);
      if (inline !== undefined && wire === WIRE_BYTES) {
        const length = reader.uint32();
        readFields(reader, reader.pos + length, messageLayout(inline.type), object, options);
      } else {
        reader.skipType(wire);
      }
      continue;
    }
    readField(reader, field, wire, object, options);
  }
  // A list grown item by item keeps room for 16 more (V8 grows an array's store by half plus
  // 16): most lists of an object hold one or two items, so a stored pod kept a tenth of its
  // heap in that slack. A copy is exactly as long.
  for (const name of layout.lists) {
    const list = object[name];
    if (Array.isArray(list) && list.length > 0) object[name] = list.slice();
  }
  // A list's items are written even when empty (`"items": []`), as the reference's lists are.
  if (layout.name.endsWith('List') && layout.byTag.get(2)?.name === 'items' && object.items === undefined)
    object.items = [];
  if (options.nilListsAsNull)
    for (const name of layout.nullWhenAbsent) if (object[name] === undefined) object[name] = null;
}

function readField(reader: Reader, field: FieldLayout, wire: number, object: JsonObject, options: ReadOptions): void {
  if (field.map) {
    const length = reader.uint32();
    const end = reader.pos + length;
    let key = '';
    let value: JsonValue | undefined;
    while (reader.pos < end) {
      const entryKey = reader.uint32();
      if (entryKey >>> 3 === 1) key = String(readSingle(reader, field.map.keyType, options));
      else if (entryKey >>> 3 === 2) value = readSingle(reader, field.map.valueType, options);
      else reader.skipType(entryKey & 7);
    }
    const map = (object[field.name] ??= {}) as JsonObject;
    map[key] = value ?? zeroOf(field.map.valueType);
    return;
  }
  if (field.repeated) {
    const list = (object[field.name] ??= []) as JsonValue[];
    // Scalars may arrive packed, whatever the reference's own writers do.
    if (isScalar(field.type) && wire === WIRE_BYTES && wireTypeOf(field.type) !== WIRE_BYTES) {
      const end = reader.uint32() + reader.pos;
      while (reader.pos < end) list.push(readSingle(reader, field.type, options) as JsonValue);
    } else {
      list.push(readSingle(reader, field.type, options) ?? {});
    }
    return;
  }
  const value = readSingle(reader, field.type, options);
  if (value === undefined) return;
  if (isScalar(field.type) && isZero(value) && !keepsZero(field)) return;
  object[field.name] = value;
}

/**
 * A zero scalar stays in JSON when the Go member is a pointer (set, so present) or is written
 * even when zero; other zeros are `omitempty` members the reference's clients write anyway
 * (every non-pointer member is on the wire), and an empty `restartPolicy` must read as absent
 * for defaulting to apply.
 */
function keepsZero(field: FieldLayout): boolean {
  return field.alwaysInJSON || field.pointer;
}

function isZero(value: JsonValue): boolean {
  return value === '' || value === 0 || value === false;
}

function zeroOf(type: string): JsonValue {
  if (type === 'string' || type === 'bytes') return '';
  if (type === 'bool') return false;
  if (isScalar(type)) return 0;
  return {};
}

function readSingle(reader: Reader, type: string, options: ReadOptions): JsonValue | undefined {
  switch (type) {
    case 'string':
      return readSharedString(reader);
    case 'bytes':
      return Buffer.from(reader.bytes()).toString('base64');
    case 'bool':
      return reader.bool();
    case 'int32':
      return reader.int32();
    case 'uint32':
      return reader.uint32();
    case 'sint32':
      return reader.sint32();
    case 'int64':
      return toNumber(reader.int64());
    case 'uint64':
      return toNumber(reader.uint64(), true);
    case 'sint64':
      return toNumber(reader.sint64());
    case 'double':
      return reader.double();
    case 'float':
      return reader.float();
    default:
      return readNested(reader, type, options);
  }
}

/** Decodes message `type` from bytes holding exactly that message. */
export function decodeMessage(bytes: Uint8Array, type: string, options: ReadOptions = AS_SENT): JsonValue | undefined {
  const reader = Reader.create(bytes);
  return readMessage(reader, bytes.length, type, options);
}

// ---------------------------------------------------------------------------------------------
// Times: metav1.Time is RFC 3339 to the second, MicroTime to the microsecond, both in UTC.

/**
 * The last second of a MicroTime formatted, without its fraction and zone: a burst of objects
 * decoded one after another mostly shares one. A Time is metaTimeAt's, which keeps its own.
 */
let lastMicroSeconds = Number.NaN;
let lastMicroSecondText = '';

function formatTime(seconds: number, nanos: number, micro: boolean): string {
  if (!micro) return metaTimeAt(seconds);
  if (seconds !== lastMicroSeconds) {
    lastMicroSecondText = new Date(seconds * 1000).toISOString().slice(0, 19);
    lastMicroSeconds = seconds;
  }
  return `${lastMicroSecondText}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z`;
}
