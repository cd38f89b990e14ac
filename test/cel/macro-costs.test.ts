/**
 * The standard macros (all, exists, exists_one, map, filter) and literals cost what cel-go 0.26
 * charges for its expansions through the reference's environment, at run time and in the
 * estimate: for `l` a list of at most 10 ints ([1, 2, 3]), `e` the same type (empty).
 */
import { ExpressionCompiler } from '../../server/cel/environment';
import type { CelSchema } from '../../server/cel/schema-types';
import { toJson } from '../../server/cel/values';

const LIST: CelSchema = { type: 'array', maxItems: 10, items: { type: 'integer' } };
const compiler = new ExpressionCompiler({ l: { schema: LIST }, e: { schema: LIST } }, { environment: 'stored' });

test.each([
  // A quantifier's turn: its loop condition and accumulator read; stopping early tests the condition once more.
  ['l.all(x, x > 0)', true, 17, 52],
  ['l.all(x, x > 1)', false, 9, 52],
  ['l.exists(x, x > 2)', true, 20, 62],
  ['l.exists(x, x > 0)', true, 11, 62],
  ['e.all(x, x > 0)', true, 2, 52],
  // exists_one counts (2) and compares the count with 1 (2).
  ['l.exists_one(x, x > 2)', true, 11, 43],
  // A kept element: the accumulator, the one-element list and the append (12).
  ['l.map(x, x * 2)', [2, 4, 6], 44, 152],
  ['l.map(x, x > 1, x * 2)', [4, 6], 36, 172],
  ["l.map(x, 'a')", ['a', 'a', 'a'], 8, 132],
  ['l.filter(x, x > 1)', [2, 3], 34, 162],
  ['e.map(x, x)', [], 2, 142],
  ['l.all(x, l.all(y, x + y >= 0))', true, 80, 752],
  ['l.filter(x, x > 1).map(y, y * 2)', [4, 6], 63, 313],
  // Literals of constants are constants at run time; the estimate counts creating them.
  ['[1, 2, 3].sort()', [1, 2, 3], 29, 39],
  ['[1, 2, 2, 3, 3, 3].distinct()', [1, 2, 3], 83, 93],
  ['[l[0]].size()', 1, 13, 13],
])('%s', (expression, value, cost, estimate) => {
  const compiled = compiler.compile(expression);
  if (!compiled.ok) throw new Error(compiled.error);
  const result = compiled.compiled.evaluate({ l: [1, 2, 3], e: [] });
  expect({ value: result.ok ? toJson(result.value) : result, cost: result.cost }).toEqual({ value, cost });
  expect(compiled.compiled.estimateMaxCost()).toBe(estimate);
});
