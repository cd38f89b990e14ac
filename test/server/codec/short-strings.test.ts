/**
 * Short strings read through the shared table (server/codec/short-strings.ts) are exactly what
 * protobufjs's own reader gives, whatever the table holds: after hits, after collisions evict a
 * slot, at the length limit, for multi-byte and invalid UTF-8, and with the reader left where
 * its own read leaves it.
 */
import { Reader, Writer } from 'protobufjs/minimal';
import { readSharedString, sharedUtf8 } from '../../../server/codec/short-strings';

function encodedStrings(values: readonly (string | Uint8Array)[]): Uint8Array {
  const writer = Writer.create();
  for (const value of values) {
    if (typeof value === 'string') writer.string(value);
    else writer.bytes(value);
  }
  return writer.finish();
}

function readAll(bytes: Uint8Array, count: number, read: (reader: Reader) => string): string[] {
  const reader = Reader.create(bytes);
  const out: string[] = [];
  for (let i = 0; i < count; i++) out.push(read(reader));
  expect(reader.pos).toBe(bytes.length);
  return out;
}

const SAMPLES = [
  '',
  'v1',
  'IfNotPresent',
  'kube-api-access',
  'héllo wörld ✓',
  'x'.repeat(31),
  'x'.repeat(32),
  'x'.repeat(33),
  'registry.example.com/team/web:1.27.3',
  '日本語のラベル',
];

test('reads what protobufjs reads, the first time and again', () => {
  const values = [...SAMPLES, ...SAMPLES, ...SAMPLES];
  const bytes = encodedStrings(values);
  const expected = readAll(bytes, values.length, (reader) => reader.string());
  expect(expected).toEqual(values);
  expect(readAll(bytes, values.length, readSharedString)).toEqual(expected);
  expect(readAll(bytes, values.length, readSharedString)).toEqual(expected);
});

test('stays right when thousands of distinct values collide in the table', () => {
  const values = Array.from({ length: 20_000 }, (_, i) => `name-${i.toString(36)}`);
  const bytes = encodedStrings([...values, ...values.slice(0, 500)]);
  expect(readAll(bytes, values.length + 500, readSharedString)).toEqual([...values, ...values.slice(0, 500)]);
});

test('invalid UTF-8 reads as protobufjs reads it', () => {
  const invalid = [Uint8Array.of(0xff, 0x61), Uint8Array.of(0xc3), Uint8Array.of(0x61, 0xe2, 0x82)];
  const bytes = encodedStrings([...invalid, ...invalid]);
  const expected = readAll(bytes, 6, (reader) => reader.string());
  expect(readAll(bytes, 6, readSharedString)).toEqual(expected);
  expect(readAll(bytes, 6, readSharedString)).toEqual(expected);
});

test('a length past the end reads as protobufjs reads it', () => {
  const truncated = encodedStrings(['abcdef']).subarray(0, 4);
  const theirs = Reader.create(truncated);
  const ours = Reader.create(truncated);
  expect(readSharedString(ours)).toBe(theirs.string());
  expect(ours.pos).toBe(theirs.pos);
});

test('a quantity text is its UTF-8', () => {
  for (const text of ['100m', '128Mi', '100m', '', '1.5Gi', 'x'.repeat(40)])
    expect(sharedUtf8(Buffer.from(text))).toBe(text);
});
