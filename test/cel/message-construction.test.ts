/**
 * Message construction (`Object{spec: Object.spec{replicas: 3}}`, `JSONPatch{op: 'add', ...}`)
 * in the environment of MutatingAdmissionPolicy mutations, with compile errors worded and placed
 * as the reference's (recorded from a 1.34.4 kube-apiserver creating MutatingAdmissionPolicies),
 * and everywhere else the reference's "undeclared reference".
 */
import { ExpressionCompiler } from '../../server/cel/environment';
import {
  ConstructedObject,
  JsonPatchOperation,
  mutationTypesLibrary,
  typeNameMismatches,
} from '../../server/cel/libraries/mutation-types';
import { toJson } from '../../server/cel/values';

const mutating = () => new ExpressionCompiler({ object: 'dyn' }, { libraries: [mutationTypesLibrary()] });

function compileError(expression: string, compiler = mutating()): string {
  const result = compiler.compile(expression);
  if (result.ok) throw new Error(`${expression} compiled`);
  return result.error;
}

function run(expression: string, values: Record<string, unknown> = {}) {
  const result = mutating().compile(expression);
  if (!result.ok) throw new Error(result.error);
  return result.compiled.evaluate(values);
}

function value(expression: string, values: Record<string, unknown> = {}): unknown {
  const result = run(expression, values);
  if (!result.ok) throw new Error(result.error);
  return result.value;
}

describe('compiling constructions', () => {
  test.each([
    ['Object{spec: Object.spec{replicas: 3}}', 'Object'],
    ['Object.spec{replicas: 3}', 'Object.spec'],
    ['Object.spec.template.spec{}', 'Object.spec.template.spec'],
    ['.Object{}', 'Object'],
    ["Object {metadata: Object . metadata {labels: {'a': 'b'}}}", 'Object'],
    ["Object{?data: optional.of({'a': 'b'})}", 'Object'],
    ['Object{data: 1, data: 2}', 'Object'],
    ['Object{a: 1,}', 'Object'],
    ['Object{a: JSONPatch{}}', 'Object'],
    ['[JSONPatch{op: "add", path: "/spec/replicas", value: 3}]', 'list<JSONPatch>'],
    ['[JSONPatch{op: dyn(1), path: "/x"}]', 'list<JSONPatch>'],
    ['[JSONPatch{?op: optional.of("add"), ?path: optional.none()}]', 'list<JSONPatch>'],
    ['[JSONPatch{value: null}]', 'list<JSONPatch>'],
    ['[JSONPatch{op: "add", path: "/x", value: 1}].filter(p, p.op == "add")', 'list<JSONPatch>'],
    ['Object{}.spec', 'dyn'],
  ])('%s has type %s', (expression, type) => {
    const result = mutating().compile(expression);
    if (!result.ok) throw new Error(result.error);
    expect(result.compiled.outputType).toBe(type);
  });

  test.each([
    ['Foo{a: 1}', "ERROR: <input>:1:4: undeclared reference to 'Foo' (in container '')\n | Foo{a: 1}\n | ...^"],
    [
      'object.metadata{}',
      "ERROR: <input>:1:16: undeclared reference to 'object.metadata' (in container '')\n | object.metadata{}\n | ...............^",
    ],
    [
      'x.Object{}',
      "ERROR: <input>:1:9: undeclared reference to 'x.Object' (in container '')\n | x.Object{}\n | ........^",
    ],
    [
      'Object{"a": 1}',
      `ERROR: <input>:1:8: Syntax error: mismatched input '"a"' expecting {'}', ',', '?', IDENTIFIER, ESC_IDENTIFIER}\n | Object{"a": 1}\n | .......^`,
    ],
    ['Object{a.b: 1}', "ERROR: <input>:1:9: Syntax error: missing ':' at '.'\n | Object{a.b: 1}\n | ........^"],
    [
      'Object{in: 1}',
      "ERROR: <input>:1:8: Syntax error: mismatched input 'in' expecting {'}', ',', '?', IDENTIFIER, ESC_IDENTIFIER}\n | Object{in: 1}\n | .......^",
    ],
    ['Object{`a-b`: 1}', "ERROR: <input>:1:8: unsupported syntax: '`'\n | Object{`a-b`: 1}\n | .......^"],
    [
      "Object{?data: {'a': 'b'}}",
      "ERROR: <input>:1:15: expected type 'optional_type(map(string, string))' but found 'map(string, string)'\n | Object{?data: {'a': 'b'}}\n | ..............^",
    ],
    [
      'Object{?a: 1}',
      "ERROR: <input>:1:12: expected type 'optional_type(int)' but found 'int'\n | Object{?a: 1}\n | ...........^",
    ],
    [
      '[JSONPatch{op: 1, path: "/x"}]',
      `ERROR: <input>:1:14: expected type of field 'op' is 'string' but provided type is 'int'\n | [JSONPatch{op: 1, path: "/x"}]\n | .............^`,
    ],
    [
      '[JSONPatch{foo: "x"}]',
      `ERROR: <input>:1:15: expected type of field 'foo' is '' but provided type is 'string'\n | [JSONPatch{foo: "x"}]\n | ..............^`,
    ],
    [
      '[JSONPatch{op: "add", value: 1, from: 2}]',
      `ERROR: <input>:1:37: expected type of field 'from' is 'string' but provided type is 'int'\n | [JSONPatch{op: "add", value: 1, from: 2}]\n | ....................................^`,
    ],
    [
      '[JSONPatch{op: null}]',
      `ERROR: <input>:1:14: expected type of field 'op' is 'string' but provided type is 'null'\n | [JSONPatch{op: null}]\n | .............^`,
    ],
  ])('%s is refused', (expression, error) => {
    expect(compileError(expression)).toBe(error);
  });

  test('an error before a construction is the one reported', () => {
    expect(compileError('1 + Object{"a": 1}')).toMatch(/^ERROR: <input>:1:12: Syntax error: mismatched input '"a"'/);
    expect(compileError('(1 + ) == Object{"a": 1}')).toMatch(/^ERROR: <input>:1:6: Syntax error/);
  });

  test('jsonpatch.escapeKey takes a string', () => {
    expect(compileError('[JSONPatch{op: "add", path: jsonpatch.escapeKey(1)}]')).toContain(
      'found no matching overload',
    );
  });

  test('outside the mutation environment nothing is constructible, as in the reference', () => {
    const plain = new ExpressionCompiler({});
    expect(compileError('Object{} == Object{}', plain)).toBe(
      "ERROR: <input>:1:7: undeclared reference to 'Object' (in container '')\n | Object{} == Object{}\n | ......^",
    );
    expect(compileError('JSONPatch{} == JSONPatch{}', plain)).toMatch(
      /^ERROR: <input>:1:10: undeclared reference to 'JSONPatch'/,
    );
    expect(compileError('jsonpatch.escapeKey("a") == "a"', plain)).toMatch(
      /^ERROR: <input>:1:1: undeclared reference to 'jsonpatch'/,
    );
  });

  test('braces in strings, comments and map literals are not constructions', () => {
    const plain = new ExpressionCompiler({});
    for (const expression of [
      `"Object{a: 1}" != 'x{' && r"y{" != '' && b'z{' != b'' && '''a{\n''' != """{"""`,
      "'a' in {'a': 1} // Object{",
      "{'a': {'b': 1}}.a.b == 1",
      '[{1: 2}].size() == 1',
    ]) {
      const result = plain.compile(expression);
      if (!result.ok) throw new Error(result.error);
      expect(result.compiled.evaluate({})).toMatchObject({ ok: true, value: true });
    }
  });
});

describe('evaluating constructions', () => {
  test('an apply configuration', () => {
    const result = value("Object{metadata: Object.metadata{labels: {'a': object.metadata.name}}}", {
      object: { metadata: { name: 'cm' } },
    });
    expect(result).toBeInstanceOf(ConstructedObject);
    expect((result as ConstructedObject).typeName).toBe('Object');
    expect(toJson(result)).toEqual({ metadata: { labels: { a: 'cm' } } });
  });

  test('optional fields are set only when present', () => {
    expect(toJson(value("Object{?data: optional.none(), ?metadata: optional.of(Object.metadata{name: 'x'})}"))).toEqual(
      { metadata: { name: 'x' } },
    );
  });

  test('a `?` field given a dynamic value that is not optional fails at run time, as in cel-go', () => {
    expect(run('Object{?a: dyn(1)}')).toMatchObject({
      ok: false,
      error: "cannot initialize optional entry 'a' from non-optional value 1",
    });
  });

  test('fields read back, and objects compare by type and fields', () => {
    expect(value('Object{spec: Object.spec{x: 1}}.spec.x == 1')).toBe(true);
    expect(value('Object{} == Object{}')).toBe(true);
    expect(value('Object{spec: Object.spec{}} == Object{}')).toBe(false);
  });

  test('JSON patch operations', () => {
    const result = value(
      '[JSONPatch{op: "add", path: "/metadata/labels/" + jsonpatch.escapeKey("k8s.io/my~label"), value: "x"}, JSONPatch{op: "remove", path: "/data"}]',
    ) as JsonPatchOperation[];
    expect(result.map((operation) => ({ ...operation }))).toEqual([
      { op: 'add', path: '/metadata/labels/k8s.io~1my~0label', from: '', value: 'x' },
      { op: 'remove', path: '/data', from: '', value: undefined },
    ]);
    expect(value('[JSONPatch{op: "add", path: "/x", value: 1}][0].op == "add"')).toBe(true);
  });

  test('a dynamic value that is not a string fails a JSONPatch string field, as in the reference', () => {
    expect(run('[JSONPatch{op: dyn(1), path: "/x"}]')).toMatchObject({
      ok: false,
      error: "unexpected type int64 for JSONPatchType 'op' field",
    });
  });

  test('type names must follow the field path', () => {
    expect(typeNameMismatches(value("Object{metadata: Object.spec{labels: {'a': 'b'}}}") as ConstructedObject)).toEqual(
      [
        'unexpected type name "Object.spec", expected "Object.metadata", which matches field name path from root Object type',
      ],
    );
    expect(typeNameMismatches(value('Object{spec: [Object.spec.wrong{}]}') as ConstructedObject)).toEqual([
      'unexpected type name "Object.spec.wrong", expected "Object.spec", which matches field name path from root Object type',
    ]);
    expect(
      typeNameMismatches(
        value('Object{metadata: Object.metadata{labels: Object.metadata.labels{x: "1"}}}') as ConstructedObject,
      ),
    ).toEqual([]);
  });
});

describe('cost', () => {
  test('a construction costs 40, as a struct in the reference, at run time and in the estimate', () => {
    const compiled = mutating().compile('Object{spec: Object.spec{}}');
    if (!compiled.ok) throw new Error(compiled.error);
    expect(compiled.compiled.evaluate({})).toMatchObject({ ok: true, cost: 80 });
    expect(compiled.compiled.estimateMaxCost()).toBe(80);
  });

  test('escapeKey costs a tenth per character', () => {
    const cost = (key: string) => run(`jsonpatch.escapeKey('${key}')`).cost;
    expect(cost('a'.repeat(25)) - cost('a'.repeat(5))).toBe(2);
  });
});
