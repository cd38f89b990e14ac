/**
 * CBOR (RFC 8949) for the JSON data model, as the reference's CBOR serializer writes and reads
 * it: answers start with the self-described CBOR tag (55799), strings and map keys go out as
 * byte strings (the reference never validates UTF-8 on the way out), and requests are read
 * strictly — duplicate map keys, invalid UTF-8 text, NaN and infinities, integers beyond
 * int64, nesting deeper than 64 and more than 1024 items in one array or map are rejected
 * with the reference's messages, while byte strings are accepted wherever strings are (tags
 * 21/22/23 asking for base64url, base64 or base16 text, as Go `[]byte` fields are sent).
 *
 * Written here rather than with `cbor-x`: cbor-x cannot write strings as byte strings, and its
 * decoder keeps the last of duplicate map keys silently, which the reference must reject.
 */
import { badRequest } from '../status/catalogue';
import type { StatusError } from '../status/status-error';
import type { JsonValue } from './protobuf';

/** The head of tag 55799, which the reference writes before every CBOR answer. */
export const SELF_DESCRIBED_CBOR = Buffer.from([0xd9, 0xd9, 0xf7]);

const MAJOR_UNSIGNED = 0;
const MAJOR_NEGATIVE = 1;
const MAJOR_BYTES = 2;
const MAJOR_TEXT = 3;
const MAJOR_ARRAY = 4;
const MAJOR_MAP = 5;
const MAJOR_TAG = 6;
const MAJOR_SIMPLE = 7;

const INDEFINITE = 31;
const BREAK = 0xff;

// ---------------------------------------------------------------------------------------------
// Encoding

/** A growable byte buffer: one allocation per doubling instead of one Buffer per item. */
class ByteSink {
  private buffer = Buffer.allocUnsafe(1024);
  private length = 0;

  private reserve(bytes: number): void {
    if (this.length + bytes <= this.buffer.length) return;
    let size = this.buffer.length * 2;
    while (size < this.length + bytes) size *= 2;
    const grown = Buffer.allocUnsafe(size);
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }

  head(major: number, argument: number): void {
    this.reserve(9);
    const type = major << 5;
    if (argument < 24) {
      this.buffer[this.length++] = type | argument;
    } else if (argument < 0x100) {
      this.buffer[this.length++] = type | 24;
      this.buffer[this.length++] = argument;
    } else if (argument < 0x10000) {
      this.buffer[this.length++] = type | 25;
      this.length = this.buffer.writeUInt16BE(argument, this.length);
    } else if (argument < 0x100000000) {
      this.buffer[this.length++] = type | 26;
      this.length = this.buffer.writeUInt32BE(argument, this.length);
    } else {
      this.buffer[this.length++] = type | 27;
      this.length = this.buffer.writeBigUInt64BE(BigInt(argument), this.length);
    }
  }

  bytes(source: Uint8Array): void {
    this.reserve(source.length);
    this.buffer.set(source, this.length);
    this.length += source.length;
  }

  /** A string as a CBOR byte string, as the reference encodes Go strings and field names. */
  string(value: string): void {
    const size = Buffer.byteLength(value);
    this.head(MAJOR_BYTES, size);
    this.reserve(size);
    this.length += this.buffer.write(value, this.length, 'utf8');
  }

  float64(value: number): void {
    this.reserve(9);
    this.buffer[this.length++] = (MAJOR_SIMPLE << 5) | 27;
    this.length = this.buffer.writeDoubleBE(value, this.length);
  }

  simple(value: number): void {
    this.reserve(1);
    this.buffer[this.length++] = (MAJOR_SIMPLE << 5) | value;
  }

  finish(): Buffer {
    return this.buffer.subarray(0, this.length);
  }
}

function encodeInto(sink: ByteSink, value: unknown): void {
  if (value === null || value === undefined) return sink.simple(22);
  switch (typeof value) {
    case 'string':
      return sink.string(value);
    case 'boolean':
      return sink.simple(value ? 21 : 20);
    case 'number':
      if (!Number.isFinite(value)) throw new Error(`cbor: cannot encode ${value}`);
      if (Number.isSafeInteger(value))
        return value >= 0 ? sink.head(MAJOR_UNSIGNED, value) : sink.head(MAJOR_NEGATIVE, -1 - value);
      return sink.float64(value);
    case 'object': {
      if (Array.isArray(value)) {
        sink.head(MAJOR_ARRAY, value.length);
        for (const item of value) encodeInto(sink, item);
        return;
      }
      // Dates and other objects with toJSON go out as JSON would show them.
      const shown =
        typeof (value as { toJSON?: unknown }).toJSON === 'function'
          ? (value as { toJSON(): unknown }).toJSON()
          : value;
      if (shown !== value) return encodeInto(sink, shown);
      const entries = Object.entries(value as Record<string, unknown>).filter(([, item]) => item !== undefined);
      sink.head(MAJOR_MAP, entries.length);
      for (const [key, item] of entries) {
        sink.string(key);
        encodeInto(sink, item);
      }
      return;
    }
    default:
      throw new Error(`cbor: cannot encode a ${typeof value}`);
  }
}

/** One value as the reference's CBOR serializer writes it: the self-described tag, then the item. */
export function encodeCbor(value: unknown): Buffer {
  const sink = new ByteSink();
  sink.bytes(SELF_DESCRIBED_CBOR);
  encodeInto(sink, value);
  return Buffer.from(sink.finish());
}

// ---------------------------------------------------------------------------------------------
// Decoding

/** The reference decoder's limits. */
const MAX_NESTED_LEVELS = 64;
const MAX_ARRAY_ELEMENTS = 1024;
const MAX_MAP_PAIRS = 1024;

export class CborDecodeError extends Error {}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Reads one data item at a time from a byte array; errors carry the reference's texts. */
class CborReader {
  offset = 0;

  constructor(private readonly bytes: Uint8Array) {}

  get done(): boolean {
    return this.offset >= this.bytes.length;
  }

  private byte(): number {
    if (this.offset >= this.bytes.length) throw new CborDecodeError('unexpected EOF');
    return this.bytes[this.offset++];
  }

  private take(length: number): Uint8Array {
    if (this.offset + length > this.bytes.length) throw new CborDecodeError('unexpected EOF');
    const slice = this.bytes.subarray(this.offset, this.offset + length);
    this.offset += length;
    return slice;
  }

  /** The argument of a head with additional information `info`; -1 for indefinite length. */
  private argument(info: number): number {
    if (info < 24) return info;
    if (info === INDEFINITE) return -1;
    const view = (length: number) => {
      const slice = this.take(length);
      return new DataView(slice.buffer, slice.byteOffset, slice.byteLength);
    };
    switch (info) {
      case 24:
        return this.byte();
      case 25:
        return view(2).getUint16(0);
      case 26:
        return view(4).getUint32(0);
      case 27: {
        const big = view(8).getBigUint64(0);
        if (big > BigInt(Number.MAX_SAFE_INTEGER))
          throw new CborDecodeError('cbor: cannot unmarshal positive integer into Go value of type int64 (overflows)');
        return Number(big);
      }
      default:
        throw new CborDecodeError(`cbor: invalid additional information ${info}`);
    }
  }

  private peekBreak(): boolean {
    if (this.offset >= this.bytes.length) throw new CborDecodeError('unexpected EOF');
    if (this.bytes[this.offset] !== BREAK) return false;
    this.offset++;
    return true;
  }

  /** The contents of a (possibly chunked) byte or text string. */
  private stringBytes(major: number, length: number): Uint8Array {
    if (length >= 0) return this.take(length);
    const chunks: Uint8Array[] = [];
    while (!this.peekBreak()) {
      const head = this.byte();
      if (head >> 5 !== major || (head & 31) === INDEFINITE)
        throw new CborDecodeError('cbor: wrong element type for indefinite-length string');
      chunks.push(this.take(this.argument(head & 31)));
    }
    return Buffer.concat(chunks);
  }

  item(depth: number): JsonValue {
    if (depth > MAX_NESTED_LEVELS) throw new CborDecodeError(`cbor: exceeded max nested level ${MAX_NESTED_LEVELS}`);
    const head = this.byte();
    const major = head >> 5;
    const info = head & 31;
    if (head === BREAK) throw new CborDecodeError('cbor: unexpected "break" code');
    if (major === MAJOR_SIMPLE) return this.simple(info);
    const argument = this.argument(info);
    if (argument < 0 && (major === MAJOR_UNSIGNED || major === MAJOR_NEGATIVE || major === MAJOR_TAG)) {
      throw new CborDecodeError(`cbor: invalid additional information ${info} for type ${major}`);
    }
    switch (major) {
      case MAJOR_UNSIGNED:
        return argument;
      case MAJOR_NEGATIVE:
        return -1 - argument;
      case MAJOR_BYTES:
        // Strings may come as byte strings (the reference writes them so): read as UTF-8 text.
        return Buffer.from(this.stringBytes(major, argument)).toString('utf8');
      case MAJOR_TEXT:
        try {
          return utf8.decode(this.stringBytes(major, argument));
        } catch (error) {
          if (error instanceof CborDecodeError) throw error;
          throw new CborDecodeError('cbor: invalid UTF-8 string');
        }
      case MAJOR_ARRAY:
        return this.array(argument, depth);
      case MAJOR_MAP:
        return this.map(argument, depth);
      default:
        return this.tag(argument, depth);
    }
  }

  private simple(info: number): JsonValue {
    switch (info) {
      case 20:
        return false;
      case 21:
        return true;
      case 22:
        return null;
      case 25:
        return this.finite(this.halfFloat());
      case 26: {
        const slice = this.take(4);
        return this.finite(new DataView(slice.buffer, slice.byteOffset, 4).getFloat32(0));
      }
      case 27: {
        const slice = this.take(8);
        return this.finite(new DataView(slice.buffer, slice.byteOffset, 8).getFloat64(0));
      }
      default:
        throw new CborDecodeError(`cbor: simple value ${info < 24 ? info : this.byte()} is not recognized`);
    }
  }

  private halfFloat(): number {
    const slice = this.take(2);
    const half = (slice[0] << 8) | slice[1];
    const exponent = (half >> 10) & 0x1f;
    const mantissa = half & 0x3ff;
    const sign = half & 0x8000 ? -1 : 1;
    if (exponent === 0) return sign * 2 ** -14 * (mantissa / 1024);
    if (exponent === 31) return mantissa === 0 ? sign * Infinity : NaN;
    return sign * 2 ** (exponent - 15) * (1 + mantissa / 1024);
  }

  private finite(value: number): number {
    if (Number.isNaN(value)) throw new CborDecodeError('cbor: floating-point NaN values are not supported');
    if (!Number.isFinite(value)) throw new CborDecodeError('cbor: floating-point infinity values are not supported');
    return value;
  }

  private array(length: number, depth: number): JsonValue[] {
    const items: JsonValue[] = [];
    while (length < 0 ? !this.peekBreak() : items.length < length) {
      if (items.length >= MAX_ARRAY_ELEMENTS)
        throw new CborDecodeError(`cbor: exceeded max number of elements ${MAX_ARRAY_ELEMENTS} for CBOR array`);
      items.push(this.item(depth + 1));
    }
    return items;
  }

  private map(length: number, depth: number): { [key: string]: JsonValue } {
    const object: { [key: string]: JsonValue } = {};
    const seen = new Set<string>();
    for (let index = 0; length < 0 ? !this.peekBreak() : index < length; index++) {
      if (index >= MAX_MAP_PAIRS)
        throw new CborDecodeError(`cbor: exceeded max number of key-value pairs ${MAX_MAP_PAIRS} for CBOR map`);
      const keyStart = this.offset;
      const key = this.item(depth + 1);
      if (typeof key !== 'string') {
        this.offset = keyStart;
        throw new CborDecodeError(
          `cbor: cannot unmarshal ${typeof key === 'number' ? 'integer' : typeof key} map key into Go value of type string`,
        );
      }
      if (seen.has(key))
        throw new CborDecodeError(`cbor: found duplicate map key "${key}" at map element index ${index}`);
      seen.add(key);
      object[key] = this.item(depth + 1);
    }
    return object;
  }

  private tag(number: number, depth: number): JsonValue {
    const contentStart = this.offset;
    const content = this.item(depth + 1);
    const isByteString = this.bytes[contentStart] >> 5 === MAJOR_BYTES;
    switch (number) {
      // Expected later encodings of a byte string: base64url, base64, base16 (Go []byte fields).
      case 21:
      case 22:
      case 23: {
        if (!isByteString || typeof content !== 'string') return content;
        const raw = this.rawByteString(contentStart);
        if (number === 21) return raw.toString('base64url');
        if (number === 22) return raw.toString('base64');
        return raw.toString('hex');
      }
      // Epoch-based date/time: RFC 3339 text as the reference turns it into.
      case 1:
        if (typeof content !== 'number')
          throw new CborDecodeError('cbor: tag number 1 must be followed by integer or floating-point number');
        return new Date(content * 1000).toISOString().replace('.000Z', 'Z');
      default:
        // Self-described CBOR (55799), standard date/time (0) and tags it does not know: the content.
        return content;
    }
  }

  /** The bytes of the byte string that starts at `offset` (read again, since items are strings). */
  private rawByteString(offset: number): Buffer {
    const reader = new CborReader(this.bytes);
    reader.offset = offset;
    const head = reader.byte();
    return Buffer.from(reader.stringBytes(MAJOR_BYTES, reader.argument(head & 31)));
  }
}

/** One CBOR data item, read strictly as the reference reads request bodies; throws CborDecodeError. */
export function decodeCbor(bytes: Uint8Array): JsonValue {
  const reader = new CborReader(bytes);
  const value = reader.item(0);
  if (!reader.done)
    throw new CborDecodeError(
      `cbor: ${bytes.length - reader.offset} bytes of extraneous data starting at index ${reader.offset}`,
    );
  return value;
}

/** The items of a CBOR sequence (`application/cbor-seq`, a watch stream), each read as decodeCbor does. */
export function decodeCborSequence(bytes: Uint8Array): JsonValue[] {
  const reader = new CborReader(bytes);
  const items: JsonValue[] = [];
  while (!reader.done) items.push(reader.item(0));
  return items;
}

/**
 * A request body sent as `application/cbor` (or `application/apply-patch+cbor`): its value in
 * the JSON data model, or the reference's 400 for a body that is not valid CBOR.
 */
export function decodeCborBody(body: Uint8Array): JsonValue {
  try {
    return decodeCbor(body);
  } catch (error) {
    throw cborBadRequest(error);
  }
}

function cborBadRequest(error: unknown): StatusError {
  const message = error instanceof Error ? error.message : String(error);
  return badRequest(message);
}
