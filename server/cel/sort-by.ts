/**
 * The `sortBy` macro of cel-go's list extension (version 3, 1.34): `list.sortBy(e, key)` sorts the
 * list by the comparable key each element gives, stably.
 *
 * cel-go expands it to `cel.bind(input, list, input.@sortByAssociatedKeys(input.map(e, key)))`;
 * the node here charges what that costs beyond the list and the keys (SORT_BY_PRICES): reading
 * the bound input twice, each turn of the map (the accumulator, the one-element list, the
 * append), and the sort of the keys; the map's result read is charged by the call node the macro
 * stands for.
 */
import type { Environment, RegisteredFunctionHandler } from '@marcbachmann/cel-js';
import { CelFunctionError, type CelLibrary } from './libraries/library';
import { isComparableType } from './libraries/compare';
import { selfCompareCost, sortByKeys } from './libraries/list-extensions';
import {
  macroError,
  typeName,
  type CheckedType,
  type Checker,
  type Node,
  type Operation,
  type Scope,
} from './macro-nodes';
import { LIST_CREATE_COST, SELECT_COST, currentMeter } from './runtime-cost';

/** The name of sortBy nodes in the tree (read by instrumentation.ts and estimated-cost.ts). */
export const SORT_BY_OP = 'sortBy';

/** A sortBy node's arguments. */
export interface SortBy {
  readonly target: Node;
  readonly variableName: string;
  readonly key: Node;
  /** The call the macro stands for, where cel-go places its type errors (at its `(`). */
  readonly call: Node;
  /** The scope binding the variable, made when the node is type-checked. */
  scope?: Scope;
}

/**
 * What cel-go's expansion costs beyond the list and the keys: `inputReads`, the two reads of the
 * bound list; `turn`, each turn of the map (`__result__ + [key]`); `result`, the map's result;
 * `estimatedBind` and `estimatedMapInit`, the empty lists of the bind and the map, which only the
 * estimate counts (at run time they are constants). The sort is priced by selfCompareCost.
 */
export const SORT_BY_PRICES = {
  inputReads: 2 * SELECT_COST,
  turn: SELECT_COST + LIST_CREATE_COST + 1,
  result: SELECT_COST,
  estimatedBind: LIST_CREATE_COST,
  estimatedMapInit: LIST_CREATE_COST,
};

function checkSortBy(chk: Checker, node: Node, ctx: Scope): CheckedType {
  const sortBy = node.args as SortBy;
  const targetType = chk.check(sortBy.target, ctx);
  const dyn = chk.getType('dyn');
  let elementType: CheckedType;
  if (targetType.kind === 'list') elementType = targetType.valueType!.kind === 'param' ? dyn : targetType.valueType!;
  else if (targetType.kind === 'map') elementType = targetType.keyType!;
  else if (targetType.kind === 'dyn') elementType = dyn;
  else {
    throw chk.createError(
      'invalid_comprehension_range',
      `expression of type '${typeName(chk, targetType)}' cannot be range of a comprehension (must be list, map, or dynamic)`,
      sortBy.target,
    );
  }
  sortBy.scope = ctx.forkWithVariable(sortBy.variableName, elementType);
  const keyType = chk.check(sortBy.key, sortBy.scope);
  if (targetType.kind === 'map' || !isComparableType(keyType.name)) {
    throw chk.createError(
      'no_matching_overload',
      `found no matching overload for '@sortByAssociatedKeys' applied to '${typeName(chk, targetType)}.(list(${typeName(chk, keyType)}))'`,
      sortBy.call,
    );
  }
  return targetType.kind === 'dyn' ? chk.registry.getListType(dyn) : targetType;
}

function evaluateSortBy(ev: unknown, node: Node, ctx: unknown): unknown {
  const sortBy = node.args as SortBy;
  const list = sortBy.target.evaluate(ev, sortBy.target, ctx);
  if (!Array.isArray(list)) throw new CelFunctionError('no such overload: @sortByAssociatedKeys');
  const meter = currentMeter();
  const scope = sortBy.scope!.reuse(ctx);
  const keys = list.map((element) => {
    const key = sortBy.key.evaluate(ev, sortBy.key, scope.setIterValue(element, ev));
    meter?.charge(SORT_BY_PRICES.turn);
    return key;
  });
  meter?.charge(SORT_BY_PRICES.inputReads + selfCompareCost(keys));
  return sortByKeys(list, keys);
}

const SORT_BY_OPERATION: Operation = { name: SORT_BY_OP, check: checkSortBy, evaluate: evaluateSortBy };

/** The target kinds cel-go refuses: literals and map or message constructions. */
const UNSORTABLE_TARGETS = new Set(['value', 'map']);

function expandSortBy({ args, receiver, ast }: { args: Node[]; receiver: Node; ast: Node }) {
  if (UNSORTABLE_TARGETS.has(receiver.op)) {
    throw macroError(
      'sortBy can only be applied to a list, identifier, comprehension, call or select expression',
      receiver,
    );
  }
  const [variable, key] = args;
  if (variable.op !== 'id') throw macroError('argument is not an identifier', variable);
  const sortBy: SortBy = { target: receiver, variableName: variable.args as string, key, call: ast };
  // Evaluation is synchronous: no engine promise handling around the node.
  return { callAst: ast.clone(SORT_BY_OPERATION, sortBy).setMeta('async', false) };
}

export const sortByLibrary: CelLibrary = {
  introduced: 34,
  declare(env: Environment) {
    env.registerFunction('list.sortBy(ast, ast): dyn', expandSortBy as RegisteredFunctionHandler);
  },
};
