/**
 * The Kubernetes quantity library: `quantity(string)`, `isQuantity(string)` and the members
 * isInteger, asInteger, asApproximateFloat, sign, add, sub, isLessThan, isGreaterThan,
 * compareTo. A quantity (`1.5Gi`, `500m`, `2e3`) is held exactly, as a fraction of big integers.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { traversalCost } from '../runtime-cost';
import { Quantity, parseQuantity } from '../../quantity/quantity';
import { CelFunctionError, type CelLibrary } from './library';

export const QUANTITY_FORMAT_ERROR =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

function toQuantity(text: string): Quantity {
  const quantity = parseQuantity(text);
  if (quantity === undefined) throw new CelFunctionError(QUANTITY_FORMAT_ERROR);
  return quantity;
}

function asInteger(quantity: Quantity): bigint {
  if (!quantity.isInteger()) throw new CelFunctionError('cannot convert value to integer');
  return quantity.numerator;
}

function asApproximateFloat(quantity: Quantity): number {
  return Number(quantity.numerator) / Number(quantity.denominator);
}

const operand = (value: Quantity | bigint): Quantity => (value instanceof Quantity ? value : new Quantity(value));

export const quantityLibrary: CelLibrary = {
  declare(env: Environment) {
    env
      .registerType('kubernetes.Quantity', Quantity)
      .registerFunction('quantity(string): kubernetes.Quantity', toQuantity)
      .registerFunction('isQuantity(string): bool', (text: string) => parseQuantity(text) !== undefined)
      .registerFunction('kubernetes.Quantity.isInteger(): bool', (q: Quantity) => q.isInteger())
      .registerFunction('kubernetes.Quantity.asInteger(): int', asInteger)
      .registerFunction('kubernetes.Quantity.asApproximateFloat(): double', asApproximateFloat)
      .registerFunction('kubernetes.Quantity.sign(): int', (q: Quantity) =>
        BigInt(Math.sign(q.compareTo(new Quantity(0n)))),
      )
      .registerFunction(
        'kubernetes.Quantity.add(kubernetes.Quantity): kubernetes.Quantity',
        (q: Quantity, o: Quantity) => q.add(o),
      )
      .registerFunction('kubernetes.Quantity.add(int): kubernetes.Quantity', (q: Quantity, o: bigint) =>
        q.add(operand(o)),
      )
      .registerFunction(
        'kubernetes.Quantity.sub(kubernetes.Quantity): kubernetes.Quantity',
        (q: Quantity, o: Quantity) => q.add(o.negate()),
      )
      .registerFunction('kubernetes.Quantity.sub(int): kubernetes.Quantity', (q: Quantity, o: bigint) =>
        q.add(operand(o).negate()),
      )
      .registerFunction(
        'kubernetes.Quantity.isLessThan(kubernetes.Quantity): bool',
        (q: Quantity, o: Quantity) => q.compareTo(o) < 0,
      )
      .registerFunction(
        'kubernetes.Quantity.isGreaterThan(kubernetes.Quantity): bool',
        (q: Quantity, o: Quantity) => q.compareTo(o) > 0,
      )
      .registerFunction('kubernetes.Quantity.compareTo(kubernetes.Quantity): int', (q: Quantity, o: Quantity) =>
        BigInt(q.compareTo(o)),
      );
  },
  // As the reference prices them: parsing traverses the string.
  costs: {
    quantity: ([text]) => traversalCost(text),
    isQuantity: ([text]) => traversalCost(text),
  },
};
