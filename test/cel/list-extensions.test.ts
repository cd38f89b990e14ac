/**
 * cel-go's list extension at version 3 (1.34): results, runtime costs and estimates as cel-go
 * 0.26 gives them through the reference's stored-expression environment, for `l` a list of at
 * most 10 ints ([1, 2, 3]) and `e` the same type (empty). A 1.34 server compiles new expressions
 * for compatibility version 1.33, which does not have the extension: only stored ones may use it.
 */
import { ExpressionCompiler } from '../../server/cel/environment';
import type { CelSchema } from '../../server/cel/schema-types';
import { toJson } from '../../server/cel/values';

const LIST: CelSchema = { type: 'array', maxItems: 10, items: { type: 'integer' } };
const STRINGS: CelSchema = { type: 'array', maxItems: 10, items: { type: 'string' } };
const VARIABLES = { l: { schema: LIST }, e: { schema: LIST }, s: { schema: STRINGS } };
const stored = new ExpressionCompiler(VARIABLES, { environment: 'stored' });
const fresh = new ExpressionCompiler(VARIABLES);
const VALUES = { l: [1, 2, 3], e: [], s: ['b', 'c', 'a'] };

function compiled(expression: string) {
  const result = stored.compile(expression);
  if (!result.ok) throw new Error(result.error);
  return result.compiled;
}

function run(expression: string): unknown {
  const result = compiled(expression).evaluate(VALUES);
  return result.ok ? toJson(result.value) : { error: result.error };
}

describe('results, runtime cost and estimate as cel-go gives them', () => {
  test.each([
    ['l.slice(1, 3)', [2, 3], 14, 14],
    ['l.slice(0, 0)', [], 12, 12],
    ['l.reverse()', [3, 2, 1], 15, 22],
    ['e.reverse()', [], 12, 22],
    ['l.sort()', [1, 2, 3], 30, 212],
    ['e.sort()', [], 12, 212],
    ['l.distinct()', [1, 2, 3], 30, 212],
    ['l.sortBy(x, -x)', [3, 2, 1], 75, 375],
    ['l.sortBy(x, string(x))', [1, 2, 3], 75, 385],
    ['(l + l).sortBy(x, x)', [1, 1, 2, 2, 3, 3], 176, 1097],
  ])('%s', (expression, value, cost, estimate) => {
    const expression_ = compiled(expression);
    const result = expression_.evaluate(VALUES);
    expect({ value: result.ok ? toJson(result.value) : result, cost: result.cost }).toEqual({ value, cost });
    expect(expression_.estimateMaxCost()).toBe(estimate);
  });

  test.each([
    // Literal lists: cel-go's estimate counts creating them, its optimizer makes them constants at run time.
    ['lists.range(3)', 14],
    ['lists.range(0)', 11],
    ['[[1], [2, 3]].flatten()', 43],
    ['[[1], [2, 3]].flatten(0)', 41],
    ['[1, 2, 2, 3, 3, 3].distinct()', 93],
    ["['b', 'b', 'c', 'a', 'c'].distinct()", 71],
    ['[3, 1, 2].sort()', 39],
    ["['b', 'c', 'a'].sort()", 40],
    ['[true, false].sort()', 29],
    ["[b'b', b'a'].sort()", 30],
    ['[1, 2, 3].sortBy(x, -x)', 104],
  ])('estimate of %s', (expression, estimate) => {
    expect(compiled(expression).estimateMaxCost()).toBe(estimate);
  });
});

describe('results', () => {
  test.each([
    ['lists.range(5)', [0, 1, 2, 3, 4]],
    ['lists.range(0)', []],
    ['[1, 2, 3, 4].slice(1, 3)', [2, 3]],
    ['[1, 2, 3, 4].slice(2, 4)', [3, 4]],
    ['[[1], [2, 3], []].flatten()', [1, 2, 3]],
    ['[dyn(1), dyn([2, 3])].flatten()', [1, 2, 3]],
    ['[dyn(1), dyn([[2], [3]])].flatten(1)', [1, [2], [3]]],
    ['[dyn(1), dyn([[2], [3]])].flatten(2)', [1, 2, 3]],
    ['dyn(l).flatten()', [1, 2, 3]],
    ['[5, 3, 1, 2].reverse()', [2, 1, 3, 5]],
    ['[1, 2, 2, 3, 3, 3].distinct()', [1, 2, 3]],
    ["['b', 'b', 'c', 'a', 'c'].distinct()", ['b', 'c', 'a']],
    ['[3, 2, 1].sort()', [1, 2, 3]],
    ['s.sort()', ['a', 'b', 'c']],
    // Elements known only at run time: the list keeps its type, and sorts if they are comparable.
    ["dyn({'b': 1, 'a': 2}).map(k, k).sort() == ['a', 'b']", true],
    ["[duration('1s'), duration('0s')].sort() == [duration('0s'), duration('1s')]", true],
    ["['foo', 'bar', 'baz'].sortBy(n, n == 'bar' ? 0 : 1)", ['bar', 'foo', 'baz']],
    ['s.sortBy(x, x)', ['a', 'b', 'c']],
    ["[1, 2].sortBy(x, x == 1 ? dyn(1) : dyn('a'))", { error: 'list elements must have the same type' }],
    ["[dyn(1), dyn('b')].sort()", { error: 'list elements must have the same type' }],
    ['l.slice(2, 1)', { error: 'cannot slice(2, 1), start index must be less than or equal to end index' }],
    ['l.slice(-1, 1)', { error: 'cannot slice(-1, 1), negative indexes not supported' }],
    ['l.slice(0, 4)', { error: 'cannot slice(0, 4), list is length 3' }],
    ['dyn([[1]]).flatten(-1)', { error: 'level must be non-negative' }],
  ])('%s', (expression, value) => {
    expect(run(expression)).toEqual(value);
  });
});

describe('compile errors as cel-go words and places them', () => {
  test.each([
    [
      '1.sortBy(x, x)',
      'ERROR: <input>:1:1: sortBy can only be applied to a list, identifier, comprehension, call or select expression',
    ],
    [
      'l.sortBy(x, [x])',
      "ERROR: <input>:1:9: found no matching overload for '@sortByAssociatedKeys' applied to 'list(int).(list(list(int)))'",
    ],
    ['l.sortBy(x.y, x)', 'ERROR: <input>:1:11: argument is not an identifier'],
    ['[[1]].sort()', "ERROR: <input>:1:11: found no matching overload for 'sort' applied to 'list(list(int)).()'"],
    [
      "[{'a': 1}].sort()",
      "ERROR: <input>:1:16: found no matching overload for 'sort' applied to 'list(map(string, int)).()'",
    ],
  ])('%s', (expression, error) => {
    const result = stored.compile(expression);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.split('\n')[0]).toBe(error);
  });

  test('flatten() wants a list of lists', () => {
    expect(stored.compile('l.flatten()')).toMatchObject({ ok: false });
  });
});

test('new expressions (compatibility version 1.33) cannot use the extension', () => {
  for (const expression of ['lists.range(3)', 'l.slice(0, 1)', '[[1]].flatten()', 'l.reverse()', 'l.distinct()']) {
    expect(fresh.compile(expression)).toMatchObject({ ok: false });
  }
  // In the words kube-apiserver 1.34.4 refuses a new CRD rule with.
  expect(fresh.compile('l.sort()')).toEqual({
    ok: false,
    error: expect.stringMatching(/^ERROR: <input>:1:7: undeclared reference to 'sort' \(in container ''\)/),
  });
  expect(fresh.compile('l.sortBy(x, x)')).toMatchObject({ ok: false });
  // What 1.33 has stays in both.
  expect(fresh.compile('l.all(i, v, v > 0)')).toMatchObject({ ok: true });
  expect(fresh.compile('l.first()')).toMatchObject({ ok: true });
});
