/**
 * The reference's protobuf framing around messages: the `k8s\0` magic and `runtime.Unknown`
 * envelope of every object, lists written item by item, and watch streams of length-prefixed
 * `metav1.WatchEvent`s.
 *
 * A watch frame is a 4-byte big-endian length and a WatchEvent written *without* envelope
 * (the stream serializer is the raw one); the event's `object.raw` holds the object *with*
 * its envelope, which is how client-go's protobuf watch decoder reads it.
 */
import { Reader, Writer } from 'protobufjs/minimal';
import { StatusError } from '../status/status-error';
import { definitionForKind } from '../schema/definitions';
import { decodeMessage, writeMessage, type JsonObject, type JsonValue } from './protobuf';
import { messageLayout, WIRE_BYTES } from './protobuf-layout';

export const PROTOBUF_MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** The message definition of a kind given by apiVersion and kind; undefined when it has no protobuf form. */
export function messageNameFor(apiVersion: string, kind: string): string | undefined {
  const slash = apiVersion.lastIndexOf('/');
  const gvk = slash >= 0 ? { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1), kind } : { group: '', version: apiVersion, kind };
  return definitionForKind(gvk)?.name;
}

function requireMessageName(apiVersion: string, kind: string): string {
  const name = messageNameFor(apiVersion, kind);
  if (name === undefined) throw new Error(`${apiVersion}, Kind=${kind} has no protobuf form`);
  return name;
}

function typeMetaOf(object: JsonObject): { apiVersion: string; kind: string } {
  return { apiVersion: String(object.apiVersion ?? ''), kind: String(object.kind ?? '') };
}

function writeTypeMeta(writer: Writer, typeMeta: { apiVersion: string; kind: string }): void {
  writer.uint32((1 << 3) | WIRE_BYTES).fork();
  writer.uint32((1 << 3) | WIRE_BYTES).string(typeMeta.apiVersion);
  writer.uint32((2 << 3) | WIRE_BYTES).string(typeMeta.kind);
  writer.ldelim();
}

/** `Unknown`'s trailing contentEncoding and contentType, written empty as the reference does. */
function writeUnknownTrailer(writer: Writer): void {
  writer.uint32((3 << 3) | WIRE_BYTES).string('');
  writer.uint32((4 << 3) | WIRE_BYTES).string('');
}

/** An object (its `apiVersion` and `kind` name the message) in the magic-prefixed envelope. */
export function encodeEnvelope(object: JsonObject): Buffer {
  const typeMeta = typeMetaOf(object);
  const writer = Writer.create();
  writeTypeMeta(writer, typeMeta);
  writer.uint32((2 << 3) | WIRE_BYTES).fork();
  writeMessage(writer, object, requireMessageName(typeMeta.apiVersion, typeMeta.kind));
  writer.ldelim();
  writeUnknownTrailer(writer);
  return Buffer.concat([PROTOBUF_MAGIC, writer.finish()]);
}

export interface Envelope {
  readonly apiVersion: string;
  readonly kind: string;
  readonly raw: Uint8Array;
  readonly contentEncoding: string;
  readonly contentType: string;
}

function notProtobuf(message: string): StatusError {
  return new StatusError({ code: 400, reason: 'BadRequest', message });
}

/** Reads the magic and `Unknown`; anything else is a 400, as the reference rejects it. */
export function decodeEnvelope(bytes: Uint8Array): Envelope {
  if (bytes.length < PROTOBUF_MAGIC.length || !PROTOBUF_MAGIC.equals(Buffer.from(bytes.subarray(0, 4)))) {
    throw notProtobuf('provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]');
  }
  const reader = Reader.create(bytes.subarray(4));
  let apiVersion = '';
  let kind = '';
  let raw: Uint8Array = new Uint8Array(0);
  let contentEncoding = '';
  let contentType = '';
  try {
    while (reader.pos < reader.len) {
      const key = reader.uint32();
      switch (key >>> 3) {
        case 1: {
          const end = reader.uint32() + reader.pos;
          while (reader.pos < end) {
            const inner = reader.uint32();
            if (inner >>> 3 === 1) apiVersion = reader.string();
            else if (inner >>> 3 === 2) kind = reader.string();
            else reader.skipType(inner & 7);
          }
          break;
        }
        case 2:
          raw = reader.bytes();
          break;
        case 3:
          contentEncoding = reader.string();
          break;
        case 4:
          contentType = reader.string();
          break;
        default:
          reader.skipType(key & 7);
      }
    }
  } catch (error) {
    throw notProtobuf(`unable to decode protobuf envelope: ${(error as Error).message}`);
  }
  return { apiVersion, kind, raw, contentEncoding, contentType };
}

/** An enveloped object back to its JSON form, with `apiVersion` and `kind` from the envelope. */
export function decodeObject(bytes: Uint8Array): JsonObject {
  const envelope = decodeEnvelope(bytes);
  if (envelope.contentEncoding !== '') throw notProtobuf(`unsupported content encoding ${JSON.stringify(envelope.contentEncoding)}`);
  const name = messageNameFor(envelope.apiVersion, envelope.kind);
  if (name === undefined) {
    throw notProtobuf(`no kind "${envelope.kind}" is registered for version "${envelope.apiVersion}"`);
  }
  let body: JsonValue | undefined;
  try {
    body = decodeMessage(envelope.raw, name);
  } catch (error) {
    throw notProtobuf(`unable to decode ${envelope.kind}: ${(error as Error).message}`);
  }
  return { apiVersion: envelope.apiVersion, kind: envelope.kind, ...(body as JsonObject) };
}

// ---------------------------------------------------------------------------------------------
// Lists, item by item

export interface ListHead {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: JsonObject;
}

/**
 * The enveloped bytes of a list as chunks: the envelope's head (whose `raw` length needs every
 * item's size, so each item is encoded once and kept only as bytes), one chunk per item, and
 * the trailer. The list's JSON never exists as a whole, and no chunk holds more than one item.
 */
export function encodeListChunks(head: ListHead, items: Iterable<JsonObject>): Buffer[] {
  const listName = requireMessageName(head.apiVersion, head.kind);
  const itemType = itemMessageOf(listName);
  const metadataWriter = Writer.create();
  metadataWriter.uint32((1 << 3) | WIRE_BYTES).fork();
  writeMessage(metadataWriter, head.metadata, 'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta');
  metadataWriter.ldelim();
  const chunks: Buffer[] = [Buffer.from(metadataWriter.finish())];
  let rawLength = chunks[0].length;
  for (const item of items) {
    const writer = Writer.create();
    writer.uint32((2 << 3) | WIRE_BYTES).fork();
    writeMessage(writer, item, itemType);
    writer.ldelim();
    const chunk = Buffer.from(writer.finish());
    rawLength += chunk.length;
    chunks.push(chunk);
  }
  const headWriter = Writer.create();
  writeTypeMeta(headWriter, head);
  headWriter.uint32((2 << 3) | WIRE_BYTES).uint32(rawLength);
  const trailerWriter = Writer.create();
  writeUnknownTrailer(trailerWriter);
  return [Buffer.concat([PROTOBUF_MAGIC, headWriter.finish()]), ...chunks, Buffer.from(trailerWriter.finish())];
}

/** The item message of a list message (`items`, field 2). */
function itemMessageOf(listName: string): string {
  const items = messageLayout(listName).byTag.get(2);
  if (items === undefined || items.name !== 'items') throw new Error(`${listName} is not a list message`);
  return items.type;
}

// ---------------------------------------------------------------------------------------------
// Watch frames

/** One watch event as a length-prefixed frame: `WatchEvent{type, object: RawExtension{raw: envelope}}`. */
export function encodeWatchFrame(type: string, object: JsonObject): Buffer {
  const envelope = encodeEnvelope(object);
  const writer = Writer.create();
  writer.uint32((1 << 3) | WIRE_BYTES).string(type);
  writer.uint32((2 << 3) | WIRE_BYTES).fork();
  writer.uint32((1 << 3) | WIRE_BYTES).bytes(envelope);
  writer.ldelim();
  const event = writer.finish();
  const prefix = Buffer.alloc(4);
  prefix.writeUInt32BE(event.length, 0);
  return Buffer.concat([prefix, event]);
}

/** Reads one frame's event (without its length prefix): the type and the object's envelope bytes. */
export function decodeWatchEvent(event: Uint8Array): { type: string; object: Uint8Array } {
  const reader = Reader.create(event);
  let type = '';
  let object: Uint8Array = new Uint8Array(0);
  while (reader.pos < reader.len) {
    const key = reader.uint32();
    if (key >>> 3 === 1) {
      type = reader.string();
    } else if (key >>> 3 === 2) {
      const end = reader.uint32() + reader.pos;
      while (reader.pos < end) {
        const inner = reader.uint32();
        if (inner >>> 3 === 1) object = reader.bytes();
        else reader.skipType(inner & 7);
      }
    } else {
      reader.skipType(key & 7);
    }
  }
  return { type, object };
}
