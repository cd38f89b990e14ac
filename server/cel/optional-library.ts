/**
 * What cel-go's optional library (at the version the reference's `cel.OptionalTypes()` enables,
 * its newest) has beyond the engine's optional type: the `optMap` and `optFlatMap` macros, a
 * list's `first()` and `last()`, and `optional.unwrap(list)` / `list.unwrapOpt()`.
 *
 * cel-go expands `target.optMap(x, body)` to `target.hasValue() ? optional.of(<body with x bound
 * to target.value()>) : optional.none()` (optFlatMap without the `optional.of`), and binds x as
 * `cel.bind` does: lazily, evaluating the target a second time and calling `value()` at the
 * first read of x. The macro node here evaluates the target once and charges the meter what the
 * expansion costs (OPTIONAL_MAP_PRICES), the second evaluation at the first read of x.
 */
import { Optional, type Environment, type RegisteredFunctionHandler } from '@marcbachmann/cel-js';
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
import { LIST_CREATE_COST, currentMeter } from './runtime-cost';

/** The name of optMap and optFlatMap nodes in the tree (read by instrumentation.ts and estimated-cost.ts). */
export const OPTIONAL_MAP_OP = 'optionalMap';

/** An optMap or optFlatMap node's arguments. */
export interface OptionalMap {
  /** optFlatMap: the body gives the optional itself. */
  readonly flat: boolean;
  readonly target: Node;
  readonly variableName: string;
  readonly body: Node;
  /** The call the macro stands for, where cel-go places its type errors (at its `(`). */
  readonly call: Node;
  /** The scope binding the variable, made when the node is type-checked. */
  scope?: Scope;
  /** What the first read of the variable still has to charge, in the evaluation under way. */
  chargeAtFirstRead: number;
}

/**
 * What cel-go's expansion costs beyond the target and the body: `present` when the target has a
 * value (`hasValue()`, and `optional.of` for optMap), `firstRead` at the first read of the
 * variable (`value()`, and the target's second evaluation, charged as measured), `absent` when
 * the target has no value (`hasValue()`, `optional.none()`). The estimate adds the empty list the
 * expansion's comprehension ranges over, and assumes the variable is read.
 */
export const OPTIONAL_MAP_PRICES = {
  present: (flat: boolean) => (flat ? 1 : 2),
  firstRead: 1,
  absent: 2,
  estimatedRange: LIST_CREATE_COST,
};

/** Makes the first read of the variable `scope` binds charge what `map` defers to it. */
function chargeFirstRead(map: OptionalMap, scope: Scope): Scope {
  const read = scope.getCheckedValue;
  scope.getCheckedValue = function (this: Scope, ...args) {
    if (map.chargeAtFirstRead > 0 && args[1].args === map.variableName) {
      const amount = map.chargeAtFirstRead;
      map.chargeAtFirstRead = 0;
      currentMeter()?.charge(amount);
    }
    return read.apply(this, args);
  };
  return scope;
}

function checkOptionalMap(chk: Checker, node: Node, ctx: Scope): CheckedType {
  const map = node.args as OptionalMap;
  const targetType = chk.check(map.target, ctx);
  if (targetType.kind !== 'optional' && targetType.kind !== 'dyn') {
    throw chk.createError(
      'no_matching_overload',
      `found no matching overload for 'hasValue' applied to '${typeName(chk, targetType)}.()'`,
      map.call,
    );
  }
  const valueType = targetType.kind === 'optional' ? targetType.valueType! : targetType;
  map.scope = chargeFirstRead(map, ctx.forkWithVariable(map.variableName, valueType));
  const bodyType = chk.check(map.body, map.scope);
  if (!map.flat) return chk.registry.getOptionalType(bodyType);
  if (bodyType.kind !== 'optional' && bodyType.kind !== 'dyn') {
    throw chk.createError(
      'no_matching_overload',
      `found no matching overload for '_?_:_' applied to '(bool, ${typeName(chk, bodyType)}, optional_type(dyn))'`,
      map.call,
    );
  }
  return bodyType;
}

function evaluateOptionalMap(ev: unknown, node: Node, ctx: unknown): unknown {
  const map = node.args as OptionalMap;
  const meter = currentMeter();
  const before = meter?.cost ?? 0;
  const target = map.target.evaluate(ev, map.target, ctx);
  if (!(target instanceof Optional)) throw new CelFunctionError('no such overload: hasValue');
  // The call node this one stands for charges 1 of the expansion's price.
  if (!target.hasValue()) {
    meter?.charge(OPTIONAL_MAP_PRICES.absent - 1);
    return Optional.none();
  }
  map.chargeAtFirstRead = (meter?.cost ?? 0) - before + OPTIONAL_MAP_PRICES.firstRead;
  meter?.charge(OPTIONAL_MAP_PRICES.present(map.flat) - 1);
  const result = map.body.evaluate(ev, map.body, map.scope!.reuse(ctx).setIterValue(target.value(), ev));
  return map.flat ? result : Optional.of(result);
}

const OPTIONAL_MAP_OPERATION: Operation = {
  name: OPTIONAL_MAP_OP,
  check: checkOptionalMap,
  evaluate: evaluateOptionalMap,
};

function expander(name: 'optMap' | 'optFlatMap') {
  return ({ args, receiver, ast }: { args: Node[]; receiver: Node; ast: Node }) => {
    const [variable, body] = args;
    if (variable.op !== 'id') throw macroError(`${name}() variable name must be a simple identifier`, variable);
    const map: OptionalMap = {
      flat: name === 'optFlatMap',
      target: receiver,
      variableName: variable.args as string,
      body,
      call: ast,
      chargeAtFirstRead: 0,
    };
    // Evaluation is synchronous: no engine promise handling around the node.
    return { callAst: ast.clone(OPTIONAL_MAP_OPERATION, map).setMeta('async', false) };
  };
}

function unwrap(list: readonly unknown[]): unknown[] {
  const values: unknown[] = [];
  for (const item of list) {
    if (!(item instanceof Optional)) throw new CelFunctionError(`value ${String(item)} is not optional`);
    if (item.hasValue()) values.push(item.value());
  }
  return values;
}

export const optionalLibrary: CelLibrary = {
  declare(env: Environment) {
    for (const name of ['optMap', 'optFlatMap'] as const) {
      // A macro is chosen by name and argument count; its receiver is checked with the node.
      env.registerFunction(`optional<dyn>.${name}(ast, ast): dyn`, expander(name) as RegisteredFunctionHandler);
    }
    env
      .registerFunction('list<T>.first(): optional<T>', (list: unknown[]) =>
        list.length === 0 ? Optional.none() : Optional.of(list[0]),
      )
      .registerFunction('list<T>.last(): optional<T>', (list: unknown[]) =>
        list.length === 0 ? Optional.none() : Optional.of(list[list.length - 1]),
      )
      .registerFunction(
        'OptionalNamespace.unwrap(list<optional<T>>): list<T>',
        (_namespace: unknown, list: unknown[]) => unwrap(list),
      )
      .registerFunction('list<optional<T>>.unwrapOpt(): list<T>', unwrap);
  },
};
