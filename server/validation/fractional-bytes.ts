/**
 * Byte counts (memory, ephemeral storage, a claim's storage) written with a part below one byte,
 * which the API accepts and the reference warns of: no kubelet or provisioner can honour them.
 */
import { canonicalQuantity, parseQuantity } from '../quantity/quantity';
import type { FieldPath } from '../status/field-errors';

/**
 * `<path>: fractional byte value "<q>" is invalid, must be an integer` when the quantity has a
 * part below one byte (the reference compares its milli-value, rounded up, with whole bytes).
 */
export function fractionalByteWarning(path: FieldPath, text: string | undefined): string[] {
  if (text === undefined) return [];
  const quantity = parseQuantity(String(text));
  if (quantity === undefined) return [];
  const milli = quantity.numerator * 1000n;
  const roundedUp = milli / quantity.denominator + (milli % quantity.denominator > 0n ? 1n : 0n);
  if (roundedUp % 1000n === 0n) return [];
  const shown = canonicalQuantity(String(text)) ?? String(text);
  return [`${path.toString()}: fractional byte value ${JSON.stringify(shown)} is invalid, must be an integer`];
}
