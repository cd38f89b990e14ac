/**
 * The Kubernetes list library: isSorted, sum, min, max, indexOf, lastIndexOf. Sum adds numbers
 * or durations; min, max and isSorted work on every comparable type.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { Duration, UnsignedInt } from '../engine-values';
import { sizeOf } from '../runtime-cost';
import { COMPARABLE_TYPES, celEquals, compareValues } from './compare';
import { CelFunctionError, type CelLibrary } from './library';

export function listIndexOf(list: readonly unknown[], element: unknown): bigint {
  return BigInt(list.findIndex((item) => celEquals(item, element)));
}

export function listLastIndexOf(list: readonly unknown[], element: unknown): bigint {
  for (let i = list.length - 1; i >= 0; i--) if (celEquals(list[i], element)) return BigInt(i);
  return -1n;
}

function isSorted(list: readonly unknown[]): boolean {
  for (let i = 1; i < list.length; i++) if (compareValues(list[i - 1], list[i]) > 0) return false;
  return true;
}

function extreme(name: 'min' | 'max', list: readonly unknown[]): unknown {
  if (list.length === 0) throw new CelFunctionError(`${name}(list) called on empty list`);
  let best = list[0];
  for (const item of list.slice(1)) {
    const order = compareValues(item, best);
    if (name === 'min' ? order < 0 : order > 0) best = item;
  }
  return best;
}

function sum(list: readonly unknown[], zero: unknown): unknown {
  let total = zero;
  for (const item of list) {
    if (typeof total === 'bigint' && typeof item === 'bigint') total = total + item;
    else if (typeof total === 'number' && typeof item === 'number') total = total + item;
    else if (total instanceof UnsignedInt && item instanceof UnsignedInt)
      total = new UnsignedInt(total.value + item.value);
    else if (total instanceof Duration && item instanceof Duration) total = total.addDuration(item);
    else throw new CelFunctionError('no such overload');
  }
  return total;
}

export const listsLibrary: CelLibrary = {
  declare(env: Environment) {
    for (const type of COMPARABLE_TYPES) {
      env
        .registerFunction(`list<${type}>.isSorted(): bool`, isSorted)
        .registerFunction(`list<${type}>.min(): ${type}`, (list: unknown[]) => extreme('min', list))
        .registerFunction(`list<${type}>.max(): ${type}`, (list: unknown[]) => extreme('max', list));
    }
    env
      .registerFunction('list<int>.sum(): int', (list: bigint[]) => sum(list, 0n))
      .registerFunction('list<uint>.sum(): uint', (list: UnsignedInt[]) => sum(list, new UnsignedInt(0n)))
      .registerFunction('list<double>.sum(): double', (list: number[]) => sum(list, 0))
      .registerFunction('list<google.protobuf.Duration>.sum(): google.protobuf.Duration', (list: Duration[]) =>
        sum(list, new Duration(0)),
      )
      .registerFunction('list<T>.indexOf(T): int', listIndexOf)
      .registerFunction('list<T>.lastIndexOf(T): int', listLastIndexOf);
  },
  costs: {
    '.isSorted': ([list]) => 1 + sizeOf(list),
    '.sum': ([list]) => 1 + sizeOf(list),
    '.min': ([list]) => 1 + sizeOf(list),
    '.max': ([list]) => 1 + sizeOf(list),
  },
};
