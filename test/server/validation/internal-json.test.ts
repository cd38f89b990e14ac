/**
 * v1 objects written as kubernetes 1.34.4 writes their internal forms, and diff.Diff of two of
 * them (internal-json.reference.json, recorded by tools/internaljson/record.sh from the cases of
 * internal-json.cases.json): pod specs with every kind of field (quantities in forms the parser
 * rewrites, ports by name and number, maps with keys to sort, strings Go escapes, the host
 * namespace fields the conversion moves into the security context, the deprecated service
 * account), long specs whose repeated lines difflib leaves out of its index, an ephemeral
 * container, volume sources and claim specs. The old object went through protobuf as a stored
 * one does, the new one is decoded as a request body is.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { internalDiff, internalJson } from '../../../server/validation/internal-json';

interface Case {
  readonly name: string;
  readonly kind: string;
  readonly old: unknown;
  readonly new: unknown;
}

interface Recorded {
  readonly name: string;
  readonly oldJSON: string;
  readonly newJSON: string;
  readonly diff: string;
}

const cases: readonly Case[] = JSON.parse(readFileSync(join(__dirname, 'internal-json.cases.json'), 'utf8'));
const recorded: readonly Recorded[] = JSON.parse(readFileSync(join(__dirname, 'internal-json.reference.json'), 'utf8'));

const replayed = cases.map((testCase, i) => [testCase.name, testCase, recorded[i]] as const);

test('the recording has every case, in order', () => {
  expect(recorded.map(({ name }) => name)).toEqual(cases.map(({ name }) => name));
});

describe.each(replayed)('%s', (_name, { kind, old, new: next }, { oldJSON, newJSON, diff }) => {
  const type = `core.${kind}`;

  test('the stored object is written as Go writes its internal form', () => {
    expect(internalJson(type, old, { stored: true })).toBe(oldJSON);
  });

  test('the request object is written as Go writes its internal form', () => {
    expect(internalJson(type, next, { stored: false })).toBe(newJSON);
  });

  test('the diff is diff.Diff', () => {
    expect(internalDiff(type, old, next)).toBe(diff);
  });
});
