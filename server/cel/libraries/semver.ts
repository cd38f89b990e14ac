/**
 * The Kubernetes semver library: `semver(string)`, `isSemver(string)`, each also with a
 * `normalize` flag (a leading `v` dropped, missing minor and patch filled with 0, leading zeros
 * dropped), and the members major, minor, patch, compareTo, isLessThan and isGreaterThan. A
 * version is what github.com/blang/semver/v4 parses (the reference's parser), with its error
 * texts. Available since the 1.33 environment, which is what a 1.34 server compiles new
 * expressions at.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { traversalCost } from '../runtime-cost';
import { CelFunctionError, type CelLibrary } from './library';

/** A pre-release identifier: numeric ones order by value, below alphanumeric ones. */
type PreRelease = bigint | string;

export class Semver {
  constructor(
    readonly major: bigint,
    readonly minor: bigint,
    readonly patch: bigint,
    readonly pre: readonly PreRelease[],
    readonly build: readonly string[],
  ) {}

  /** -1, 0 or 1 by semver precedence (build metadata does not count). */
  compareTo(other: Semver): number {
    for (const [a, b] of [
      [this.major, other.major],
      [this.minor, other.minor],
      [this.patch, other.patch],
    ] as const) {
      if (a !== b) return a > b ? 1 : -1;
    }
    if (this.pre.length === 0 || other.pre.length === 0) return Math.sign(other.pre.length - this.pre.length);
    for (let i = 0; i < Math.min(this.pre.length, other.pre.length); i++) {
      const order = comparePreRelease(this.pre[i], other.pre[i]);
      if (order !== 0) return order;
    }
    return Math.sign(this.pre.length - other.pre.length);
  }
}

function comparePreRelease(a: PreRelease, b: PreRelease): number {
  if (typeof a !== typeof b) return typeof a === 'bigint' ? -1 : 1;
  return a === b ? 0 : a > b ? 1 : -1;
}

const DIGITS = /^[0-9]*$/;
const ALPHANUMERIC = /^[0-9A-Za-z-]*$/;
const MAX_UINT64 = 2n ** 64n - 1n;

/** Go's strconv.ParseUint of a string of digits. */
function parseUint(text: string): bigint | string {
  if (text === '') return 'strconv.ParseUint: parsing "": invalid syntax';
  const value = BigInt(text);
  return value > MAX_UINT64 ? `strconv.ParseUint: parsing "${text}": value out of range` : value;
}

function versionNumber(text: string, name: string): bigint | string {
  if (!DIGITS.test(text)) return `Invalid character(s) found in ${name} number "${text}"`;
  if (text.length > 1 && text[0] === '0')
    return `${name[0].toUpperCase()}${name.slice(1)} number must not contain leading zeroes "${text}"`;
  return parseUint(text);
}

/** A pre-release identifier, or (as `{ error }`) why it is not one. */
function preRelease(text: string): PreRelease | { readonly error: string } {
  if (text === '') return { error: 'Prerelease is empty' };
  if (DIGITS.test(text)) {
    if (text.length > 1 && text[0] === '0')
      return { error: `Numeric PreRelease version must not contain leading zeroes "${text}"` };
    const value = parseUint(text);
    return typeof value === 'string' ? { error: value } : value;
  }
  return ALPHANUMERIC.test(text) ? text : { error: `Invalid character(s) found in prerelease "${text}"` };
}

/** blang/semver's Parse: the version, or its error text. */
export function parseSemver(text: string): Semver | string {
  if (text === '') return 'Version string empty';
  const parts = splitN(text, '.', 3);
  if (parts.length !== 3) return 'No Major.Minor.Patch elements found';
  const major = versionNumber(parts[0], 'major');
  if (typeof major === 'string') return major;
  const minor = versionNumber(parts[1], 'minor');
  if (typeof minor === 'string') return minor;
  let patchText = parts[2];
  let build: string[] = [];
  let pre: string[] = [];
  const plus = patchText.indexOf('+');
  if (plus >= 0) {
    build = patchText.slice(plus + 1).split('.');
    patchText = patchText.slice(0, plus);
  }
  const dash = patchText.indexOf('-');
  if (dash >= 0) {
    pre = patchText.slice(dash + 1).split('.');
    patchText = patchText.slice(0, dash);
  }
  const patch = versionNumber(patchText, 'patch');
  if (typeof patch === 'string') return patch;
  const identifiers: PreRelease[] = [];
  for (const part of pre) {
    const identifier = preRelease(part);
    if (typeof identifier === 'object') return identifier.error;
    identifiers.push(identifier);
  }
  for (const part of build) {
    if (part === '') return 'Build meta data is empty';
    if (!ALPHANUMERIC.test(part)) return `Invalid character(s) found in build meta data "${part}"`;
  }
  return new Semver(major, minor, patch, identifiers, build);
}

/** Go's strings.SplitN. */
function splitN(text: string, separator: string, n: number): string[] {
  const parts = text.split(separator);
  return parts.length <= n ? parts : [...parts.slice(0, n - 1), parts.slice(n - 1).join(separator)];
}

/** The reference's normalization before parsing: no `v`, no leading zeros, minor and patch filled. */
export function parseSemverNormalized(text: string): Semver | string {
  const parts = splitN(text.startsWith('v') ? text.slice(1) : text, '.', 3).map((part) => {
    if (part.length <= 1) return part;
    const trimmed = part.replace(/^0+/, '');
    return trimmed === '' || !/^[0-9]/.test(trimmed) ? `0${trimmed}` : trimmed;
  });
  if (parts.length < 3) {
    if (/[+-]/.test(parts[parts.length - 1])) return 'short version cannot contain PreRelease/Build meta data';
    while (parts.length < 3) parts.push('0');
  }
  return parseSemver(parts.join('.'));
}

function toSemver(text: string, normalize = false): Semver {
  const version = normalize ? parseSemverNormalized(text) : parseSemver(text);
  if (typeof version === 'string') throw new CelFunctionError(version);
  return version;
}

const isSemver = (text: string, normalize = false): boolean =>
  typeof (normalize ? parseSemverNormalized(text) : parseSemver(text)) !== 'string';

/** Go's int64 of a uint64, as the reference returns major, minor and patch. */
const asInt = (value: bigint): bigint => BigInt.asIntN(64, value);

export const semverLibrary: CelLibrary = {
  declare(env: Environment) {
    env
      .registerType('kubernetes.Semver', Semver)
      .registerOperator('kubernetes.Semver == kubernetes.Semver', (a: Semver, b: Semver) => a.compareTo(b) === 0)
      .registerFunction('semver(string): kubernetes.Semver', (text: string) => toSemver(text))
      .registerFunction('semver(string, bool): kubernetes.Semver', toSemver)
      .registerFunction('isSemver(string): bool', (text: string) => isSemver(text))
      .registerFunction('isSemver(string, bool): bool', isSemver)
      .registerFunction('kubernetes.Semver.major(): int', (v: Semver) => asInt(v.major))
      .registerFunction('kubernetes.Semver.minor(): int', (v: Semver) => asInt(v.minor))
      .registerFunction('kubernetes.Semver.patch(): int', (v: Semver) => asInt(v.patch))
      .registerFunction(
        'kubernetes.Semver.isGreaterThan(kubernetes.Semver): bool',
        (v: Semver, o: Semver) => v.compareTo(o) > 0,
      )
      .registerFunction(
        'kubernetes.Semver.isLessThan(kubernetes.Semver): bool',
        (v: Semver, o: Semver) => v.compareTo(o) < 0,
      )
      .registerFunction('kubernetes.Semver.compareTo(kubernetes.Semver): int', (v: Semver, o: Semver) =>
        BigInt(v.compareTo(o)),
      );
  },
  costs: {
    semver: ([text]) => traversalCost(text),
    isSemver: ([text]) => traversalCost(text),
  },
};
