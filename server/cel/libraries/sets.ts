/**
 * cel-go's sets extension (ext.Sets), which Kubernetes environments have from 1.29:
 * `sets.contains(list, sublist)`, `sets.equivalent(a, b)` and `sets.intersects(a, b)`, over lists
 * taken as sets, with CEL's equality (so `sets.contains([1], [1.0])`). Priced as cel-go prices
 * them: 1 plus the product of the two lists' sizes, twice that for `equivalent`.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { sizeOf, type CallCost } from '../runtime-cost';
import { celEquals } from './compare';
import type { CelLibrary } from './library';
import { stringsLibrary } from './strings';

/** Holder for the `sets.` functions: the engine resolves `sets.` as a constant of this type. */
class SetsNamespace {}

const includes = (list: readonly unknown[], item: unknown): boolean => list.some((x) => celEquals(x, item));

function contains(list: readonly unknown[], sublist: readonly unknown[]): boolean {
  return sublist.every((item) => includes(list, item));
}

const setsCost =
  (factor: number): CallCost =>
  ([, a, b]) =>
    1 + Math.floor(sizeOf(a) * sizeOf(b) * factor);

// `.contains` is also the string function's name: the receiver says which is called.
const stringContainsCost = stringsLibrary.costs!['.contains'];

export const setsLibrary: CelLibrary = {
  declare(env: Environment) {
    env
      .registerType('kubernetes.SetsNamespace', SetsNamespace)
      .registerConstant('sets', 'kubernetes.SetsNamespace', new SetsNamespace())
      .registerFunction('kubernetes.SetsNamespace.contains(list<T>, list<T>): bool', (_ns: SetsNamespace, a, b) =>
        contains(a as unknown[], b as unknown[]),
      )
      .registerFunction(
        'kubernetes.SetsNamespace.equivalent(list<T>, list<T>): bool',
        (_ns: SetsNamespace, a, b) =>
          contains(a as unknown[], b as unknown[]) && contains(b as unknown[], a as unknown[]),
      )
      .registerFunction('kubernetes.SetsNamespace.intersects(list<T>, list<T>): bool', (_ns: SetsNamespace, a, b) =>
        (a as unknown[]).some((item) => includes(b as unknown[], item)),
      );
  },
  costs: {
    '.contains': (args, result) =>
      args[0] instanceof SetsNamespace ? setsCost(1)(args, result) : stringContainsCost(args, result),
    '.equivalent': setsCost(2),
    '.intersects': setsCost(1),
  },
};
