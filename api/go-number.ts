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

/** The fewest significant digits that read back as the same float, and the decimal exponent of the first. */
function shortestDigits(value: number, bitSize: 32 | 64): { digits: string; exponent: number } {
  const same = bitSize === 32 ? (text: string) => Math.fround(Number(text)) === value : undefined;
  let form = value.toExponential();
  if (same !== undefined) {
    for (let precision = 1; precision <= 9; precision++) {
      form = value.toExponential(precision - 1);
      if (same(form)) break;
    }
  }
  const [mantissa, power] = form.split('e');
  return { digits: mantissa.replace('.', '').replace(/0+$/, '') || '0', exponent: Number(power) };
}

/**
 * Go's shortest `%g` of a float: strconv.FormatFloat(value, 'g', -1, bitSize), which is also
 * fmt's `%v` of a float64. The digits are the fewest that read back as the same float of that
 * size; the exponent form (at least two digits) is taken below 1e-4 and from 1e6 on
 * (`1e+06`, `1.5e-07`, `100`).
 */
export function goFormatFloat(value: number, bitSize: 32 | 64): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? '+Inf' : '-Inf';
  const float = bitSize === 32 ? Math.fround(value) : value;
  if (float === 0) return Object.is(float, -0) ? '-0' : '0';
  const sign = float < 0 ? '-' : '';
  const { digits, exponent } = shortestDigits(Math.abs(float), bitSize);
  if (exponent < -4 || exponent >= 6) {
    const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const power = String(Math.abs(exponent)).padStart(2, '0');
    return `${sign}${mantissa}e${exponent < 0 ? '-' : '+'}${power}`;
  }
  if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
  const whole = digits.slice(0, exponent + 1).padEnd(exponent + 1, '0');
  const fraction = digits.slice(exponent + 1);
  return fraction === '' ? `${sign}${whole}` : `${sign}${whole}.${fraction}`;
}

/** `%v` of a decoded JSON number: an int64's every digit, else the float64's form. */
export function goNumber(value: number): string {
  return isGoInt64(value) ? BigInt(value).toString() : goFormatFloat(value, 64);
}

/**
 * Go's int64(f) as the reference's amd64 build computes it: the fraction dropped, and any value
 * out of int64's range (NaN too) the least int64, as the processor's conversion answers.
 */
export function goInt64OfFloat(value: number): bigint {
  if (Number.isNaN(value) || value < -TWO_TO_63 || value >= TWO_TO_63) return -(2n ** 63n);
  return BigInt(Math.trunc(value));
}

/** strconv.ParseInt(text, 10, 64): an optional sign and decimal digits only, within int64; else undefined. */
export function goParseInt64(text: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(text)) return undefined;
  const value = BigInt(text);
  return value >= -(2n ** 63n) && value < 2n ** 63n ? value : undefined;
}
