/**
 * Protobuf fields written and read by hand with protobufjs's reader and writer, for the small
 * messages of the gRPC plugins (KMS v2, the external JWT signer): fields go in field-number
 * order and defaults are omitted, as Go's proto.Marshal writes them.
 */
import { Reader, type Writer } from 'protobufjs/minimal';

export const VARINT = 0;
export const LENGTH_DELIMITED = 2;

export function bytesField(writer: Writer, field: number, value: Uint8Array): void {
  if (value.length > 0) writer.uint32((field << 3) | LENGTH_DELIMITED).bytes(value);
}

export function stringField(writer: Writer, field: number, value: string): void {
  if (value !== '') writer.uint32((field << 3) | LENGTH_DELIMITED).string(value);
}

/** Reads every field of a message, handing each to `onField`, which returns false for fields it skips. */
export function readFields(data: Uint8Array, onField: (field: number, reader: Reader) => boolean): void {
  const reader = Reader.create(data);
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    if (!onField(tag >>> 3, reader)) reader.skipType(tag & 7);
  }
}
