/**
 * Two-variable comprehensions (cel-go's ext.TwoVarComprehensions, in the 1.34 environment): each
 * case's result, runtime cost and estimate as cel-go 0.26 (the reference's) gives them for the
 * same variables: `l` a list of at most 10 ints ([1, 2, 3]), `m` a map of at most 10 ints
 * ({a: 1, b: 2}).
 */
import { ExpressionCompiler } from '../../server/cel/environment';
import type { CelSchema } from '../../server/cel/schema-types';
import { toJson } from '../../server/cel/values';

const LIST: CelSchema = { type: 'array', maxItems: 10, items: { type: 'integer' } };
const MAP: CelSchema = { type: 'object', maxProperties: 10, additionalProperties: { type: 'integer' } };
const compiler = new ExpressionCompiler({ l: { schema: LIST }, m: { schema: MAP } });
const VALUES = { l: [1, 2, 3], m: { a: 1, b: 2 } };

function compiled(expression: string) {
  const result = compiler.compile(expression);
  if (!result.ok) throw new Error(result.error);
  return result.compiled;
}

function run(expression: string) {
  const expression_ = compiled(expression);
  const result = expression_.evaluate(VALUES);
  return {
    value: result.ok ? toJson(result.value) : { error: result.error },
    cost: result.cost,
    estimate: expression_.estimateMaxCost(),
  };
}

describe('results, runtime cost and estimate as cel-go gives them', () => {
  test.each([
    ['l.all(i, v, i < v)', true, 20, 62],
    ['l.all(i, v, true)', true, 11, 32],
    ['l.all(i, v, 1/(i-1) > 0)', false, 11, 72],
    ['l.exists(i, v, i == 1 && v == 2)', true, 19, 82],
    ['l.existsOne(i, v, v > 1)', false, 13, 43],
    ['l.exists_one(i, v, v > 1)', false, 13, 43],
    ['l.transformList(i, v, i + v)', [1, 3, 5], 47, 162],
    ['l.transformList(i, v, i > 0, i + v)', [3, 5], 38, 182],
    ["l.transformList(i, v, v == 1, 'x')", ['x'], 10, 152],
    ['l.transformMap(i, v, v * 2)', { 0: 2, 1: 4, 2: 6 }, 17, 82],
    ['l.transformMap(i, v, i > 0, v * 2)', { 1: 4, 2: 6 }, 18, 102],
    ['l.transformMapEntry(i, v, {string(i): v})', { 0: 1, 1: 2, 2: 3 }, 107, 382],
    [
      'l.transformList(i, v, l.transformList(j, w, i * j))',
      [
        [0, 0, 0],
        [0, 1, 2],
        [0, 2, 4],
      ],
      179,
      1752,
    ],
    ['m.all(k, v, true)', true, 8, 32],
    ['m.all(k, v, v > 0)', true, 12, 52],
    ['m.transformMap(k, v, v + 1)', { a: 2, b: 3 }, 12, 82],
    ['m.transformMapEntry(k, v, {v: k})', { 1: 'a', 2: 'b' }, 70, 372],
    ['m.transformList(k, v, k)', ['a', 'b'], 28, 142],
  ])('%s', (expression, value, cost, estimate) => {
    expect(run(expression)).toEqual({ value, cost, estimate });
  });
});

describe('results', () => {
  test.each([
    ['[].all(i, v, false)', true],
    ['[1, 2].exists(i, v, i == 1 && v == 2)', true],
    ["{'a': 1, 'b': 1}.existsOne(k, v, v == 1)", false],
    ["{'a': 1, 'b': 2}.existsOne(k, v, v == 1)", true],
    ['dyn([5, 6]).transformMap(i, v, v)', { 0: 5, 1: 6 }],
    ["dyn({'x': 1}).all(k, v, k == 'x' && v == 1)", true],
    ['{}.transformMap(k, v, v)', {}],
    ['[1, 2, 3].transformList(i, v, [i, v].exists(i, i > 2))', [false, false, true]],
    // An error is the answer of a quantifier only when no element decides it.
    ['[0, 1].exists(i, v, 1 / v == 1)', true],
    ['[0, 1].all(i, v, 1 / v == 1)', { error: 'division by zero' }],
    ['[1, 0].all(i, v, v == 0 && 1 / v == 1)', false],
    ['[0, 1].existsOne(i, v, 1 / v == 1)', { error: 'division by zero' }],
    ["[1, 2].transformMapEntry(i, v, {'a': v})", { error: 'insert failed: key a already exists' }],
  ])('%s', (expression, value) => {
    expect(run(expression).value).toEqual(value);
  });
});

describe('compile errors as cel-go words and places them', () => {
  test.each([
    ['l.all(i, i, true)', 'ERROR: <input>:1:10: duplicate variable name: i'],
    ['l.all(__result__, v, true)', 'ERROR: <input>:1:7: iteration variable overwrites accumulator variable'],
    ['l.all(i.a, v, true)', 'ERROR: <input>:1:8: argument must be a simple name'],
    ['l.exists(i, 1, true)', 'ERROR: <input>:1:13: argument must be a simple name'],
    [
      '1.all(i, v, true)',
      "ERROR: <input>:1:1: expression of type 'int' cannot be range of a comprehension (must be list, map, or dynamic)",
    ],
    ['l.all(i, v, v)', "ERROR: <input>:1:13: expected type 'bool' but found 'int'"],
    ['l.exists(i, v, v)', "ERROR: <input>:1:16: expected type 'bool' but found 'int'"],
    [
      'l.existsOne(i, v, v)',
      "ERROR: <input>:1:12: found no matching overload for '_?_:_' applied to '(int, int, int)'",
    ],
    [
      "l.transformList(i, v, 1, 'x')",
      "ERROR: <input>:1:16: found no matching overload for '_?_:_' applied to '(int, list(string), list(string))'",
    ],
    [
      "l.transformMap(i, v, 'x', v)",
      "ERROR: <input>:1:15: found no matching overload for '_?_:_' applied to '(string, map(int, int), map(int, int))'",
    ],
    [
      'l.transformMapEntry(i, v, v)',
      "ERROR: <input>:1:20: found no matching overload for 'cel.@mapInsert' applied to '(map(dyn, dyn), int)'",
    ],
  ])('%s', (expression, error) => {
    const result = compiler.compile(expression);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.split('\n')[0]).toBe(error);
  });
});

describe('types', () => {
  test.each([
    ['l.transformList(i, v, string(v))', 'list<string>'],
    ['l.transformMap(i, v, v > 1)', 'map<int, bool>'],
    ['m.transformMap(k, v, double(v))', 'map<string, double>'],
    ['m.transformMapEntry(k, v, {v: k})', 'map<int, string>'],
    ['m.existsOne(k, v, v > 1)', 'bool'],
  ])('%s', (expression, type) => {
    expect(compiled(expression).outputType).toBe(type);
  });
});

test('a long loop stops at the per-call limit', () => {
  const nested = new ExpressionCompiler({ l: { schema: { type: 'array', items: { type: 'integer' } } } }).compile(
    'l.all(i, v, l.all(j, w, i + j >= 0))',
  );
  if (!nested.ok) throw new Error(nested.error);
  const result = nested.compiled.evaluate({ l: Array.from({ length: 2000 }, (_, i) => i) });
  expect(result).toMatchObject({ ok: false, costExceeded: true });
});
