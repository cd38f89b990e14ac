/**
 * Cost: an expression that would run too long is refused at write time (static estimate over
 * the limit, with the reference's message) or stopped at run time (per-call limit 1,000,000,
 * per-request budget 10,000,000), never left running.
 */
import { ExpressionCompiler, RequestCostBudget } from '../../server/cel/environment';
import { STATIC_ESTIMATED_COST_LIMIT, costExceededMessage } from '../../server/cel/estimated-cost';
import {
  COST_LIMIT_EXCEEDED_MESSAGE,
  PER_CALL_COST_LIMIT,
  PER_REQUEST_COST_BUDGET,
} from '../../server/cel/runtime-cost';

function compile(variables: ConstructorParameters<typeof ExpressionCompiler>[0], expression: string) {
  const compiled = new ExpressionCompiler(variables).compile(expression);
  if (!compiled.ok) throw new Error(compiled.error);
  return compiled.compiled;
}

const numbers = { schema: { type: 'array', items: { type: 'integer' } } };

describe('runtime cost', () => {
  test('a nested loop over 2,000 items stops at the per-call limit, quickly', () => {
    const expression = compile({ l: numbers }, 'l.all(x, l.all(y, x + y >= 0))');
    const list = Array.from({ length: 2000 }, (_, i) => i);
    const started = Date.now();
    const result = expression.evaluate({ l: list });
    expect(result).toEqual({
      ok: false,
      error: COST_LIMIT_EXCEEDED_MESSAGE,
      cost: expect.any(Number),
      costExceeded: true,
    });
    expect(result.cost).toBeGreaterThan(PER_CALL_COST_LIMIT);
    expect(result.cost).toBeLessThan(PER_CALL_COST_LIMIT + 100);
    // Stopping is what the cost bound above shows; the clock only guards against a hang (jest runs
    // the engine several times slower than plain Node, and the machine is shared).
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  test('the same loop over 100 items finishes and reports what it cost', () => {
    const expression = compile({ l: numbers }, 'l.all(x, l.all(y, x + y >= 0))');
    const result = expression.evaluate({ l: Array.from({ length: 100 }, (_, i) => i) });
    expect(result).toMatchObject({ ok: true, value: true });
    // 100 x 100 inner turns, each reading x and y, adding, comparing and testing the loop.
    expect(result.cost).toBeGreaterThan(100 * 100 * 4);
    expect(result.cost).toBeLessThan(PER_CALL_COST_LIMIT);
  });

  test('an error inside || does not hide that the budget ran out', () => {
    const expression = compile({ l: numbers }, 'l.all(x, l.all(y, x + y >= 0)) || true');
    const result = expression.evaluate({ l: Array.from({ length: 2000 }, (_, i) => i) }, { callLimit: 100_000 });
    expect(result).toMatchObject({ ok: false, costExceeded: true });
  });

  test('string functions cost by length', () => {
    const expression = compile({ s: 'string' }, 's.lowerAscii()');
    const short = expression.evaluate({ s: 'A' });
    const long = expression.evaluate({ s: 'A'.repeat(10_000) });
    expect(long.cost - short.cost).toBeGreaterThanOrEqual(999);
  });

  test('the request budget is shared and runs out across evaluations', () => {
    const expression = compile({ l: numbers }, 'l.all(x, l.all(y, x + y >= 0))');
    const list = Array.from({ length: 100 }, (_, i) => i); // ~ 50,000 per evaluation
    expect(new RequestCostBudget().remaining).toBe(PER_REQUEST_COST_BUDGET);
    // A smaller budget than the request's 10,000,000 keeps the test short; the sharing is the same.
    const budget = new RequestCostBudget(500_000);
    const outcomes: boolean[] = [];
    for (let i = 0; i < 15; i++) outcomes.push(expression.evaluate({ l: list }, { budget }).ok);
    const firstFailure = outcomes.indexOf(false);
    expect(firstFailure).toBeGreaterThan(5);
    expect(firstFailure).toBeLessThan(15);
    expect(outcomes.slice(firstFailure).every((ok) => !ok)).toBe(true);
    expect(budget.remaining).toBe(0);
  });
});

describe('static estimate', () => {
  test('the reference message, by factor', () => {
    expect(costExceededMessage('estimated rule cost', 18_100_000, 1_000_000)).toBe(
      'estimated rule cost exceeds budget by factor of 18.1x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)',
    );
    expect(costExceededMessage('estimated rule cost', 1e12, 1_000_000)).toContain('by factor of more than 100x');
    expect(costExceededMessage('estimated rule cost', 1_200_000, 1_000_000)).toContain('by factor of 1.200000x');
  });

  const names = (bounds: { maxItems?: number; maxLength?: number }) => ({
    schema: {
      type: 'object',
      properties: {
        names: { type: 'array', maxItems: bounds.maxItems, items: { type: 'string', maxLength: bounds.maxLength } },
      },
    },
  });
  const quadratic = 'self.names.all(x, self.names.exists(y, x == y && x.matches("^[a-z]+$")))';

  test('a quadratic rule over unbounded lists is estimated far over the limit', () => {
    const cost = compile({ self: names({}) }, quadratic).estimateMaxCost();
    expect(cost).toBeGreaterThan(100 * STATIC_ESTIMATED_COST_LIMIT);
  });

  test('the same rule with maxItems and maxLength fits', () => {
    const cost = compile({ self: names({ maxItems: 10, maxLength: 63 }) }, quadratic).estimateMaxCost();
    expect(cost).toBeGreaterThan(100);
    expect(cost).toBeLessThan(STATIC_ESTIMATED_COST_LIMIT);
  });

  test('the estimate bounds what the rule really costs at the declared sizes', () => {
    const expression = compile({ self: names({ maxItems: 10, maxLength: 63 }) }, quadratic);
    const value = { names: Array.from({ length: 10 }, (_, i) => `${'n'.repeat(62)}${String.fromCharCode(97 + i)}`) };
    const actual = expression.evaluate({ self: value });
    expect(actual.ok).toBe(true);
    expect(actual.cost).toBeLessThanOrEqual(expression.estimateMaxCost());
  });

  test("sets functions are estimated at the product of the lists' sizes, as cel-go estimates them", () => {
    const estimate = (expression: string, maxItems: number) =>
      compile({ self: names({ maxItems, maxLength: 5 }) }, expression).estimateMaxCost();
    // From 10 to 100 items per list, the product grows by 100 * 100 - 10 * 10.
    const growth = (expression: string) => estimate(expression, 100) - estimate(expression, 10);
    const reads = growth('size(self.names) == size(self.names)');
    expect(growth('sets.contains(self.names, self.names)') - reads).toBe(100 * 100 - 10 * 10);
    expect(growth('sets.equivalent(self.names, self.names)') - reads).toBe(2 * (100 * 100 - 10 * 10));
    expect(growth('sets.intersects(self.names, self.names)') - reads).toBe(100 * 100 - 10 * 10);
  });

  test('lists of objects with a rule per item', () => {
    const schema = {
      type: 'object',
      properties: {
        ports: {
          type: 'array',
          maxItems: 5,
          items: { type: 'object', properties: { name: { type: 'string', maxLength: 15 }, port: { type: 'integer' } } },
        },
      },
    };
    const expression = compile({ self: { schema } }, 'self.ports.all(p, p.port > 0 && p.name.size() <= 15)');
    expect(expression.evaluate({ self: { ports: [{ name: 'http', port: 80 }] } })).toMatchObject({
      ok: true,
      value: true,
    });
    expect(expression.estimateMaxCost()).toBeLessThan(200);
  });

  test('the network and semver functions, as the reference estimates them', () => {
    const estimate = (expression: string) =>
      compile({ s: { schema: { type: 'string', maxLength: 1000 } } }, expression).estimateMaxCost();
    // Reading s (1), then parsing its 1,000 characters at 0.1 each.
    expect(estimate('isIP(s)')).toBe(1 + 100);
    expect(estimate('isSemver(s)')).toBe(1 + 100);
    expect(estimate('ip.isCanonical(s)')).toBe(1 + 200);
    // Parsing the literal (1); comparing up to 16 bytes twice at 0.1 (4), masking (2) and 1; then
    // reading s (1) and parsing it, in the call or by ip().
    expect(estimate("cidr('10.0.0.0/8').containsCIDR(s)")).toBe(1 + 4 + 2 + 1 + 1 + 100);
    expect(estimate("cidr('10.0.0.0/8').containsIP(ip(s))")).toBe(1 + 4 + 1 + 100);
  });
});
