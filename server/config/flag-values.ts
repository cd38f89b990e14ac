/**
 * Values of kube-apiserver's flags by their pflag type: each parser checks a value as the
 * reference's flag type checks it (so a malformed value is refused with Go's words) and gives
 * its canonical form, so that `--watch-cache=1` is known to be the default `true` and
 * `--event-ttl=60m` the default `1h0m0s`.
 */
import { isIP } from 'node:net';
import { parseGoDuration } from './duration';

/** The spellings Go's strconv.ParseBool accepts. */
export const GO_BOOLEANS: Readonly<Record<string, boolean>> = {
  '1': true,
  t: true,
  T: true,
  true: true,
  TRUE: true,
  True: true,
  '0': false,
  f: false,
  F: false,
  false: false,
  FALSE: false,
  False: false,
};

export function parseBool(value: string): boolean {
  const parsed = GO_BOOLEANS[value];
  if (parsed === undefined) throw new Error(`strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`);
  return parsed;
}

/** Splits a comma-separated list, dropping empty items and the spaces around each. */
export function splitList(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

const INTEGER_RANGES: Readonly<Record<string, readonly [bigint, bigint]>> = {
  int: [-(2n ** 63n), 2n ** 63n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  uint: [0n, 2n ** 64n - 1n],
  uint32: [0n, 2n ** 32n - 1n],
  uint64: [0n, 2n ** 64n - 1n],
  // klog's verbosity, a uint32 printed as `Level`.
  Level: [0n, 2n ** 32n - 1n],
};

function canonicalInteger(type: string, value: string): string {
  const [low, high] = INTEGER_RANGES[type];
  const unsigned = low === 0n;
  // strconv.ParseInt with base 0: decimal, 0x, 0o, 0b, a leading 0 for octal, and underscores.
  if (
    !/^[+-]?(0[xX][0-9a-fA-F_]+|0[oO]?[0-7_]+|0[bB][01_]+|[0-9][0-9_]*)$/.test(value) ||
    (unsigned && value.startsWith('-'))
  ) {
    throw new Error(`strconv.Parse${unsigned ? 'Uint' : 'Int'}: parsing ${JSON.stringify(value)}: invalid syntax`);
  }
  const negative = value.startsWith('-');
  let digits = value.replace(/^[+-]/, '').replaceAll('_', '');
  if (/^0[0-7]+$/.test(digits)) digits = `0o${digits.slice(1)}`;
  const parsed = BigInt(digits) * (negative ? -1n : 1n);
  if (parsed < low || parsed > high)
    throw new Error(`strconv.Parse${unsigned ? 'Uint' : 'Int'}: parsing ${JSON.stringify(value)}: value out of range`);
  return parsed.toString();
}

function canonicalFloat(value: string): string {
  const parsed = Number(value);
  if (value.trim() === '' || !Number.isFinite(parsed))
    throw new Error(`strconv.ParseFloat: parsing ${JSON.stringify(value)}: invalid syntax`);
  return String(parsed);
}

/** pflag prints a slice default as `[a,b]`; a value given on the command line is CSV. */
function listItems(value: string): string[] {
  const bracketed = /^\[(.*)\]$/s.exec(value);
  return splitList(bracketed ? bracketed[1] : value);
}

function canonicalMap(value: string): string {
  const pairs = listItems(value).map((entry) => {
    const equals = entry.indexOf('=');
    if (equals < 0) throw new Error(`${entry} must be formatted as key=value`);
    return `${entry.slice(0, equals)}=${entry.slice(equals + 1)}`;
  });
  return pairs.sort().join(',');
}

function canonicalIp(value: string): string {
  if (value === '' || value === '<nil>') return '';
  if (isIP(value) === 0) throw new Error(`failed to parse IP: ${JSON.stringify(value)}`);
  return value;
}

/** utilnet.PortRange: `base-max`, `base+size` or one port. */
function canonicalPortRange(value: string): string {
  const match = /^(\d+)(?:-(\d+)|\+(\d+))?$/.exec(value.trim());
  if (!match) throw new Error(`unable to parse port range: ${value}`);
  const base = Number(match[1]);
  const max = match[2] !== undefined ? Number(match[2]) : match[3] !== undefined ? base + Number(match[3]) : base;
  if (max < base || max > 65535) throw new Error(`invalid port range: ${value}`);
  return `${base}-${max}`;
}

/**
 * The canonical form of a value of the given pflag type (the name its `Value.Type()` gives);
 * throws an Error in Go's words for a value that type refuses. Types capstan has no parser for
 * compare as written.
 */
export function canonicalFlagValue(type: string, value: string): string {
  if (type === 'bool') return String(parseBool(value));
  if (type in INTEGER_RANGES) return canonicalInteger(type, value);
  if (type === 'float32' || type === 'float64') return canonicalFloat(value);
  if (type === 'duration') return String(parseGoDuration(value));
  if (type === 'stringSlice' || type === 'stringArray') return listItems(value).join(',');
  if (type === 'mapStringString' || type === 'stringToString' || type === 'colonSeparatedMultimapStringString')
    return canonicalMap(value);
  if (type === 'ip') return canonicalIp(value);
  if (type === 'portRange') return canonicalPortRange(value);
  return value;
}
