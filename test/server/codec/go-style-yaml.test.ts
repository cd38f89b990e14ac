/**
 * YAML answers as the reference writes them: objects read from kube-apiserver 1.34.4 as JSON
 * and as YAML (fixtures/go-style-yaml.json) must give the same text through goStyleYaml. The
 * ConfigMaps of fixtures/go-style-yaml-folding.json hold long and awkward strings: plain,
 * single- and double-quoted ones folded past column 80, runs of spaces at the fold, escapes,
 * characters beyond U+FFFF, literal blocks with each chomping and an indentation hint, long
 * strings in sequences, and keys past 128 bytes, written as complex keys.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { goStyleYaml } from '../../../server/codec/go-style-yaml';

interface RecordedYaml {
  readonly name: string;
  readonly json: Record<string, unknown>;
  readonly yaml: string;
}

const RECORDED = ['go-style-yaml.json', 'go-style-yaml-folding.json'].flatMap(
  (file) => JSON.parse(readFileSync(join(__dirname, 'fixtures', file), 'utf8')) as RecordedYaml[],
);

test.each(RECORDED.map((recorded) => [recorded.name, recorded] as const))('%s', (_name, recorded) => {
  expect(goStyleYaml(recorded.json)).toBe(recorded.yaml);
});

/** The object with every empty object replaced by one shared `{}`, as decoded managed fields share it. */
function sharingEmptyObjects(value: unknown, shared: object): unknown {
  if (Array.isArray(value)) return value.map((item) => sharingEmptyObjects(item, shared));
  if (typeof value !== 'object' || value === null) return value;
  if (Object.keys(value).length === 0) return shared;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, sharingEmptyObjects(item, shared)]));
}

test('parts shared within an object are written out each time, never as anchors and aliases', () => {
  const pod = RECORDED[0];
  const shared = sharingEmptyObjects(pod.json, {}) as { metadata: { managedFields: { fieldsV1: unknown }[] } };
  // Two managed-fields entries holding one tree, as the decoder hands out one per distinct entry.
  shared.metadata.managedFields = [shared.metadata.managedFields[0], shared.metadata.managedFields[0]];
  const expected = {
    ...pod.json,
    metadata: { ...(pod.json.metadata as object), managedFields: shared.metadata.managedFields },
  };
  const text = goStyleYaml(shared);
  expect(text).not.toMatch(/[&*]a\d/);
  expect(text).toBe(goStyleYaml(JSON.parse(JSON.stringify(expected))));
});
