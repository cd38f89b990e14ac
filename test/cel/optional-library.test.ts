/**
 * cel-go's optional library beyond the engine's optional type (the reference enables its newest
 * version): optMap, optFlatMap, first, last, optional.unwrap and unwrapOpt. Results, runtime
 * costs and estimates as cel-go 0.26 gives them for `l` a list of at most 10 ints ([1, 2, 3]),
 * `e` the same type (empty), `m` a map of at most 10 ints ({a: 1, b: 2}).
 */
import { ExpressionCompiler } from '../../server/cel/environment';
import type { CelSchema } from '../../server/cel/schema-types';
import { toJson } from '../../server/cel/values';

const LIST: CelSchema = { type: 'array', maxItems: 10, items: { type: 'integer' } };
const MAP: CelSchema = { type: 'object', maxProperties: 10, additionalProperties: { type: 'integer' } };
const compiler = new ExpressionCompiler({ l: { schema: LIST }, e: { schema: LIST }, m: { schema: MAP } });
const VALUES = { l: [1, 2, 3], e: [], m: { a: 1, b: 2 } };

function compiled(expression: string) {
  const result = compiler.compile(expression);
  if (!result.ok) throw new Error(result.error);
  return result.compiled;
}

describe('results, runtime cost and estimate as cel-go gives them', () => {
  test.each([
    ['l.first().optMap(x, x + 1)', 2, 9, 19],
    ['e.first().optMap(x, x + 1)', null, 4, 19],
    // cel-go binds x lazily: a body that does not read it costs no second evaluation of the target.
    ['l.last().optFlatMap(x, l.first())', 1, 5, 18],
    ['e.last().optFlatMap(x, l.first())', null, 4, 18],
    ['l.first().optFlatMap(x, x > 5 ? l.first() : e.first())', null, 10, 20],
    ["m[?'a'].optMap(x, l.transformList(i, v, v + x))", [2, 3, 4], 54, 179],
    ['l.first().optMap(x, l.last().optMap(y, x + y))', 4, 17, 37],
    ['l.first().optMap(x, [x, x, x])', [1, 1, 1], 20, 30],
    ['l.first()', 1, 2, 2],
    ['l.last()', 3, 2, 2],
    ['e.first()', null, 2, 2],
    ['[l.first(), e.first()].unwrapOpt()', [1], 15, 15],
  ])('%s', (expression, value, cost, estimate) => {
    const expression_ = compiled(expression);
    const result = expression_.evaluate(VALUES);
    expect({ value: result.ok ? toJson(result.value) : result, cost: result.cost }).toEqual({ value, cost });
    expect(expression_.estimateMaxCost()).toBe(estimate);
  });
});

describe('results', () => {
  test.each([
    ["optional.of('dev').optMap(id, 'cel.' + id).value()", 'cel.dev'],
    ['optional.none().optMap(i, i * 2).hasValue()', false],
    ["{'key': {}}[?'key'].optFlatMap(k, k[?'subkey']).hasValue()", false],
    ["{'key': {'subkey': 'value'}}[?'key'].optFlatMap(k, k[?'subkey']).value()", 'value'],
    ['optional.unwrap([optional.of(42), optional.none()])', [42]],
    ['[optional.of(42), optional.none()].unwrapOpt()', [42]],
    ['[].first().hasValue()', false],
    ['[1, 2, 3].last().value()', 3],
  ])('%s', (expression, value) => {
    const result = compiled(expression).evaluate({});
    expect(result.ok ? toJson(result.value) : result).toEqual(value);
  });
});

describe('compile errors as cel-go words and places them', () => {
  test.each([
    ["m[?'a'].optMap(x.y, x)", 'ERROR: <input>:1:17: optMap() variable name must be a simple identifier'],
    ["m[?'a'].optFlatMap(x.y, x)", 'ERROR: <input>:1:21: optFlatMap() variable name must be a simple identifier'],
    [
      "m[?'a'].optFlatMap(x, x)",
      "ERROR: <input>:1:19: found no matching overload for '_?_:_' applied to '(bool, int, optional_type(dyn))'",
    ],
    [
      'm.optMap(x, x)',
      "ERROR: <input>:1:9: found no matching overload for 'hasValue' applied to 'map(string, int).()'",
    ],
    [
      "l.first().optMap(x, 'a' + x)",
      "ERROR: <input>:1:25: found no matching overload for '_+_' applied to '(string, int)'",
    ],
  ])('%s', (expression, error) => {
    const result = compiler.compile(expression);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.split('\n')[0]).toBe(error);
  });
});

test('types', () => {
  expect(compiled('l.first().optMap(x, string(x))').outputType).toBe('optional<string>');
  expect(compiled('l.first().optMap(x, l.last().optMap(y, x + y))').outputType).toBe('optional<optional<int>>');
  expect(compiled('[l.first()].unwrapOpt()').outputType).toBe('list<int>');
});

test("a namespace (`optional.`) is part of a function's name: it costs nothing, as in cel-go", () => {
  // cel-go 0.26: optional.of(1) costs 1, optional.unwrap([...]) 1 plus its operands.
  expect(compiled('optional.of(1)').evaluate({}).cost).toBe(1);
  expect(compiled('optional.unwrap([l.last(), e.last(), l.first()])').evaluate(VALUES).cost).toBe(17);
});
