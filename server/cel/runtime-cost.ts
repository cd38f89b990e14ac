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
import type { ASTNode } from '@marcbachmann/cel-js';

export const PER_CALL_COST_LIMIT = 1_000_000;
export const PER_REQUEST_COST_BUDGET = 10_000_000;
export const COST_LIMIT_EXCEEDED_MESSAGE = 'operation cancelled: actual cost limit exceeded';

/** Cost factors of the reference's cost model. */
export const STRING_TRAVERSAL_FACTOR = 0.1;
export const LIST_CREATE_COST = 10;
export const MAP_CREATE_COST = 30;
export const SELECT_COST = 1;

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

/** A call's cost by name: `name` for a global function, `.name` for a receiver-style one. */
export type CallCosts = ReadonlyMap<string, CallCost>;

/** Overrides of the library's own functions: `.name/arity` or `name/arity` to a handler. */
export type CallOverrides = ReadonlyMap<string, (...args: never[]) => unknown>;

interface NodeMeta {
  alternate?: InstrumentedNode;
  macro?: InstrumentedNode;
  evaluate: EvaluateFn;
}
type EvaluateFn = (ev: unknown, ast: InstrumentedNode, ctx: unknown) => unknown;
type Handle = (args: unknown[], a: unknown, b: unknown) => unknown;
/** The engine's AST node as instrumentation sees it (its published type omits these members). */
interface InstrumentedNode {
  readonly op: string;
  readonly args: unknown;
  meta: NodeMeta;
  evaluate: EvaluateFn;
  handle?: Handle;
  lastValue?: unknown;
}

function isNode(value: unknown): value is InstrumentedNode {
  return typeof value === 'object' && value !== null && 'op' in value && 'meta' in value;
}

function childNodes(node: InstrumentedNode): InstrumentedNode[] {
  const found: InstrumentedNode[] = [];
  const visit = (value: unknown): void => {
    if (isNode(value)) found.push(value);
    else if (Array.isArray(value)) value.forEach(visit);
  };
  if (node.op === 'comprehension') {
    // Its arguments also hold the loop's context, which leads back up the tree.
    const { iterable, init, step } = node.args as { iterable?: unknown; init?: unknown; step?: unknown };
    [iterable, init, step].forEach(visit);
  } else {
    visit(node.args);
  }
  if (node.meta.alternate) found.push(node.meta.alternate);
  if (node.meta.macro) found.push(node.meta.macro);
  return found;
}

function callArgumentNodes(node: InstrumentedNode): InstrumentedNode[] {
  const args = node.args as unknown[];
  if (node.op === 'call') return args[1] as InstrumentedNode[];
  return [args[1] as InstrumentedNode, ...(args[2] as InstrumentedNode[])];
}

function operatorCost(node: InstrumentedNode, result: unknown): number {
  const operands = (node.args as InstrumentedNode[]).map((operand) => operand.lastValue);
  switch (node.op) {
    case '==':
    case '!=': {
      const [left, right] = operands;
      if (typeof left === 'string' || left instanceof Uint8Array) {
        return 1 + Math.ceil(Math.min(sizeOf(left), sizeOf(right)) * STRING_TRAVERSAL_FACTOR);
      }
      if (Array.isArray(left) || left instanceof Map) return 1 + Math.min(sizeOf(left), sizeOf(right));
      return 1;
    }
    case 'in':
      return 1 + (Array.isArray(operands[1]) ? sizeOf(operands[1]) : 0);
    case '+':
      if (typeof result === 'string' || result instanceof Uint8Array) return 1 + traversalCost(result);
      if (Array.isArray(result)) return LIST_CREATE_COST;
      return 1;
    default:
      return 1;
  }
}

function nodeCost(node: InstrumentedNode, result: unknown, callCosts: CallCosts): number {
  switch (node.op) {
    case 'value':
    case '&&':
    case '||':
    case '?:':
    case 'comprehension':
    case 'accuInc':
    case 'accuPush':
      return 0;
    case 'id':
    case 'accuValue':
    case '.':
    case '.?':
    case '[]':
    case '[?]':
      return SELECT_COST;
    case 'list':
      return LIST_CREATE_COST;
    case 'map':
      return MAP_CREATE_COST;
    case 'call':
    case 'rcall': {
      const name = (node.args as unknown[])[0] as string;
      const cost = callCosts.get(node.op === 'rcall' ? `.${name}` : name);
      if (!cost) return 1;
      return cost(callArgumentNodes(node).map((arg) => arg.lastValue), result);
    }
    default:
      return operatorCost(node, result);
  }
}

function innerEvaluate(node: InstrumentedNode): EvaluateFn {
  const { alternate, macro, evaluate } = node.meta;
  if (alternate) return (ev, _ast, ctx) => alternate.evaluate(ev, alternate, ctx);
  if (macro) return (ev, _ast, ctx) => macro.evaluate(ev, macro, ctx);
  return evaluate;
}

/**
 * Makes a type-checked expression charge the active meter as it runs, and routes the calls named
 * in `overrides` to their replacement (the library's own `matches` is not RE2, for instance).
 */
export function instrument(root: ASTNode, callCosts: CallCosts, overrides: CallOverrides): void {
  const seen = new Set<InstrumentedNode>();
  const loopSteps = new Set<InstrumentedNode>();
  const pending: InstrumentedNode[] = [root as unknown as InstrumentedNode];
  while (pending.length > 0) {
    const node = pending.pop()!;
    if (seen.has(node)) continue;
    seen.add(node);
    if (node.op === 'comprehension') {
      const step = (node.args as unknown as { step: unknown }).step;
      if (isNode(step)) loopSteps.add(step);
    }
    pending.push(...childNodes(node));
  }
  for (const node of seen) {
    if ((node.op === 'call' || node.op === 'rcall') && node.handle) {
      const name = (node.args as unknown[])[0] as string;
      const arity = callArgumentNodes(node).length - (node.op === 'rcall' ? 1 : 0);
      const replacement = overrides.get(`${node.op === 'rcall' ? '.' : ''}${name}/${arity}`);
      if (replacement) {
        const fn = replacement as (...args: unknown[]) => unknown;
        node.handle = (args) => fn(...args);
      }
    }
    const inner = innerEvaluate(node);
    const extra = loopSteps.has(node) ? 1 : 0;
    node.evaluate = (ev, ast, ctx) => {
      const meter = activeMeter;
      if (meter?.exceeded) throw new CostLimitExceededError();
      const value = inner(ev, ast, ctx);
      node.lastValue = value;
      if (meter) meter.charge(nodeCost(node, value, callCosts) + extra);
      return value;
    };
  }
}
