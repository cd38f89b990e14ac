/**
 * Short strings read from protobuf, one string object for the same bytes read again.
 *
 * Every decode makes new strings, so a watch cache of pods holds one "IfNotPresent", one "TCP",
 * one "kube-api-access" per pod: in a heap snapshot of 10,000 cached pods (with their previous
 * versions), 944,000 of the 1,076,000 strings were copies of another, 28 of the heap's 134 MiB,
 * and nearly two in five of all heap objects, each one more for the collector to mark. Strings
 * are values in JavaScript, so handing out one object for equal ones changes nothing but the
 * heap.
 *
 * A fixed table of recent strings, indexed by a hash of their bytes: a hit compares at most
 * MAX_BYTES bytes and allocates nothing; a miss decodes as before and takes the slot. Values
 * seen once (names, uids) pass through and are soon replaced; the table's size is fixed (the
 * bytes in one buffer, so it is a handful of objects), and a common value evicted by a collision
 * is back at its next read.
 */
import type { Reader } from 'protobufjs/minimal';

/** Longer strings are mostly unique (uids are 36 bytes) or rare. */
const MAX_BYTES = 32;
const SLOT_BITS = 12;
const SLOTS = 1 << SLOT_BITS;

const slotBytes = new Uint8Array(SLOTS * MAX_BYTES);
const slotLengths = new Uint8Array(SLOTS);
const slotStrings: (string | undefined)[] = new Array<string | undefined>(SLOTS).fill(undefined);

/** reader.string(), the same string object as an earlier read of the same bytes where the table still holds it. */
export function readSharedString(reader: Reader): string {
  const start = reader.pos;
  const length = reader.uint32();
  const from = reader.pos;
  const to = from + length;
  if (length === 0 || length > MAX_BYTES || to > reader.len) {
    reader.pos = start;
    return reader.string();
  }
  const slot = slotOf(reader.buf, from, to);
  const held = heldAt(slot, reader.buf, from, to);
  if (held !== undefined) {
    reader.pos = to;
    return held;
  }
  reader.pos = start;
  return hold(slot, reader.buf, from, to, reader.string());
}

/** The UTF-8 text of `bytes` (a quantity's), shared as readSharedString's are. */
export function sharedUtf8(bytes: Uint8Array): string {
  const decode = () => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8');
  if (bytes.length === 0 || bytes.length > MAX_BYTES) return decode();
  const slot = slotOf(bytes, 0, bytes.length);
  return heldAt(slot, bytes, 0, bytes.length) ?? hold(slot, bytes, 0, bytes.length, decode());
}

/** FNV-1a over the bytes, folded to a slot. */
function slotOf(bytes: Uint8Array, from: number, to: number): number {
  let hash = 0x811c9dc5;
  for (let i = from; i < to; i++) hash = Math.imul(hash ^ bytes[i], 0x01000193);
  return (hash ^ (hash >>> SLOT_BITS)) & (SLOTS - 1);
}

function heldAt(slot: number, bytes: Uint8Array, from: number, to: number): string | undefined {
  const held = slotStrings[slot];
  const length = to - from;
  if (held === undefined || slotLengths[slot] !== length) return undefined;
  const base = slot * MAX_BYTES;
  for (let i = 0; i < length; i++) if (bytes[from + i] !== slotBytes[base + i]) return undefined;
  return held;
}

function hold(slot: number, bytes: Uint8Array, from: number, to: number, value: string): string {
  slotBytes.set(bytes.subarray(from, to), slot * MAX_BYTES);
  slotLengths[slot] = to - from;
  slotStrings[slot] = value;
  return value;
}
