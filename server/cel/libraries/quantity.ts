/**
 * The Kubernetes quantity library: `quantity(string)`, `isQuantity(string)` and the members
 * isInteger, asInteger, asApproximateFloat, sign, add, sub, isLessThan, isGreaterThan,
 * compareTo. A quantity (`1.5Gi`, `500m`, `2e3`) is held exactly, as a fraction of big integers.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { traversalCost } from '../runtime-cost';
import { CelFunctionError, type CelLibrary } from './library';

const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);

const BINARY_SUFFIXES: Record<string, bigint> = { Ki: 1n << 10n, Mi: 1n << 20n, Gi: 1n << 30n, Ti: 1n << 40n, Pi: 1n << 50n, Ei: 1n << 60n };
const DECIMAL_EXPONENTS: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

export const QUANTITY_FORMAT_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

function gcd(a: bigint, b: bigint): bigint {
  let x = a < 0n ? -a : a;
  let y = b;
  while (y !== 0n) [x, y] = [y, x % y];
  return x === 0n ? 1n : x;
}

export class Quantity {
  readonly numerator: bigint;
  readonly denominator: bigint;

  constructor(numerator: bigint, denominator = 1n) {
    const divisor = gcd(numerator, denominator);
    this.numerator = numerator / divisor;
    this.denominator = denominator / divisor;
  }

  compareTo(other: Quantity): number {
    const left = this.numerator * other.denominator;
    const right = other.numerator * this.denominator;
    return left < right ? -1 : left > right ? 1 : 0;
  }

  add(other: Quantity): Quantity {
    return new Quantity(
      this.numerator * other.denominator + other.numerator * this.denominator,
      this.denominator * other.denominator,
    );
  }

  negate(): Quantity {
    return new Quantity(-this.numerator, this.denominator);
  }

  isInteger(): boolean {
    return this.denominator === 1n && this.numerator >= INT64_MIN && this.numerator <= INT64_MAX;
  }
}

/** The quantity `text` writes, or undefined when it is not one. */
export function parseQuantity(text: string): Quantity | undefined {
  const match = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?\d+)?$/.exec(text);
  if (!match) return undefined;
  const [, sign, number, suffix = ''] = match;
  const [whole, fraction = ''] = number.split('.');
  let numerator = BigInt(`${whole}${fraction}` || '0');
  let denominator = 10n ** BigInt(fraction.length);
  if (suffix in BINARY_SUFFIXES) {
    numerator *= BINARY_SUFFIXES[suffix];
  } else {
    const exponent = suffix in DECIMAL_EXPONENTS ? DECIMAL_EXPONENTS[suffix] : Number(suffix.slice(1));
    if (Math.abs(exponent) > 1000) return undefined;
    if (exponent >= 0) numerator *= 10n ** BigInt(exponent);
    else denominator *= 10n ** BigInt(-exponent);
  }
  return new Quantity(sign === '-' ? -numerator : numerator, denominator);
}

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
      .registerFunction('kubernetes.Quantity.sign(): int', (q: Quantity) => BigInt(Math.sign(q.compareTo(new Quantity(0n)))))
      .registerFunction('kubernetes.Quantity.add(kubernetes.Quantity): kubernetes.Quantity', (q: Quantity, o: Quantity) => q.add(o))
      .registerFunction('kubernetes.Quantity.add(int): kubernetes.Quantity', (q: Quantity, o: bigint) => q.add(operand(o)))
      .registerFunction('kubernetes.Quantity.sub(kubernetes.Quantity): kubernetes.Quantity', (q: Quantity, o: Quantity) => q.add(o.negate()))
      .registerFunction('kubernetes.Quantity.sub(int): kubernetes.Quantity', (q: Quantity, o: bigint) => q.add(operand(o).negate()))
      .registerFunction('kubernetes.Quantity.isLessThan(kubernetes.Quantity): bool', (q: Quantity, o: Quantity) => q.compareTo(o) < 0)
      .registerFunction('kubernetes.Quantity.isGreaterThan(kubernetes.Quantity): bool', (q: Quantity, o: Quantity) => q.compareTo(o) > 0)
      .registerFunction('kubernetes.Quantity.compareTo(kubernetes.Quantity): int', (q: Quantity, o: Quantity) => BigInt(q.compareTo(o)));
  },
  costs: {
    quantity: ([text]) => 1 + traversalCost(text),
    isQuantity: ([text]) => 1 + traversalCost(text),
  },
};
