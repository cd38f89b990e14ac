/**
 * The reference's protobuf framing around messages: the `k8s\0` magic and `runtime.Unknown`
 * envelope of every object, lists written item by item, and watch streams of length-prefixed
 * `metav1.WatchEvent`s.
 *
 * A watch frame is a 4-byte big-endian length and a WatchEvent written *without* envelope
 * (the stream serializer is the raw one); the event's `object.raw` holds the object *with*
 * its envelope, which is how client-go's protobuf watch decoder reads it.
 *
 * Every message is sized before it is written (`protobuf-encoder.ts`), so an object, a watch
 * frame or a batch of list items is written once into a buffer of its exact size.
 */
import { Reader } from 'protobufjs/minimal';
import { StatusError } from '../status/status-error';
import { definitionForKind } from '../schema/definitions';
import { decodeMessage, type JsonObject, type JsonValue, type ReadOptions } from './protobuf';
import {
  encodeWith,
  lengthDelimitedFieldSize,
  messageEncoder,
  utf8Length,
  type MessageEncoder,
} from './protobuf-encoder';
import { messageLayout, WIRE_BYTES } from './protobuf-layout';

export const PROTOBUF_MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/**
 * Message names found, by apiVersion then kind: every object encoded or decoded asks, and the
 * built-in kinds that have a protobuf form are a few hundred. Kinds without one are not kept,
 * and the meta/v1 kinds that answer for any group (a body may name any apiVersion) are kept only
 * up to a bound, so what requests make up cannot grow it.
 */
const messageNames = new Map<string, Map<string, string>>();
const MESSAGE_NAMES_KEPT = 2048;
let messageNamesKept = 0;

/** The message definition of a kind given by apiVersion and kind; undefined when it has no protobuf form. */
export function messageNameFor(apiVersion: string, kind: string): string | undefined {
  const known = messageNames.get(apiVersion)?.get(kind);
  if (known !== undefined) return known;
  const slash = apiVersion.lastIndexOf('/');
  const gvk =
    slash >= 0
      ? { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1), kind }
      : { group: '', version: apiVersion, kind };
  const name = definitionForKind(gvk)?.name;
  if (name === undefined || messageNamesKept >= MESSAGE_NAMES_KEPT) return name;
  messageNamesKept++;
  let kinds = messageNames.get(apiVersion);
  if (kinds === undefined) messageNames.set(apiVersion, (kinds = new Map()));
  kinds.set(kind, name);
  return name;
}

function requireMessageName(apiVersion: string, kind: string): string {
  const name = messageNameFor(apiVersion, kind);
  if (name === undefined) throw new Error(`${apiVersion}, Kind=${kind} has no protobuf form`);
  return name;
}

function typeMetaOf(object: JsonObject): { apiVersion: string; kind: string } {
  return { apiVersion: String(object.apiVersion ?? ''), kind: String(object.kind ?? '') };
}

/** `Unknown`'s trailing contentEncoding (3) and contentType (4), written empty as the reference does. */
const UNKNOWN_TRAILER = Buffer.from([(3 << 3) | WIRE_BYTES, 0, (4 << 3) | WIRE_BYTES, 0]);

/**
 * The magic and the envelope up to its `raw` bytes: the TypeMeta (1: apiVersion 1, kind 2) and
 * raw's key and length (2), sized here and written by writeHead straight into the buffer that
 * holds the object, as every object and watch event has one.
 */
interface EnvelopeHead {
  readonly apiVersion: string;
  readonly kind: string;
  readonly apiVersionLength: number;
  readonly kindLength: number;
  readonly typeMetaSize: number;
  readonly rawSize: number;
  /** Its length, magic included. */
  readonly length: number;
}

function envelopeHead(typeMeta: { apiVersion: string; kind: string }, rawSize: number): EnvelopeHead {
  const apiVersionLength = utf8Length(typeMeta.apiVersion);
  const kindLength = utf8Length(typeMeta.kind);
  const typeMetaSize = lengthDelimitedFieldSize(1, apiVersionLength) + lengthDelimitedFieldSize(2, kindLength);
  const length =
    PROTOBUF_MAGIC.length + lengthDelimitedFieldSize(1, typeMetaSize) + lengthDelimitedFieldSize(2, rawSize) - rawSize;
  return { ...typeMeta, apiVersionLength, kindLength, typeMetaSize, rawSize, length };
}

/** Writes `head` at `offset`; returns where the raw bytes begin. */
function writeHead(head: EnvelopeHead, target: Buffer, offset: number): number {
  let at = offset + PROTOBUF_MAGIC.copy(target, offset);
  at = writeKeyAndLength(target, at, 1, head.typeMetaSize);
  at = writeKeyAndLength(target, at, 1, head.apiVersionLength);
  at = writeText(target, at, head.apiVersion, head.apiVersionLength);
  at = writeKeyAndLength(target, at, 2, head.kindLength);
  at = writeText(target, at, head.kind, head.kindLength);
  return writeKeyAndLength(target, at, 2, head.rawSize);
}

/**
 * `text`, `length` bytes of UTF-8, at `offset`; returns the offset after it. ASCII is copied by
 * a loop, cheaper than a call into C++ for a few bytes.
 */
function writeText(target: Buffer, offset: number, text: string, length: number): number {
  if (length !== text.length) return offset + target.write(text, offset, length, 'utf8');
  for (let index = 0; index < length; index++) target[offset + index] = text.charCodeAt(index);
  return offset + length;
}

/**
 * A length-delimited field's key (`tag`, one byte) and `length` as a varint; returns the offset
 * after them.
 */
function writeKeyAndLength(target: Buffer, offset: number, tag: number, length: number): number {
  let at = offset;
  target[at++] = (tag << 3) | WIRE_BYTES;
  let rest = length;
  while (rest > 0x7f) {
    target[at++] = (rest & 0x7f) | 0x80;
    rest >>>= 7;
  }
  target[at++] = rest;
  return at;
}

/** An object's envelope, sized and ready to be written where its bytes belong. */
interface SizedEnvelope {
  readonly object: JsonObject;
  readonly encoder: MessageEncoder;
  /** Its head, which holds the raw bytes' size. */
  readonly head: EnvelopeHead;
  /** The whole envelope's length, magic included. */
  readonly length: number;
}

function sizeEnvelope(object: JsonObject, messageName?: string): SizedEnvelope {
  const typeMeta = typeMetaOf(object);
  const encoder = messageEncoder(messageName ?? requireMessageName(typeMeta.apiVersion, typeMeta.kind));
  const rawSize = encoder.size(object);
  const head = envelopeHead(typeMeta, rawSize);
  return { object, encoder, head, length: head.length + rawSize + UNKNOWN_TRAILER.length };
}

function writeEnvelope(envelope: SizedEnvelope, target: Buffer, offset: number): void {
  const { head } = envelope;
  const rawEnd = writeHead(head, target, offset) + head.rawSize;
  envelope.encoder.writeInto({ value: envelope.object, size: head.rawSize, target, end: rawEnd });
  UNKNOWN_TRAILER.copy(target, rawEnd);
}

/**
 * An object in the magic-prefixed envelope. Its `apiVersion` and `kind` name the message, but
 * where the reference leaves the apiVersion out (`/api`'s APIVersions), which the caller names.
 */
export function encodeEnvelope(object: JsonObject, messageName?: string): Buffer {
  const envelope = sizeEnvelope(object, messageName);
  const target = Buffer.allocUnsafe(envelope.length);
  writeEnvelope(envelope, target, 0);
  return target;
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
export function decodeObject(bytes: Uint8Array, options?: ReadOptions): JsonObject {
  const envelope = decodeEnvelope(bytes);
  if (envelope.contentEncoding !== '')
    throw notProtobuf(`unsupported content encoding ${JSON.stringify(envelope.contentEncoding)}`);
  const name = messageNameFor(envelope.apiVersion, envelope.kind);
  if (name === undefined) {
    throw notProtobuf(`no kind "${envelope.kind}" is registered for version "${envelope.apiVersion}"`);
  }
  let body: JsonValue | undefined;
  try {
    body = decodeMessage(envelope.raw, name, options);
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

const LIST_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta';
/** A list message's `metadata` (1) and `items` (2). */
const LIST_METADATA_TAG = 1;
const LIST_ITEMS_TAG = 2;
/** Items go out in chunks of about this size: few writes to the socket, little held at once. */
const LIST_CHUNK_BYTES = 64 * 1024;

/**
 * The enveloped bytes of a list, chunk by chunk as the caller asks for them: every item is
 * sized first (the envelope states the list's length before its items), then the head with the
 * list's metadata, then the items a batch at a time, each written straight into its chunk, and
 * the trailer. Held at once: one chunk and a size per item, never the encoded list. With
 * `bodyOf`, each item's body is what it answers for the item's index (given how to encode the
 * body on its own: a list may keep bodies for the next one), copied into its chunk. An item's
 * apiVersion and kind are not written, as the reference's typed lists leave them out: no item
 * message has a field of either name.
 */
export function* encodeListChunks(
  head: ListHead,
  items: readonly JsonObject[],
  bodyOf?: (index: number, encode: () => Buffer) => Buffer,
): Generator<Buffer, void, undefined> {
  const itemEncoder = messageEncoder(itemMessageOf(requireMessageName(head.apiVersion, head.kind)));
  const metadataEncoder = messageEncoder(LIST_META);
  const metadataSize = metadataEncoder.size(head.metadata);
  const messages = bodyOf && items.map((item, index) => bodyOf(index, () => encodeWith(itemEncoder, item)));
  const itemSizes = new Uint32Array(items.length);
  let rawSize = lengthDelimitedFieldSize(LIST_METADATA_TAG, metadataSize);
  for (let index = 0; index < items.length; index++) {
    const size = messages ? messages[index].length : itemEncoder.size(items[index]);
    itemSizes[index] = size;
    rawSize += lengthDelimitedFieldSize(LIST_ITEMS_TAG, size);
  }
  const start = envelopeHead(head, rawSize);
  const startLength = start.length + lengthDelimitedFieldSize(LIST_METADATA_TAG, metadataSize);
  const first = Buffer.allocUnsafe(startLength);
  writeHead(start, first, 0);
  metadataEncoder.writeInto({
    value: head.metadata,
    size: metadataSize,
    target: first,
    end: startLength,
    tag: LIST_METADATA_TAG,
  });
  yield first;
  let next = 0;
  while (next < items.length) {
    let chunkSize = lengthDelimitedFieldSize(LIST_ITEMS_TAG, itemSizes[next]);
    let end = next + 1;
    for (; end < items.length; end++) {
      const itemSize = lengthDelimitedFieldSize(LIST_ITEMS_TAG, itemSizes[end]);
      if (chunkSize + itemSize > LIST_CHUNK_BYTES) break;
      chunkSize += itemSize;
    }
    const chunk = Buffer.allocUnsafe(chunkSize);
    let offset = 0;
    for (; next < end; next++) {
      if (messages) {
        offset = writeKeyAndLength(chunk, offset, LIST_ITEMS_TAG, itemSizes[next]);
        offset += messages[next].copy(chunk, offset);
        continue;
      }
      offset += lengthDelimitedFieldSize(LIST_ITEMS_TAG, itemSizes[next]);
      itemEncoder.writeInto({
        value: items[next],
        size: itemSizes[next],
        target: chunk,
        end: offset,
        tag: LIST_ITEMS_TAG,
      });
    }
    yield chunk;
  }
  yield UNKNOWN_TRAILER;
}

/** The item message of a list message (`items`, field 2). */
function itemMessageOf(listName: string): string {
  const items = messageLayout(listName).byTag.get(LIST_ITEMS_TAG);
  if (items === undefined || items.name !== 'items') throw new Error(`${listName} is not a list message`);
  return items.type;
}

// ---------------------------------------------------------------------------------------------
// Watch frames

/** One watch event as a length-prefixed frame: `WatchEvent{type, object: RawExtension{raw: envelope}}`. */
export function encodeWatchFrame(type: string, object: JsonObject): Buffer {
  const envelope = sizeEnvelope(object);
  const typeLength = utf8Length(type);
  const rawExtensionSize = lengthDelimitedFieldSize(1, envelope.length);
  const eventSize = lengthDelimitedFieldSize(1, typeLength) + lengthDelimitedFieldSize(2, rawExtensionSize);
  const frame = Buffer.allocUnsafe(4 + eventSize);
  frame.writeUInt32BE(eventSize, 0);
  let at = writeKeyAndLength(frame, 4, 1, typeLength);
  at = writeText(frame, at, type, typeLength);
  at = writeKeyAndLength(frame, at, 2, rawExtensionSize);
  at = writeKeyAndLength(frame, at, 1, envelope.length);
  writeEnvelope(envelope, frame, at);
  return frame;
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
