/**
 * cel-go's list extension (`ext.Lists`) at version 3, which the reference's base environment adds
 * in 1.34: `lists.range(n)`, `slice`, `flatten`, `distinct`, `reverse`, `sort` (and the `sortBy`
 * macro, sort-by.ts), with version 3's cost tracking: a call costs 1, plus 10 for the list it
 * allocates, plus its result's size (range, slice, reverse), the input's size times the depth
 * (flatten), or twice the square of the compared list's size, 2.1 times for strings and bytes
 * (distinct, sort, sortBy).
 */
import type { Environment } from '@marcbachmann/cel-js';
import { Duration, UnsignedInt } from '../engine-values';
import { LIST_CREATE_COST, STRING_TRAVERSAL_FACTOR, sizeOf } from '../runtime-cost';
import { celEquals, compareValues, isComparableType } from './compare';
import { referenceTypeName } from '../compile-errors';
import { CelFunctionError, type CallProblem, type CelLibrary } from './library';

/** Holder for `lists.range`: the engine resolves `lists.` as a variable of this type. */
class ListsNamespace {}

/** What a call that allocates a list costs, given its cost factor and the size it works on. */
export function allocatingListCost(factor: number, size: number): number {
  return Math.floor(size * factor) + 1 + LIST_CREATE_COST;
}

/** The cost factor of comparing elements of a list: strings and bytes are traversed as well. */
export function selfCompareFactor(stringElements: boolean): number {
  return 2 + (stringElements ? STRING_TRAVERSAL_FACTOR : 0);
}

/** The cost of a worst-case O(n²) pass comparing the elements of `list` with each other. */
export function selfCompareCost(list: readonly unknown[]): number {
  const first = list[0];
  const stringElements = typeof first === 'string' || first instanceof Uint8Array;
  return allocatingListCost(selfCompareFactor(stringElements), list.length * list.length);
}

/** The name of a comparable value's type, which every sorted element must share. */
function comparableKind(value: unknown): string | undefined {
  if (typeof value === 'bigint') return 'int';
  if (value instanceof UnsignedInt) return 'uint';
  if (typeof value === 'number') return 'double';
  if (typeof value === 'string' || typeof value === 'boolean') return typeof value;
  if (value instanceof Uint8Array) return 'bytes';
  if (value instanceof Date) return 'timestamp';
  if (value instanceof Duration) return 'duration';
  return undefined;
}

/** `list` ordered by the associated `keys` (a stable sort), as `sort()` and `sortBy` order it. */
export function sortByKeys(list: readonly unknown[], keys: readonly unknown[]): unknown[] {
  if (list.length !== keys.length) {
    throw new CelFunctionError(
      `@sortByAssociatedKeys() expected a list of the same size as the associated keys list, but got ${list.length} and ${keys.length} elements respectively`,
    );
  }
  if (list.length === 0) return [];
  const kind = comparableKind(keys[0]);
  if (kind === undefined) throw new CelFunctionError('list elements must be comparable');
  if (keys.some((key) => comparableKind(key) !== kind)) {
    throw new CelFunctionError('list elements must have the same type');
  }
  const order = keys.map((_, index) => index);
  order.sort((a, b) => compareValues(keys[a], keys[b]));
  return order.map((index) => list[index]);
}

function range(n: bigint): bigint[] {
  const list: bigint[] = [];
  for (let i = 0n; i < n; i++) list.push(i);
  return list;
}

function slice(list: readonly unknown[], start: bigint, end: bigint): unknown[] {
  if (start < 0n || end < 0n) {
    throw new CelFunctionError(`cannot slice(${start}, ${end}), negative indexes not supported`);
  }
  if (start > end) {
    throw new CelFunctionError(`cannot slice(${start}, ${end}), start index must be less than or equal to end index`);
  }
  if (BigInt(list.length) < end) {
    throw new CelFunctionError(`cannot slice(${start}, ${end}), list is length ${list.length}`);
  }
  return list.slice(Number(start), Number(end));
}

function flatten(list: readonly unknown[], depth: bigint): unknown[] {
  if (depth < 0n) throw new CelFunctionError('level must be non-negative');
  const flat: unknown[] = [];
  for (const item of list) {
    if (Array.isArray(item) && depth > 0n) flat.push(...flatten(item, depth - 1n));
    else flat.push(item);
  }
  return flat;
}

function distinct(list: readonly unknown[]): unknown[] {
  const unique: unknown[] = [];
  for (const item of list) if (!unique.some((seen) => celEquals(seen, item))) unique.push(item);
  return unique;
}

/** The engine's checked node, as far as the sort check reads it. */
interface CheckedNode {
  readonly op: string;
  readonly args: unknown;
  readonly checkedType?: {
    readonly kind: string;
    readonly name: string;
    readonly valueType?: { readonly name: string };
  };
}

/** The first `sort()` of a list whose elements have no order (cel-go has no overload for it), if any. */
function unsortableList(nodes: readonly unknown[]): CallProblem | undefined {
  for (const node of nodes as CheckedNode[]) {
    if (node.op !== 'rcall') continue;
    const [name, receiver, args] = node.args as [string, CheckedNode, unknown[]];
    const type = receiver.checkedType;
    if (name !== 'sort' || args.length !== 0 || type?.kind !== 'list') continue;
    if (!isComparableType(type.valueType?.name ?? 'dyn')) {
      return { message: `found no matching overload for 'sort' applied to '${referenceTypeName(type.name)}.()'`, node };
    }
  }
  return undefined;
}

export const listExtensionsLibrary: CelLibrary = {
  introduced: 34,
  validate: unsortableList,
  declare(env: Environment) {
    env
      .registerType('kubernetes.ListsNamespace', ListsNamespace)
      .registerConstant('lists', 'kubernetes.ListsNamespace', new ListsNamespace())
      .registerFunction('kubernetes.ListsNamespace.range(int): list<int>', (_ns: ListsNamespace, n: bigint) => range(n))
      .registerFunction('list<T>.slice(int, int): list<T>', slice)
      .registerFunction('list<list<T>>.flatten(): list<T>', (list: unknown[]) => flatten(list, 1n))
      .registerFunction('list<dyn>.flatten(int): list<dyn>', flatten)
      .registerFunction('list<T>.distinct(): list<T>', distinct)
      .registerFunction('list<T>.reverse(): list<T>', (list: unknown[]) => [...list].reverse());
    // One generic overload, so that a list of dyn keeps its type (the engine would pick the first
    // of cel-go's overloads per type for it); `validate` refuses element types with no order.
    env.registerFunction('list<T>.sort(): list<T>', (list: unknown[]) => sortByKeys(list, list));
  },
  overrides: {
    // cel-go disables the type guards of flatten(): a list known only at run time (`dyn(l)`) is
    // flattened as far as it goes, where the engine would find no overload for its elements.
    '.flatten/0': (list: unknown[]) => flatten(list, 1n),
  },
  costs: {
    '.range': (_args, result) => allocatingListCost(1, sizeOf(result)),
    '.slice': (_args, result) => allocatingListCost(1, sizeOf(result)),
    '.flatten': ([list, depth]) => allocatingListCost(depth === undefined ? 1 : Number(depth), sizeOf(list)),
    '.reverse': (_args, result) => allocatingListCost(1, sizeOf(result)),
    '.distinct': ([list]) => selfCompareCost(list as unknown[]),
    '.sort': ([list]) => selfCompareCost(list as unknown[]),
  },
};
