/**
 * Instrumentation of a type-checked expression's tree: every node charges the running
 * evaluation's cost meter for what it did (the prices of runtime-cost.ts, by the values it saw),
 * calls named in the overrides go to capstan's implementation instead of the engine's, equality
 * asks `equals` first (lists a schema marks as sets or maps compare without order), and the
 * results of arithmetic and calls are checked against CEL's ranges (the engine lets an int
 * exceed 64 bits, for one).
 */
import type { ASTNode } from '@marcbachmann/cel-js';
import { UnsignedInt } from './engine-values';
import type { Refinement } from './libraries/library';
import {
  APPEND_COST,
  COUNT_COST,
  CostLimitExceededError,
  LIST_CREATE_COST,
  MACRO_PRICES,
  MAP_CREATE_COST,
  SELECT_COST,
  STRING_TRAVERSAL_FACTOR,
  STRUCT_CREATE_COST,
  currentMeter,
  sizeOf,
  traversalCost,
  type CallCost,
} from './runtime-cost';
import { OPTIONAL_MAP_OP, type OptionalMap } from './optional-library';
import { SORT_BY_OP, type SortBy } from './sort-by';
import { TWO_VARIABLE_LOOP_OP, type TwoVariableLoop } from './two-variable-comprehensions';

export interface Instrumentation {
  /** A call's cost by name: `name` for a global function, `.name` for a receiver-style one. */
  readonly callCosts: ReadonlyMap<string, CallCost>;
  /** Replacements of the engine's functions: `.name/arity` (method) or `name/arity`. */
  readonly overrides: ReadonlyMap<string, (...args: never[]) => unknown>;
  /** `left == right` where capstan's equality differs from the engine's, else undefined. */
  readonly equals: (left: unknown, right: unknown) => boolean | undefined;
  /** Narrowings of the engine's functions, keyed as overrides. */
  readonly refinements: ReadonlyMap<string, Refinement>;
  /** The order of `left` and `right` where capstan's differs from the engine's (NaN: unordered), else undefined. */
  readonly order: (left: unknown, right: unknown) => number | undefined;
  /** `value in collection` where capstan's membership differs from the engine's, else undefined. */
  readonly contains: (value: unknown, collection: unknown) => boolean | undefined;
  /** The key of `map` that `key` selects where the engine's lookup would miss it, else undefined. */
  readonly keyOf: (map: Map<unknown, unknown>, key: unknown) => unknown;
  /** Throws when a computed value is out of CEL's range. */
  readonly verifyResult: (value: unknown) => void;
}

interface NodeMeta {
  alternate?: InstrumentedNode;
  macro?: InstrumentedNode;
  evaluate: EvaluateFn;
}
type EvaluateFn = (ev: unknown, ast: InstrumentedNode, ctx: unknown) => unknown;
type Handle = (...args: unknown[]) => unknown;
/** The engine's AST node as instrumentation sees it (its published type omits these members). */
interface InstrumentedNode {
  readonly op: string;
  readonly args: unknown;
  meta: NodeMeta;
  evaluate: EvaluateFn;
  handle?: Handle;
  lastValue?: unknown;
  readonly checkedType?: { readonly name: string };
}

/** The relational operators, each as a test of an order (-1, 0, 1, or NaN for unordered). */
const RELATIONS: Readonly<Record<string, (order: number) => boolean>> = {
  '<': (order) => order < 0,
  '<=': (order) => order <= 0,
  '>': (order) => order > 0,
  '>=': (order) => order >= 0,
};

/** Operators and calls: the nodes that compute a new value (rather than select or combine). */
const COMPUTING_OPS = new Set(['call', 'rcall', '+', '-', '*', '/', '%', '-_']);

function isNode(value: unknown): value is InstrumentedNode {
  return typeof value === 'object' && value !== null && 'op' in value && 'meta' in value;
}

/** The nodes directly under `node`, including those of its macro expansion or alternate. */
export function childNodes(node: InstrumentedNode): InstrumentedNode[] {
  const found: InstrumentedNode[] = [];
  const visit = (value: unknown): void => {
    if (isNode(value)) found.push(value);
    else if (Array.isArray(value)) value.forEach(visit);
  };
  if (node.op === 'comprehension') {
    // Its arguments also hold the loop's context, which leads back up the tree.
    const { iterable, init, step } = node.args as { iterable?: unknown; init?: unknown; step?: unknown };
    [iterable, init, step].forEach(visit);
  } else if (node.op === TWO_VARIABLE_LOOP_OP) {
    const { iterable, filter, body } = node.args as TwoVariableLoop;
    [iterable, filter, body].forEach(visit);
  } else if (node.op === OPTIONAL_MAP_OP) {
    const { target, body } = node.args as OptionalMap;
    [target, body].forEach(visit);
  } else if (node.op === SORT_BY_OP) {
    const { target, key } = node.args as SortBy;
    [target, key].forEach(visit);
  } else {
    visit(node.args);
  }
  if (node.meta.alternate) found.push(node.meta.alternate);
  const macro: unknown = node.meta.macro;
  if (isNode(macro)) found.push(macro);
  else if (macro) {
    // The optional-type macros (orValue, or) keep their operands on a descriptor, not a node.
    const { receiver, arg } = macro as { receiver?: unknown; arg?: unknown };
    [receiver, arg].forEach(visit);
  }
  return found;
}

/** Every node of the tree under `root`, each once (macro expansions share their operands). */
export function treeNodes(root: InstrumentedNode): InstrumentedNode[] {
  const seen = new Set<InstrumentedNode>();
  const pending = [root];
  while (pending.length > 0) {
    const node = pending.pop()!;
    if (seen.has(node)) continue;
    seen.add(node);
    pending.push(...childNodes(node));
  }
  return [...seen];
}

function callArgumentNodes(node: InstrumentedNode): InstrumentedNode[] {
  const args = node.args as unknown[];
  if (node.op === 'call') return args[1] as InstrumentedNode[];
  return [args[1] as InstrumentedNode, ...(args[2] as InstrumentedNode[])];
}

function operatorCost(node: InstrumentedNode, result: unknown): number {
  if (!Array.isArray(node.args)) return 1; // a unary operator
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

/** A node's price: a constant, or a function of its result (and its operands' values). */
type Price = number | ((result: unknown) => number);

/** Operators whose price depends on their operands' sizes. */
const SIZED_OPERATORS = new Set(['==', '!=', 'in', '+']);

function priceOf(node: InstrumentedNode, callCosts: Instrumentation['callCosts']): Price {
  switch (node.op) {
    case 'value':
    case '&&':
    case '||':
    case '?:':
    case 'comprehension': // charged as its macro (see instrument)
    case TWO_VARIABLE_LOOP_OP: // charges its own turns
    case OPTIONAL_MAP_OP: // charges its own expansion
    case SORT_BY_OP: // charges its own expansion
    case 'accuValue': // the accumulator a ternary passes on, free in cel-go
      return 0;
    case 'accuInc':
      return COUNT_COST;
    case 'accuPush':
      // cel-go's optimizer makes `[element]` a constant when the element is one.
      return isConstantLiteral(node.args) ? APPEND_COST - LIST_CREATE_COST : APPEND_COST;
    case 'id':
      // A namespace (`optional.`, `lists.`, `strings.`) is part of a function's name to cel-go.
      return isNamespace(node) ? 0 : SELECT_COST;
    case '.':
    case '.?':
    case '[]':
    case '[?]':
      return SELECT_COST;
    case 'list':
      // cel-go's optimizer makes a literal of constants a constant: free at run time.
      return isConstantLiteral(node) ? 0 : LIST_CREATE_COST;
    case 'map':
      return isConstantLiteral(node) ? 0 : MAP_CREATE_COST;
    case 'message':
      return STRUCT_CREATE_COST;
    case 'call':
    case 'rcall': {
      const name = (node.args as unknown[])[0] as string;
      const cost = callCosts.get(node.op === 'rcall' ? `.${name}` : name);
      if (!cost) return 1;
      const argumentNodes = callArgumentNodes(node);
      return (result) =>
        cost(
          argumentNodes.map((arg) => arg.lastValue),
          result,
        );
    }
    default:
      return SIZED_OPERATORS.has(node.op) ? (result) => operatorCost(node, result) : 1;
  }
}

/** Whether `node` is a constant, or a list or map literal of constants only. */
export function isConstantLiteral(node: unknown): boolean {
  if (!isNode(node)) return false;
  if (node.op === 'value') return true;
  if (node.op === 'list') return Array.isArray(node.args) && node.args.every(isConstantLiteral);
  if (node.op === 'map') {
    return (
      Array.isArray(node.args) &&
      node.args.every((entry) => Array.isArray(entry) && isConstantLiteral(entry[0]) && isConstantLiteral(entry[1]))
    );
  }
  return false;
}

/** Whether `node` names a function namespace: the engine resolves one as a constant of a holder type. */
export function isNamespace(node: { readonly checkedType?: { readonly name: string } }): boolean {
  return node.checkedType?.name.endsWith('Namespace') ?? false;
}

/** The nodes whose values a sized price reads: operands of sized operators and priced calls. */
function operandsRead(node: InstrumentedNode, price: Price): InstrumentedNode[] {
  if (typeof price === 'number') return [];
  if (node.op === 'call' || node.op === 'rcall') return callArgumentNodes(node);
  return Array.isArray(node.args) ? (node.args as InstrumentedNode[]) : [];
}

function innerEvaluate(node: InstrumentedNode): EvaluateFn {
  const { alternate, macro, evaluate } = node.meta;
  if (alternate) return (ev, _ast, ctx) => alternate.evaluate(ev, alternate, ctx);
  if (macro) return (ev, _ast, ctx) => (macro.evaluate as EvaluateFn)(ev, macro, ctx);
  return evaluate;
}

/** An engine comprehension that expands a standard macro, with the turns of its evaluation under way. */
interface MacroLoop {
  readonly macro: string;
  readonly comprehension: InstrumentedNode;
  readonly iterable: InstrumentedNode;
  readonly step: InstrumentedNode;
  turns: number;
}

/** The comprehensions of the tree that expand standard macros, by their comprehension and step nodes. */
function standardMacroLoops(nodes: readonly InstrumentedNode[]): Map<InstrumentedNode, MacroLoop> {
  const loops = new Map<InstrumentedNode, MacroLoop>();
  for (const node of nodes) {
    const comprehension = node.meta.alternate;
    if (node.op !== 'rcall' || comprehension?.op !== 'comprehension') continue;
    const macro = (node.args as unknown[])[0] as string;
    if (MACRO_PRICES[macro] === undefined) continue;
    const { iterable, step } = comprehension.args as { iterable: InstrumentedNode; step: InstrumentedNode };
    const loop: MacroLoop = { macro, comprehension, iterable, step, turns: 0 };
    loops.set(comprehension, loop).set(step, loop);
  }
  return loops;
}

/**
 * What a macro's loop costs once it ends, beyond the result read its call node charges: the
 * condition that stopped a quantifier before the last element, exists_one's comparison.
 */
function loopEndCost(loop: MacroLoop, value: unknown): number {
  const { stop, result } = MACRO_PRICES[loop.macro];
  const decisive = loop.macro === 'all' ? false : loop.macro === 'exists' ? true : undefined;
  const stoppedEarly = value === decisive && loop.turns < sizeOf(loop.iterable.lastValue);
  return (stoppedEarly ? stop : 0) + result - SELECT_COST;
}

/**
 * Makes a type-checked expression charge the active meter as it runs, and routes the calls named
 * in `overrides` to their replacement (the library's own `matches` is not RE2, for instance).
 */
export function instrument(
  root: ASTNode,
  { callCosts, overrides, refinements, equals, order, contains, keyOf, verifyResult }: Instrumentation,
): void {
  const seen = treeNodes(root as unknown as InstrumentedNode);
  const loops = standardMacroLoops(seen);
  const prices = new Map<InstrumentedNode, Price>();
  const keepValue = new Set<InstrumentedNode>();
  for (const loop of loops.values()) keepValue.add(loop.iterable);
  for (const node of seen) {
    const price = priceOf(node, callCosts);
    prices.set(node, price);
    for (const operand of operandsRead(node, price)) keepValue.add(operand);
  }
  for (const node of seen) {
    if ((node.op === 'call' || node.op === 'rcall') && node.handle) {
      const name = (node.args as unknown[])[0] as string;
      const arity = callArgumentNodes(node).length - (node.op === 'rcall' ? 1 : 0);
      const key = `${node.op === 'rcall' ? '.' : ''}${name}/${arity}`;
      const replacement = overrides.get(key);
      const refinement = refinements.get(key);
      if (replacement) {
        const fn = replacement as (...args: unknown[]) => unknown;
        node.handle = (args) => fn(...(args as unknown[]));
      } else if (refinement) {
        const engine = node.handle;
        node.handle = (args, ...rest) => refinement(args as unknown[], () => engine(args, ...rest));
      }
    }
    if ((node.op === '==' || node.op === '!=') && node.handle) {
      const engine = node.handle;
      const negate = node.op === '!=';
      node.handle = (left, right, ...rest) => {
        const equal = equals(left, right);
        return equal === undefined ? engine(left, right, ...rest) : equal !== negate;
      };
    }
    const relation = node.handle ? RELATIONS[node.op] : undefined;
    if (relation) {
      const engine = node.handle!;
      node.handle = (left, right, ...rest) => {
        const ordered = order(left, right);
        return ordered === undefined ? engine(left, right, ...rest) : relation(ordered);
      };
    }
    if (node.op === 'in' && node.handle) {
      const engine = node.handle;
      node.handle = (value, collection, ...rest) => contains(value, collection) ?? engine(value, collection, ...rest);
    }
    if (node.op === '[]' && node.handle) {
      // A list index may be a uint (`list[dyn(0u)]`), which the engine looks up as a key, and a
      // map's number key is found by any number equal to it (`{0u: 1}[0u]`, `{1: 'a'}[1u]`).
      const engine = node.handle;
      node.handle = (left, index, ...rest) => {
        if (Array.isArray(left) && index instanceof UnsignedInt) return engine(left, index.value, ...rest);
        if (left instanceof Map) return engine(left, keyOf(left, index) ?? index, ...rest);
        return engine(left, index, ...rest);
      };
    }
    const inner = innerEvaluate(node);
    const price = prices.get(node)!;
    const loop = loops.get(node);
    const turnOf = loop?.step === node ? loop : undefined;
    const turnCost = turnOf ? MACRO_PRICES[turnOf.macro].turn : 0;
    const fixed = typeof price === 'number' ? price + turnCost : undefined;
    const computes = COMPUTING_OPS.has(node.op);
    const keeps = keepValue.has(node);
    const evaluate: EvaluateFn = (ev, ast, ctx) => {
      const meter = currentMeter();
      if (meter?.exceeded) throw new CostLimitExceededError();
      const value = inner(ev, ast, ctx);
      if (computes) verifyResult(value);
      if (keeps) node.lastValue = value;
      if (meter) meter.charge(fixed ?? (price as (result: unknown) => number)(value) + turnCost);
      return value;
    };
    if (turnOf) {
      node.evaluate = (ev, ast, ctx) => {
        turnOf.turns++;
        return evaluate(ev, ast, ctx);
      };
    } else if (loop?.comprehension === node) {
      node.evaluate = (ev, ast, ctx) => {
        loop.turns = 0;
        const value = evaluate(ev, ast, ctx);
        currentMeter()?.charge(loopEndCost(loop, value));
        return value;
      };
    } else {
      node.evaluate = evaluate;
    }
  }
}
