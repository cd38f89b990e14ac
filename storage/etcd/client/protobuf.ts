/**
 * The protobuf wire format, as much of it as etcd's messages use: varints (int64, uint64, bool,
 * enum) and length-delimited fields (bytes, string, embedded messages). Fixed-width and zigzag
 * encodings never occur in them.
 *
 * int64 fields are read as JS numbers: revisions, counts and TTLs stay far below 2^53. Lease IDs
 * do not (etcd draws them from the whole int64 range), so those are read and written as bigint.
 */

const WIRE_VARINT = 0;
const WIRE_FIXED64 = 1;
const WIRE_LENGTH_DELIMITED = 2;
const WIRE_FIXED32 = 5;

/** Writes one message; embedded messages are written by nested writers and added as bytes. */
export class ProtoWriter {
  private buffer: Buffer;
  private length = 0;

  constructor(initialSize = 64) {
    this.buffer = Buffer.allocUnsafe(initialSize);
  }

  /**
   * An int64/uint64/enum field; zero (the default) is left out, as proto3 does, unless `always`
   * (a oneof member must be sent to say which one is set).
   */
  varint(field: number, value: number, always = false): this {
    if (value === 0 && !always) return this;
    this.tag(field, WIRE_VARINT);
    if (value < 0) this.rawBigVarint(BigInt.asUintN(64, BigInt(value)));
    else this.rawVarint(value);
    return this;
  }

  bigVarint(field: number, value: bigint): this {
    if (value === 0n) return this;
    this.tag(field, WIRE_VARINT);
    this.rawBigVarint(BigInt.asUintN(64, value));
    return this;
  }

  bool(field: number, value: boolean | undefined): this {
    return value ? this.varint(field, 1) : this;
  }

  /** A bytes or embedded-message field; empty bytes are left out unless `always`. */
  bytes(field: number, value: Uint8Array | undefined, always = false): this {
    if (value === undefined || (value.length === 0 && !always)) return this;
    this.tag(field, WIRE_LENGTH_DELIMITED);
    this.rawVarint(value.length);
    this.reserve(value.length);
    this.buffer.set(value, this.length);
    this.length += value.length;
    return this;
  }

  /** An embedded message: present even when empty (an empty oneof member still selects it). */
  message(field: number, value: ProtoWriter | undefined): this {
    return value === undefined ? this : this.bytes(field, value.finish(), true);
  }

  /** The written bytes (a view of this writer's buffer). */
  finish(): Buffer {
    return this.buffer.subarray(0, this.length);
  }

  private tag(field: number, wireType: number): void {
    this.rawVarint((field << 3) | wireType);
  }

  private rawVarint(value: number): void {
    this.reserve(10);
    while (value > 0x7f) {
      this.buffer[this.length++] = (value % 0x80) | 0x80;
      value = Math.floor(value / 0x80);
    }
    this.buffer[this.length++] = value;
  }

  private rawBigVarint(value: bigint): void {
    this.reserve(10);
    while (value > 0x7fn) {
      this.buffer[this.length++] = Number(value & 0x7fn) | 0x80;
      value >>= 7n;
    }
    this.buffer[this.length++] = Number(value);
  }

  private reserve(bytes: number): void {
    if (this.length + bytes <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.length + bytes));
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }
}

/** Reads one message's fields in order: `next()` gives each field number, then read its value. */
export class ProtoReader {
  private position: number;
  private wireType = 0;

  constructor(
    private readonly buffer: Buffer,
    start = 0,
    private readonly end = buffer.length,
  ) {
    this.position = start;
  }

  /** The next field's number, or 0 at the end of the message. */
  next(): number {
    if (this.position >= this.end) return 0;
    const tag = this.varint();
    this.wireType = tag & 7;
    return Math.floor(tag / 8);
  }

  /** A varint as a number; int64 values below zero come back negative. */
  varint(): number {
    const start = this.position;
    let result = 0;
    let multiplier = 1;
    // Seven bytes hold 49 bits, exact in a double; longer ones (negative int64s take ten) go
    // through bigint.
    for (let i = 0; i < 7; i++) {
      if (this.position >= this.end) throw new Error('protobuf: truncated varint');
      const byte = this.buffer[this.position++];
      result += (byte & 0x7f) * multiplier;
      if (byte < 0x80) return result;
      multiplier *= 0x80;
    }
    this.position = start;
    return Number(this.bigVarint());
  }

  bigVarint(): bigint {
    let result = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      if (this.position >= this.end) throw new Error('protobuf: truncated varint');
      const byte = this.buffer[this.position++];
      result |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return BigInt.asIntN(64, result);
    }
    throw new Error('protobuf: varint longer than 10 bytes');
  }

  bool(): boolean {
    return this.varint() !== 0;
  }

  /** A bytes field, as a view of the received buffer (no copy). */
  bytes(): Buffer {
    const length = this.varint();
    const start = this.position;
    this.position += length;
    if (this.position > this.end) throw new Error('protobuf: truncated field');
    return this.buffer.subarray(start, this.position);
  }

  string(): string {
    const length = this.varint();
    const start = this.position;
    this.position += length;
    if (this.position > this.end) throw new Error('protobuf: truncated field');
    return this.buffer.toString('utf8', start, this.position);
  }

  /** A reader over an embedded message, without copying it. */
  message(): ProtoReader {
    const length = this.varint();
    const start = this.position;
    this.position += length;
    if (this.position > this.end) throw new Error('protobuf: truncated message');
    return new ProtoReader(this.buffer, start, this.position);
  }

  /** Skips the value of a field this reader does not use. */
  skip(): void {
    switch (this.wireType) {
      case WIRE_VARINT:
        while (this.position < this.end && this.buffer[this.position] >= 0x80) this.position++;
        this.position++;
        return;
      case WIRE_FIXED64:
        this.position += 8;
        return;
      case WIRE_LENGTH_DELIMITED:
        this.position += this.varint();
        return;
      case WIRE_FIXED32:
        this.position += 4;
        return;
      default:
        throw new Error(`protobuf: unsupported wire type ${this.wireType}`);
    }
  }
}
