/**
 * Go's shortest `%g` of a float: strconv.FormatFloat(value, 'g', -1, bitSize), which is also
 * what fmt's `%v` prints for a float64. The digits are the fewest that read back as the same
 * float of that size; the exponent form is taken below 1e-4 and from 1e6 on (Go's fixed rule
 * for the shortest precision), with at least two exponent digits.
 */

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
