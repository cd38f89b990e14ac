/**
 * Numbers as the reference holds and prints them. Its JSON decoder makes a whole number that
 * fits an int64 an int64 and any other number a float64 (a literal written `1.0` or `1e2` is a
 * float64 too, a difference a parsed number no longer shows); a message prints either with
 * fmt's `%v`.
 */

const TWO_TO_63 = 2 ** 63;

/** Whether the decoder holds the number as an int64 (else as a float64). */
export function isGoInt64(value: number): boolean {
  return Number.isInteger(value) && value >= -TWO_TO_63 && value < TWO_TO_63;
}

/**
 * `%v` of a float64: strconv's `%g` with the shortest digits, which switches to an exponent of
 * at least two digits below 1e-4 and from 1e6 on (`1e+06`, `1.5e-07`, `100`).
 */
export function goFloat64(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? '+Inf' : '-Inf';
  if (value === 0) return Object.is(value, -0) ? '-0' : '0';
  const [mantissa, power] = value.toExponential().split('e');
  const exponent = Number(power);
  if (exponent < -4 || exponent >= 6)
    return `${mantissa}e${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
  // Within these exponents JavaScript writes the same shortest digits without one.
  return String(value);
}

/** `%v` of a decoded JSON number: an int64's every digit, else the float64's form. */
export function goNumber(value: number): string {
  return isGoInt64(value) ? BigInt(value).toString() : goFloat64(value);
}

/**
 * Go's int64(f) as the reference's amd64 build computes it: the fraction dropped, and any value
 * out of int64's range (NaN too) the least int64, as the processor's conversion answers.
 */
export function goInt64OfFloat(value: number): bigint {
  if (Number.isNaN(value) || value < -TWO_TO_63 || value >= TWO_TO_63) return -(2n ** 63n);
  return BigInt(Math.trunc(value));
}
