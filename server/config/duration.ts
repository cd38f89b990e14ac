/**
 * Go's `time.ParseDuration`, with its error texts: flags take Go durations (`5m0s`), and the
 * request `timeout` parameter answers 400 with Go's message. Written here because no npm
 * package parses Go's grammar (fractions, `µs`, sign, unit sequences like `1h2m3.5s`) and
 * reports its errors verbatim.
 */

const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3, // U+00B5 micro sign
  μs: 1e-3, // U+03BC Greek mu
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

export class DurationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DurationError';
  }
}

/** Milliseconds for a Go duration string; throws `DurationError` with Go's message. */
export function parseGoDuration(text: string): number {
  const quoted = JSON.stringify(text);
  const invalid = () => new DurationError(`time: invalid duration ${quoted}`);
  let rest = text;
  let sign = 1;
  if (rest.startsWith('-') || rest.startsWith('+')) {
    sign = rest[0] === '-' ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  if (rest === '') throw invalid();
  let total = 0;
  while (rest !== '') {
    const number = /^(\d*)(?:\.(\d*))?/.exec(rest);
    const whole = number?.[1] ?? '';
    const fraction = number?.[2];
    if (whole === '' && !fraction) throw invalid();
    rest = rest.slice(number![0].length);
    const unitMatch = /^[^0-9.]*/.exec(rest)![0];
    if (unitMatch === '') throw new DurationError(`time: missing unit in duration ${quoted}`);
    const unitMs = UNIT_MS[unitMatch];
    if (unitMs === undefined) {
      throw new DurationError(`time: unknown unit ${JSON.stringify(unitMatch)} in duration ${quoted}`);
    }
    rest = rest.slice(unitMatch.length);
    total += Number(`${whole || '0'}.${fraction || '0'}`) * unitMs;
  }
  return sign * total;
}

/** Go's `time.Duration.String()` for durations under a second or more, as the reference prints latencies. */
export function goDuration(nanoseconds: number): string {
  if (nanoseconds < 1_000) return `${nanoseconds}ns`;
  if (nanoseconds < 1_000_000) return `${trim(nanoseconds / 1_000)}µs`;
  if (nanoseconds < 1_000_000_000) return `${trim(nanoseconds / 1_000_000)}ms`;
  const seconds = nanoseconds / 1_000_000_000;
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = trim(seconds % 60);
  return `${hours > 0 ? `${hours}h` : ''}${hours > 0 || minutes > 0 ? `${minutes}m` : ''}${rest}s`;
}

function trim(value: number): string {
  return String(Number(value.toFixed(6)));
}
