/**
 * Kubernetes quantities (`1.5Gi`, `500m`, `2e3`), held exactly as a fraction of big integers:
 * parsed, added, compared, and written back in the reference's canonical form. Shared by the CEL
 * quantity library and the quota and limit admission plugins.
 */
const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);

const BINARY_SUFFIXES: Record<string, bigint> = {
  Ki: 1n << 10n,
  Mi: 1n << 20n,
  Gi: 1n << 30n,
  Ti: 1n << 40n,
  Pi: 1n << 50n,
  Ei: 1n << 60n,
};
const DECIMAL_EXPONENTS: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

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

/**
 * The value in units of 1/`unitsPerOne` (1000n: millis), rounded up as Go's ScaledValue rounds:
 * away from zero, so that -1m is a value of -1.
 */
export function valueRoundedUp(quantity: Quantity, unitsPerOne: bigint): bigint {
  const scaled = quantity.numerator * unitsPerOne;
  const quotient = scaled / quantity.denominator;
  if (quotient * quantity.denominator === scaled) return quotient;
  return scaled < 0n ? quotient - 1n : quotient + 1n;
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

/** Whether `text` was written with a binary suffix (the reference keeps that format on sums). */
export function isBinaryFormat(text: string): boolean {
  return /(Ki|Mi|Gi|Ti|Pi|Ei)$/.test(text);
}

const BINARY_ORDER = ['Ei', 'Pi', 'Ti', 'Gi', 'Mi', 'Ki'] as const;
const DECIMAL_ORDER = [
  ['E', 18],
  ['P', 15],
  ['T', 12],
  ['G', 9],
  ['M', 6],
  ['k', 3],
  ['', 0],
  ['m', -3],
  ['u', -6],
  ['n', -9],
] as const;

/**
 * The canonical text of a quantity, as the reference writes it: the largest binary suffix that
 * keeps an integer (binary format, whole values of at least 1024), else the largest decimal SI
 * suffix that does; a value finer than nano is rounded up to it, as the reference rounds.
 */
export function formatQuantity(quantity: Quantity, binary = false): string {
  const { numerator, denominator } = quantity;
  const magnitude = numerator < 0n ? -numerator : numerator;
  const sign = numerator < 0n ? '-' : '';
  if (numerator === 0n) return '0';
  if (binary && denominator === 1n && magnitude >= 1024n) {
    for (const suffix of BINARY_ORDER) {
      const unit = BINARY_SUFFIXES[suffix];
      if (magnitude % unit === 0n) return `${sign}${magnitude / unit}${suffix}`;
    }
    return `${sign}${magnitude}`;
  }
  for (const [suffix, exponent] of DECIMAL_ORDER) {
    const scaledNumerator = exponent >= 0 ? magnitude : magnitude * 10n ** BigInt(-exponent);
    const scaledDenominator = exponent >= 0 ? denominator * 10n ** BigInt(exponent) : denominator;
    if (scaledNumerator % scaledDenominator === 0n) return `${sign}${scaledNumerator / scaledDenominator}${suffix}`;
  }
  const nanos = (magnitude * 10n ** 9n + denominator - 1n) / denominator;
  return `${sign}${nanos}n`;
}

const SI_SUFFIXES = new Set(['', 'n', 'u', 'm', 'k', 'M', 'G', 'T', 'P', 'E']);
const BINARY_EXPONENTS: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
/** Go's int64 digits: a number of at most this many digits fits. */
const MAX_INT64_DIGITS = 18;

/** The message of the reference's decoder for text that is no quantity. */
export const QUANTITY_FORMAT_ERROR =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

/**
 * The text the reference keeps for a quantity it decodes (resource.Quantity's String after
 * ParseQuantity): the text as written where its parser keeps it (no fraction left over, an SI
 * step's exponent and no trailing 000; or a binary suffix on a number not a multiple of 8), else
 * the canonical form in the format the suffix chose (binary, exponent or decimal SI), rounded up
 * to a nano. Undefined when the text is no quantity.
 */
export function canonicalQuantity(written: string): string | undefined {
  const text = written.trim();
  if (text === '0') return text;
  const parts = /^([+-]?)0*(\d*)(?:\.(\d*))?(.*)$/.exec(text);
  if (parts === null) return undefined;
  const [, , digits, fraction = '', suffix] = parts;
  const num = digits === '' ? '0' : digits;
  const binaryExponent = BINARY_EXPONENTS[suffix];
  const exponentSuffix = /^[eE][+-]?\d+$/.test(suffix);
  if (binaryExponent === undefined && !exponentSuffix && !SI_SUFFIXES.has(suffix)) return undefined;
  const quantity = parseQuantity(text);
  if (quantity === undefined) return undefined;
  if (keptAsWritten(num, fraction, suffix, binaryExponent)) return text;
  if (exponentSuffix) return formatExponent(quantity);
  return formatQuantity(quantity, binaryExponent !== undefined);
}

/** ParseQuantity's fast path, which keeps the text when it is already what String would write. */
function keptAsWritten(num: string, fraction: string, suffix: string, binaryExponent: number | undefined): boolean {
  if (binaryExponent !== undefined) {
    const fits = fraction === '' && 15 - num.length - Math.floor((binaryExponent * 3) / 10) - 1 >= 0;
    return fits && (Number(num) & 7) !== 0;
  }
  if (MAX_INT64_DIGITS - num.length - fraction.length < 0) return false;
  const exponent = suffix.length > 1 && /^[eE]/.test(suffix) ? Number(suffix.slice(1)) : DECIMAL_EXPONENTS[suffix];
  const scale = exponent - fraction.length;
  const shifted = num + fraction;
  return scale >= -9 && scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
}

/** A canonical text in exponent form, whose format the reference keeps when it changes the value. */
const EXPONENT_FORM = /[eE][+-]?\d+$/;

/**
 * Texts that are a whole number of millis, which rounding returns as written: at most three
 * decimals with no suffix or a decimal or binary multiple (`1.5`, `128Mi`, `0.5k`), or whole
 * millis (`500m`). Most of what clients write; they skip the exact arithmetic on big integers.
 */
const WHOLE_MILLIS = /^[+-]?(?:\d+(?:\.\d{0,3})?|\.\d{1,3})(?:[kMGTPE]|[KMGTPE]i)?$|^[+-]?\d+m$/;

/**
 * The reference's SetDefaults_ResourceList rounding (Quantity.RoundUp to milli): a quantity
 * finer than a milli is rounded away from zero to the next one and written again in the format
 * it was written in; any other text is returned as it is.
 */
export function roundedUpToMilli(text: string): string {
  if (WHOLE_MILLIS.test(text)) return text;
  const quantity = parseQuantity(text);
  if (quantity === undefined) return text;
  const milli = quantity.numerator * 1000n;
  if (milli % quantity.denominator === 0n) return text;
  const magnitude = milli < 0n ? -milli : milli;
  const roundedUp = (magnitude + quantity.denominator - 1n) / quantity.denominator;
  const rounded = new Quantity(milli < 0n ? -roundedUp : roundedUp, 1000n);
  return formatLike(rounded, text);
}

/**
 * The canonical text of `quantity` in the format `text` was written in (exponent, binary or
 * decimal SI), as the reference writes a quantity it computed from that one: Go's result keeps
 * the format of the quantity it started from.
 */
export function formatLike(quantity: Quantity, text: string): string {
  return EXPONENT_FORM.test(text) ? formatExponent(quantity) : formatQuantity(quantity, isBinaryFormat(text));
}

/** The canonical text in exponent form (`12e6`, `1500e-3`): the largest exponent step that keeps a whole mantissa. */
function formatExponent(quantity: Quantity): string {
  const { numerator, denominator } = quantity;
  if (numerator === 0n) return '0';
  const sign = numerator < 0n ? '-' : '';
  const magnitude = numerator < 0n ? -numerator : numerator;
  let mantissa = (magnitude * 10n ** 9n + denominator - 1n) / denominator;
  let exponent = -9;
  while (mantissa % 1000n === 0n) {
    mantissa /= 1000n;
    exponent += 3;
  }
  return `${sign}${mantissa}${exponent === 0 ? '' : `e${exponent}`}`;
}
