/**
 * Two-variable comprehensions (cel-go's `ext.TwoVarComprehensions`, in the environment since
 * 1.32): `all`, `exists`, `existsOne` (or `exists_one`), `transformList`, `transformMap` and
 * `transformMapEntry` with an index and element (lists) or a key and value (maps), and an
 * optional filter for the transforms.
 *
 * Each call becomes one loop node of its own (the engine's comprehension has one variable). The
 * loop charges the meter what cel-go's expansion of the macro costs beyond its operands
 * (TWO_VARIABLE_LOOP_PRICES, measured against cel-go 0.26); estimated-cost.ts estimates with the
 * same prices.
 */
import type { Environment, RegisteredFunctionHandler } from '@marcbachmann/cel-js';
import { CelFunctionError, type CelLibrary } from './libraries/library';
import {
  macroError,
  typeName,
  type CheckedType,
  type Checker,
  type Node,
  type Operation,
  type Scope,
} from './macro-nodes';
import { LIST_CREATE_COST, MAP_CREATE_COST, SELECT_COST, currentMeter } from './runtime-cost';

/** The name of loop nodes in the tree (read by instrumentation.ts and estimated-cost.ts). */
export const TWO_VARIABLE_LOOP_OP = 'comprehension2';

export type LoopKind = 'all' | 'exists' | 'existsOne' | 'transformList' | 'transformMap' | 'transformMapEntry';

/** A loop node's arguments. */
export interface TwoVariableLoop {
  readonly kind: LoopKind;
  readonly iterable: Node;
  readonly keyName: string;
  readonly valueName: string;
  readonly filter?: Node;
  readonly body: Node;
  /** The call the loop stands for, where cel-go places the loop's type errors (at its `(`). */
  readonly call: Node;
  /** The scopes binding the key and the value, made when the loop is type-checked. */
  keyScope?: Scope;
  valueScope?: Scope;
}

/** cel-go's accumulator name, which an iteration variable may not take. */
const ACCUMULATOR = '__result__';

function variableName(node: Node): string {
  if (node.op !== 'id') throw macroError('argument must be a simple name', node);
  const name = node.args as string;
  if (name === ACCUMULATOR) throw macroError('iteration variable overwrites accumulator variable', node);
  return name;
}

/** The key (index) and value types a range of type `range` binds, or undefined if it cannot be a range. */
function variableTypes(chk: Checker, range: CheckedType): [CheckedType, CheckedType] | undefined {
  const dyn = chk.getType('dyn');
  const concrete = (type: CheckedType | undefined) => (type === undefined || type.kind === 'param' ? dyn : type);
  if (range.kind === 'dyn') return [dyn, dyn];
  if (range.kind === 'list') return [chk.getType('int'), concrete(range.valueType)];
  if (range.kind === 'map') return [concrete(range.keyType), concrete(range.valueType)];
  return undefined;
}

function checkLoop(chk: Checker, node: Node, ctx: Scope): CheckedType {
  const loop = node.args as TwoVariableLoop;
  const rangeType = chk.check(loop.iterable, ctx);
  const types = variableTypes(chk, rangeType);
  if (types === undefined) {
    throw chk.createError(
      'invalid_comprehension_range',
      `expression of type '${typeName(chk, rangeType)}' cannot be range of a comprehension (must be list, map, or dynamic)`,
      loop.iterable,
    );
  }
  const [keyType, valueType] = types;
  loop.keyScope = ctx.forkWithVariable(loop.keyName, keyType);
  loop.valueScope = loop.keyScope.forkWithVariable(loop.valueName, valueType);
  const bodyType = chk.check(loop.body, loop.valueScope);
  const resultType = loopResultType(chk, loop, keyType, bodyType);
  if (loop.filter) {
    const filterType = chk.check(loop.filter, loop.valueScope);
    if (!filterType.isDynOrBool()) {
      const result = typeName(chk, resultType);
      throw chk.createError(
        'no_matching_overload',
        `found no matching overload for '_?_:_' applied to '(${typeName(chk, filterType)}, ${result}, ${result})'`,
        loop.call,
      );
    }
  }
  return resultType;
}

function loopResultType(chk: Checker, loop: TwoVariableLoop, keyType: CheckedType, bodyType: CheckedType): CheckedType {
  const bool = chk.getType('bool');
  switch (loop.kind) {
    case 'all':
    case 'exists':
      if (!bodyType.isDynOrBool()) {
        throw chk.createError(
          'type_mismatch',
          `expected type 'bool' but found '${typeName(chk, bodyType)}'`,
          loop.body,
        );
      }
      return bool;
    case 'existsOne':
      if (!bodyType.isDynOrBool()) {
        throw chk.createError(
          'no_matching_overload',
          `found no matching overload for '_?_:_' applied to '(${typeName(chk, bodyType)}, int, int)'`,
          loop.call,
        );
      }
      return bool;
    case 'transformList':
      return chk.registry.getListType(bodyType);
    case 'transformMap':
      return chk.registry.getMapType(keyType, bodyType);
    case 'transformMapEntry':
      if (bodyType.kind === 'dyn') return chk.registry.getMapType(bodyType, bodyType);
      if (bodyType.kind !== 'map') {
        throw chk.createError(
          'no_matching_overload',
          `found no matching overload for 'cel.@mapInsert' applied to '(map(dyn, dyn), ${typeName(chk, bodyType)})'`,
          loop.call,
        );
      }
      return bodyType;
  }
}

/** The (key, value) pairs of a list (index, element) or map, in order. */
function entriesOf(range: unknown): Iterable<[unknown, unknown]> {
  if (Array.isArray(range)) return range.map((element, index) => [BigInt(index), element]);
  if (range instanceof Map) return range.entries();
  if (range !== null && typeof range === 'object') return Object.entries(range);
  throw new CelFunctionError('expression cannot be range of a comprehension (must be list, map, or dynamic)');
}

/**
 * What cel-go charges for its expansion of each macro beyond the operands: `initial`, the empty
 * accumulator (estimated only: at run time cel-go's optimizer makes it a constant); `turn`, each
 * turn whose body ran and was kept; `stop`, testing the condition that ends a quantifier early;
 * `result`, reading the result at the end.
 */
export const TWO_VARIABLE_LOOP_PRICES: Readonly<
  Record<LoopKind, { readonly initial: number; readonly turn: number; readonly stop: number; readonly result: number }>
> = {
  // Each turn: the condition `@not_strictly_false(__result__)` (2), then `__result__ && body` (1).
  all: { initial: 0, turn: 2 + SELECT_COST, stop: 2, result: SELECT_COST },
  // Each turn: the condition `@not_strictly_false(!__result__)` (3), then `__result__ || body` (1).
  exists: { initial: 0, turn: 3 + SELECT_COST, stop: 3, result: SELECT_COST },
  // A turn whose body is true: `__result__ + 1` (2); the result: `__result__ == 1` (2).
  existsOne: { initial: 0, turn: SELECT_COST + 1, stop: 0, result: SELECT_COST + 1 },
  // A kept turn: `__result__ + [body]` (1 + 10 + 1).
  transformList: { initial: LIST_CREATE_COST, turn: SELECT_COST + LIST_CREATE_COST + 1, stop: 0, result: SELECT_COST },
  // A kept turn: `cel.@mapInsert(__result__, key, body)` (1 + 1 + 1).
  transformMap: { initial: MAP_CREATE_COST, turn: 2 * SELECT_COST + 1, stop: 0, result: SELECT_COST },
  // A kept turn: `cel.@mapInsert(__result__, body)` (1 + 1).
  transformMapEntry: { initial: MAP_CREATE_COST, turn: SELECT_COST + 1, stop: 0, result: SELECT_COST },
};

/** The part of the result's price the loop charges: the call node it stands for charges 1 already. */
const RESULT_BEYOND_CALL = (kind: LoopKind) => TWO_VARIABLE_LOOP_PRICES[kind].result - 1;

function evaluateLoop(ev: unknown, node: Node, ctx: unknown): unknown {
  const loop = node.args as TwoVariableLoop;
  const range = loop.iterable.evaluate(ev, loop.iterable, ctx);
  const keyScope = loop.keyScope!.reuse(ctx);
  const valueScope = loop.valueScope!;
  const meter = currentMeter();
  const charge = (amount: number) => meter?.charge(amount);
  const run = (part: Node) => part.evaluate(ev, part, valueScope);
  const bind = (key: unknown, value: unknown) => {
    keyScope.setIterValue(key, ev);
    valueScope.setIterValue(value, ev);
  };
  switch (loop.kind) {
    case 'all':
    case 'exists': {
      // An error is the answer only if no element decides it (as `&&` and `||` treat errors).
      const decisive = loop.kind === 'exists';
      let error: unknown;
      for (const [key, value] of entriesOf(range)) {
        bind(key, value);
        charge(TWO_VARIABLE_LOOP_PRICES[loop.kind].turn);
        let outcome: unknown;
        try {
          outcome = run(loop.body);
        } catch (caught) {
          if (meter?.exceeded) throw caught;
          error ??= caught;
          continue;
        }
        if (outcome === decisive) {
          if (!isLast(range, key)) charge(TWO_VARIABLE_LOOP_PRICES[loop.kind].stop);
          return decisive;
        }
      }
      if (error !== undefined) throw error;
      return !decisive;
    }
    case 'existsOne': {
      let count = 0;
      for (const [key, value] of entriesOf(range)) {
        bind(key, value);
        if (run(loop.body) === true) {
          count++;
          charge(TWO_VARIABLE_LOOP_PRICES.existsOne.turn);
        }
      }
      charge(RESULT_BEYOND_CALL('existsOne'));
      return count === 1;
    }
    case 'transformList': {
      // cel-go's optimizer makes `[body]` a constant when the body is one.
      const appendCost =
        TWO_VARIABLE_LOOP_PRICES.transformList.turn - (loop.body.op === 'value' ? LIST_CREATE_COST : 0);
      const list: unknown[] = [];
      for (const [key, value] of entriesOf(range)) {
        bind(key, value);
        if (loop.filter && run(loop.filter) !== true) continue;
        list.push(run(loop.body));
        charge(appendCost);
      }
      return list;
    }
    case 'transformMap':
    case 'transformMapEntry': {
      const map = new Map<unknown, unknown>();
      for (const [key, value] of entriesOf(range)) {
        bind(key, value);
        if (loop.filter && run(loop.filter) !== true) continue;
        const result = run(loop.body);
        charge(TWO_VARIABLE_LOOP_PRICES[loop.kind].turn);
        if (loop.kind === 'transformMap') map.set(key, result);
        else for (const [entryKey, entryValue] of entriesOf(result)) insert(map, entryKey, entryValue);
      }
      return map;
    }
  }
}

function isLast(range: unknown, key: unknown): boolean {
  if (Array.isArray(range)) return key === BigInt(range.length - 1);
  const keys = range instanceof Map ? [...range.keys()] : Object.keys(range as object);
  return keys[keys.length - 1] === key;
}

function insert(map: Map<unknown, unknown>, key: unknown, value: unknown): void {
  if (map.has(key)) throw new CelFunctionError(`insert failed: key ${String(key)} already exists`);
  map.set(key, value);
}

const LOOP_OPERATION: Operation = { name: TWO_VARIABLE_LOOP_OP, check: checkLoop, evaluate: evaluateLoop };

function expander(kind: LoopKind, filtered: boolean) {
  return ({ args, receiver, ast }: { args: Node[]; receiver: Node; ast: Node }) => {
    const keyName = variableName(args[0]);
    const valueName = variableName(args[1]);
    if (keyName === valueName) {
      throw macroError(`duplicate variable name: ${keyName}`, args[1]);
    }
    const loop: TwoVariableLoop = {
      kind,
      iterable: receiver,
      keyName,
      valueName,
      filter: filtered ? args[2] : undefined,
      body: filtered ? args[3] : args[2],
      call: ast,
    };
    // Evaluation is synchronous: no engine promise handling around the node.
    return { callAst: ast.clone(LOOP_OPERATION, loop).setMeta('async', false) };
  };
}

const MACROS: ReadonlyArray<[name: string, kind: LoopKind, filterable: boolean]> = [
  ['all', 'all', false],
  ['exists', 'exists', false],
  ['existsOne', 'existsOne', false],
  ['exists_one', 'existsOne', false],
  ['transformList', 'transformList', true],
  ['transformMap', 'transformMap', true],
  ['transformMapEntry', 'transformMapEntry', true],
];

export const twoVariableComprehensionsLibrary: CelLibrary = {
  declare(env: Environment) {
    for (const [name, kind, filterable] of MACROS) {
      // A macro is chosen by name and argument count; its receiver is checked with the loop.
      env.registerFunction(`list.${name}(ast, ast, ast): dyn`, expander(kind, false) as RegisteredFunctionHandler);
      if (filterable)
        env.registerFunction(
          `list.${name}(ast, ast, ast, ast): dyn`,
          expander(kind, true) as RegisteredFunctionHandler,
        );
    }
  },
};
