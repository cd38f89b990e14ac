/**
 * Runtime cost of an evaluation, and the limits that stop one.
 *
 * Follows the reference's accounting: a constant is free, reading a variable or selecting a field
 * costs 1, creating a list 10 and a map 30, a function call 1 unless its library prices it by the
 * size of its arguments (strings at 0.1 per character, lists per element), the boolean operators
 * and the conditional cost nothing of their own, and every turn of a comprehension's loop costs 1
 * more for its condition. A call may cost at most 1,000,000; all the expressions of one request
 * share 10,000,000. Past its limit an evaluation stops with the reference's error.
 */
export const PER_CALL_COST_LIMIT = 1_000_000;
export const PER_REQUEST_COST_BUDGET = 10_000_000;
export const COST_LIMIT_EXCEEDED_MESSAGE = 'operation cancelled: actual cost limit exceeded';

/** Cost factors of the reference's cost model. */
export const STRING_TRAVERSAL_FACTOR = 0.1;
export const LIST_CREATE_COST = 10;
export const MAP_CREATE_COST = 30;
export const STRUCT_CREATE_COST = 40;
export const SELECT_COST = 1;
/** How much of a regular expression's length one of its states is guessed to take. */
export const REGEX_LENGTH_FACTOR = 0.25;

/**
 * What cel-go's expansions of the standard macros cost beyond their operands, by macro: `turn`,
 * each turn's loop condition and accumulator read (`@not_strictly_false(__result__)` and
 * `__result__ && ...` for all; with a `!` for exists); `stop`, the condition that ends a
 * quantifier before the last element; `result`, reading the result (exists_one compares it with
 * 1). A kept element of map and filter costs APPEND_COST (`__result__ + [element]`), a counted
 * one of exists_one COUNT_COST (`__result__ + 1`); the accumulator a ternary passes on is free.
 */
export const MACRO_PRICES: Readonly<Record<string, { turn: number; stop: number; result: number }>> = {
  all: { turn: 2 + SELECT_COST, stop: 2, result: SELECT_COST },
  exists: { turn: 3 + SELECT_COST, stop: 3, result: SELECT_COST },
  exists_one: { turn: 0, stop: 0, result: SELECT_COST + 1 },
  map: { turn: 0, stop: 0, result: SELECT_COST },
  filter: { turn: 0, stop: 0, result: SELECT_COST },
};
export const APPEND_COST = SELECT_COST + LIST_CREATE_COST + 1;
export const COUNT_COST = SELECT_COST + 1;

export class CostLimitExceededError extends Error {
  constructor() {
    super(COST_LIMIT_EXCEEDED_MESSAGE);
    this.name = 'CostLimitExceededError';
  }
}

/** What one evaluation has spent; throws once past its limit, and again on every later charge. */
export class CostMeter {
  cost = 0;
  exceeded = false;
  constructor(readonly limit: number) {}

  charge(amount: number): void {
    this.cost += amount;
    if (this.cost > this.limit) {
      this.exceeded = true;
      throw new CostLimitExceededError();
    }
  }
}

/** The budget shared by every expression evaluated for one request. */
export class RequestCostBudget {
  constructor(public remaining: number = PER_REQUEST_COST_BUDGET) {}
}

// Evaluation is synchronous (no library function is async), so the meter of the evaluation
// under way can live here rather than be threaded through the library's context objects.
let activeMeter: CostMeter | undefined;

/** Runs `evaluate` with every instrumented node charging `meter`. */
export function withMeter<T>(meter: CostMeter, evaluate: () => T): T {
  const previous = activeMeter;
  activeMeter = meter;
  try {
    return evaluate();
  } finally {
    activeMeter = previous;
  }
}

/** The meter of the evaluation under way, if it is metered. */
export function currentMeter(): CostMeter | undefined {
  return activeMeter;
}

/** The size CEL's cost model uses for a value: characters, bytes, elements or entries. */
export function sizeOf(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (value instanceof Uint8Array) return value.length;
  if (Array.isArray(value)) return value.length;
  if (value instanceof Map) return value.size;
  if (value !== null && typeof value === 'object') return Object.keys(value).length;
  return 1;
}

export function traversalCost(value: unknown): number {
  return Math.ceil(sizeOf(value) * STRING_TRAVERSAL_FACTOR);
}

/** Cost of one call given its argument values (receiver first) and its result. */
export type CallCost = (args: readonly unknown[], result: unknown) => number;
