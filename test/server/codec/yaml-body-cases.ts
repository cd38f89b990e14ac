/**
 * YAML request bodies whose reading depends on yaml.v2's rules (YAML 1.1 scalars as Go parses
 * them, merge keys, `!!binary`) and on sigs.k8s.io/yaml's conversion to JSON (key names, keys and
 * numbers JSON cannot hold). Each is a create (POST, application/yaml) or a server-side apply
 * (PATCH, application/apply-patch+yaml) of a ConfigMap or PriorityClass named after the case.
 * Answers recorded from kube-apiserver 1.34.4 are in fixtures/yaml-bodies.reference.json.
 */

export interface YamlBodyCase {
  readonly id: string;
  readonly kind: 'ConfigMap' | 'PriorityClass';
  readonly apply: boolean;
  /** The body's lines after `metadata.name`, for the case's name. */
  readonly body: (name: string) => string;
}

const configMap = (lines: string) => (name: string) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  labels: {anchored: &a an}\n${lines}`;
const priorityClass = (value: string) => (name: string) =>
  `apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata:\n  name: ${name}\nvalue: ${value}\n`;

const VALUES = ['yes', 'on', 'y', 'Off', 'NO', '~', 'null', '0x10', '010', '0o10', '1_000', '.inf', '-.inf', '.NaN'];
const MORE_VALUES = ['1e3', '2001-12-14', '+12', '0b101', '1:20', '.5', "'yes'", '"on"', '18446744073709551615'];
const KEYS = ['yes', 'on', 'N', '~', 'null', '1e3', '1.5', '010', '0x1F', '1_0', '.inf', '-.inf', '.nan', '1:20'];
const MORE_KEYS = ['2001-12-14', '12345678901234567890', '1e30', '0.1', '1e6', '1234567.0', '0.000012345'];
const LAST_KEYS = ['3.14159265358979', '-0.0', '0o17', '0b1_01', '+0x1f', '-0x10', '09', '1_2.5', "'yes'", '*a '];
const NULL_KEY_VALUES = [
  '{a: [1, x, ~]}',
  '[1, 2.5, yes]',
  '1e6',
  '0x10',
  '99999999999999999999',
  '18446744073709551615',
];
const PRIORITIES = ['1e3', '1.0', '0x10', '1_000', '1.5', '99999999999', '1e30', '9007199254740993', '-0.0', 'yes'];

function cases(): YamlBodyCase[] {
  const list: YamlBodyCase[] = [];
  const add = (id: string, kind: YamlBodyCase['kind'], body: YamlBodyCase['body'], apply = false) =>
    list.push({ id, kind, body, apply });
  [...VALUES, ...MORE_VALUES].forEach((value, i) =>
    add(`value-${i}`, 'ConfigMap', configMap(`data:\n  a: ${value}\n`)),
  );
  [...KEYS, ...MORE_KEYS, ...LAST_KEYS].forEach((key, i) =>
    add(`key-${i}`, 'ConfigMap', configMap(`data:\n  ${key}: b\n`)),
  );
  NULL_KEY_VALUES.forEach((value, i) => add(`null-key-${i}`, 'ConfigMap', configMap(`data:\n  ~: ${value}\n`)));
  add('sequence-key', 'ConfigMap', configMap('data:\n  ? [a]\n  : b\n'));
  add('mapping-key', 'ConfigMap', configMap('data:\n  ? {a: 1}\n  : b\n'));
  add('merge', 'ConfigMap', configMap('  annotations:\n    <<: {m: x, o: z}\n    p: w\ndata:\n  c: !!str 12\n'));
  add('merge-alias', 'ConfigMap', configMap('  annotations:\n    <<: *b\ndata: &b {q: r}\n'));
  // Strict decoding: yaml.v2 counts a key a merge brought in, then set again, as repeated.
  add('merge-override', 'ConfigMap', configMap('  annotations:\n    <<: {m: x, n: z}\n    n: w\ndata: {}\n'));
  add('merge-list', 'ConfigMap', configMap('  annotations:\n    <<: [{m: x}, {m: y, o: z}]\ndata: {}\n'));
  add('binary', 'ConfigMap', configMap('data:\n  d: !!binary aGVsbG8=\n'));
  add('infinity-and-key', 'ConfigMap', configMap('data:\n  a: .inf\n  ~: b\n'));
  PRIORITIES.forEach((value, i) => add(`priority-${i}`, 'PriorityClass', priorityClass(value)));
  add('apply-null-key', 'ConfigMap', configMap('data:\n  ~: b\n'), true);
  add('apply-infinity', 'ConfigMap', configMap('data:\n  a: .inf\n'), true);
  add('apply-keys', 'ConfigMap', configMap('data:\n  1e6: x\n  k: 1:20\n  t: 2001-12-14\n  010: o\n'), true);
  add('apply-bool', 'ConfigMap', configMap('data:\n  a: on\n'), true);
  add('apply-two-documents', 'ConfigMap', (name) => `${configMap('data:\n  a: b\n')(name)}---\nkind: x\n`, true);
  add('apply-sequence-key', 'ConfigMap', configMap('data:\n  ? [a]\n  : b\n'), true);
  return list;
}

export const YAML_BODY_CASES: readonly YamlBodyCase[] = cases();

/** The case's object name: ConfigMap keys and PriorityClass names are DNS names. */
export function caseName(id: string): string {
  return `yaml-${id}`;
}

export function caseRequest(yamlCase: YamlBodyCase): { method: string; path: string; contentType: string } {
  const name = caseName(yamlCase.id);
  const collection =
    yamlCase.kind === 'ConfigMap'
      ? '/api/v1/namespaces/default/configmaps'
      : '/apis/scheduling.k8s.io/v1/priorityclasses';
  return yamlCase.apply
    ? {
        method: 'PATCH',
        path: `${collection}/${name}?fieldManager=yaml-test&fieldValidation=Strict`,
        contentType: 'application/apply-patch+yaml',
      }
    : { method: 'POST', path: `${collection}?fieldValidation=Strict`, contentType: 'application/yaml' };
}

/** What a case's answer is compared on: the code, an error's message, a stored object's contents. */
export function answerOf(code: number, body: string): { code: number; message?: string; contents?: unknown } {
  const parsed = JSON.parse(body) as Record<string, unknown>;
  if (code >= 300) return { code, message: String(parsed.message) };
  const metadata = parsed.metadata as Record<string, unknown>;
  return {
    code,
    contents: { labels: metadata.labels, annotations: metadata.annotations, data: parsed.data, value: parsed.value },
  };
}
