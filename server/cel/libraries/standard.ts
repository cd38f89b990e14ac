/**
 * Standard CEL the engine lacks: ordering of bytes, int(uint), the conversions of timestamps and
 * durations (to and from themselves, to string, timestamp to int), a duration's millisecond
 * component, optional.ofNonZeroValue and equality of optionals, strict UTF-8 in
 * `string(bytes)`, unsigned time zone offsets, and the range checks that make an overflowing
 * int, timestamp or duration an error rather than a wrong value.
 */
import { Optional, type Environment } from '@marcbachmann/cel-js';
import { Duration, UnsignedInt } from '../engine-values';
import { celEquals } from './compare';
import { CelFunctionError, type CelLibrary, type Refinement } from './library';

const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);
const MIN_TIMESTAMP_MS = -62_135_596_800_000; // 0001-01-01T00:00:00Z
const MAX_TIMESTAMP_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
const TS = 'google.protobuf.Timestamp';
const DUR = 'google.protobuf.Duration';

function intOfUint(value: UnsignedInt): bigint {
  if (value.value > INT64_MAX) throw new CelFunctionError('integer overflow');
  return value.value;
}

/** The zero value of a value's type: what `optional.ofNonZeroValue` treats as absent. */
function isZeroValue(value: unknown): boolean {
  if (value === null || value === false || value === '' || value === 0 || value === 0n) return true;
  if (value instanceof UnsignedInt) return value.value === 0n;
  if (value instanceof Uint8Array || Array.isArray(value)) return value.length === 0;
  if (value instanceof Map) return value.size === 0;
  if (value instanceof Duration) return value.seconds === 0n && value.nanos === 0;
  if (value instanceof Date) return value.getTime() === 0;
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype)
    return Object.keys(value).length === 0;
  return false;
}

/** A duration as CEL prints it: seconds with up to nine decimals and an `s`. */
function durationString(duration: Duration): string {
  const negative = duration.seconds < 0n || duration.nanos < 0;
  const seconds = duration.seconds < 0n ? -duration.seconds : duration.seconds;
  const nanos = Math.abs(duration.nanos);
  const fraction = nanos === 0 ? '' : `.${String(nanos).padStart(9, '0').replace(/0+$/, '')}`;
  return `${negative ? '-' : ''}${seconds}${fraction}s`;
}

/** Throws when an evaluation step produced an int, timestamp or duration outside CEL's ranges. */
export function verifyRange(value: unknown): void {
  if (typeof value === 'bigint') {
    if (value > INT64_MAX || value < INT64_MIN) throw new CelFunctionError('integer overflow');
  } else if (value instanceof Date) {
    const time = value.getTime();
    if (!(time >= MIN_TIMESTAMP_MS && time <= MAX_TIMESTAMP_MS)) throw new CelFunctionError('timestamp out of range');
  } else if (value instanceof Duration) {
    // cel-go's durations are Go's, int64 nanoseconds (about 292 years either way).
    const nanos = value.seconds * 1_000_000_000n + BigInt(value.nanos);
    if (nanos > INT64_MAX || nanos < INT64_MIN) {
      throw new CelFunctionError('duration out of range');
    }
  }
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/** `string(bytes)` refuses bytes that are not UTF-8, where the engine substitutes U+FFFD. */
const stringOfUtf8: Refinement = ([value], engine) => {
  if (!(value instanceof Uint8Array)) return engine();
  try {
    return STRICT_UTF8.decode(value);
  } catch {
    throw new CelFunctionError('invalid UTF-8 in bytes, cannot convert to string');
  }
};

/** `int(double)` refuses -2^63 itself, as cel-go does (its range check excludes both ends). */
const intOfDouble: Refinement = ([value], engine) => {
  if (typeof value === 'number' && value <= Number(INT64_MIN)) throw new CelFunctionError('integer overflow');
  return engine();
};

/** A time zone given as an unsigned offset (`'02:00'`) is east of UTC, as cel-go reads it. */
const signedOffset: Refinement = (args, engine) => {
  if (typeof args[1] === 'string' && /^\d\d:\d\d$/.test(args[1])) args[1] = `+${args[1]}`;
  return engine();
};

const TIME_ZONE_ACCESSORS = [
  'getDate',
  'getDayOfMonth',
  'getDayOfWeek',
  'getDayOfYear',
  'getFullYear',
  'getHours',
  'getMilliseconds',
  'getMinutes',
  'getMonth',
  'getSeconds',
];

export const standardLibrary: CelLibrary = {
  declare(env: Environment) {
    for (const op of ['<', '<=', '>', '>='] as const) {
      env.registerOperator(`bytes ${op} bytes`, (a: Uint8Array, b: Uint8Array) => {
        const order = Buffer.compare(a, b);
        return op === '<' ? order < 0 : op === '<=' ? order <= 0 : op === '>' ? order > 0 : order >= 0;
      });
    }
    env
      .registerFunction('int(uint): int', intOfUint)
      .registerFunction(`int(${TS}): int`, (time: Date) => BigInt(Math.floor(time.getTime() / 1000)))
      .registerFunction(`string(${TS}): string`, (time: Date) => time.toISOString().replace('.000Z', 'Z'))
      .registerFunction(`timestamp(${TS}): ${TS}`, (time: Date) => time)
      .registerFunction(`duration(${DUR}): ${DUR}`, (duration: Duration) => duration)
      .registerFunction(`string(${DUR}): string`, durationString)
      .registerFunction('OptionalNamespace.ofNonZeroValue(A): optional<A>', (_namespace: unknown, value: unknown) =>
        isZeroValue(value) ? Optional.none() : Optional.of(value),
      )
      .registerOperator(
        'optional<dyn> == optional<dyn>',
        (a: Optional<unknown>, b: Optional<unknown>) =>
          a.hasValue() === b.hasValue() && (!a.hasValue() || celEquals(a.value(), b.value())),
      );
  },
  refinements: {
    'string/1': stringOfUtf8,
    'int/1': intOfDouble,
    ...Object.fromEntries(TIME_ZONE_ACCESSORS.map((name) => [`.${name}/1`, signedOffset])),
  },
  overrides: {
    // The engine gives a duration's total milliseconds; CEL's getMilliseconds is the component.
    '.getMilliseconds/0': (value: Date | Duration) =>
      value instanceof Date ? BigInt(value.getUTCMilliseconds()) : BigInt(Math.trunc(value.nanos / 1e6)),
  },
};
