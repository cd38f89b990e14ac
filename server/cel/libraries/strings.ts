/**
 * The string library of the reference (cel-go's strings extension, version 2, as Kubernetes
 * configures it): charAt, indexOf, lastIndexOf, lowerAscii, upperAscii, replace, split,
 * substring, trim, join, format and strings.quote (reverse came with version 3). Indexes count Unicode code points,
 * not UTF-16 units, and the case functions touch ASCII letters only; where the engine's built-in
 * differs on those points it is replaced.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { UnsignedInt } from '../engine-values';
import { traversalCost, sizeOf } from '../runtime-cost';
import { CelFunctionError, type CelLibrary } from './library';
import { listIndexOf, listLastIndexOf } from './lists';
import { goQuote } from '../../../api/go-quote';

function codePoints(text: string): string[] {
  return Array.from(text);
}

function indexOutOfRange(index: bigint | number): CelFunctionError {
  return new CelFunctionError(`index out of range: ${index}`);
}

function charAt(text: string, index: bigint): string {
  const chars = codePoints(text);
  if (index < 0n || index > BigInt(chars.length)) throw indexOutOfRange(index);
  return chars[Number(index)] ?? '';
}

function indexOf(text: string, search: string, offset = 0n): bigint {
  const chars = codePoints(text);
  if (offset < 0n || offset > BigInt(chars.length)) throw indexOutOfRange(offset);
  const needle = codePoints(search);
  for (let i = Number(offset); i + needle.length <= chars.length; i++) {
    if (needle.every((c, j) => chars[i + j] === c)) return BigInt(i);
  }
  return -1n;
}

function lastIndexOf(text: string, search: string, offset?: bigint): bigint {
  const chars = codePoints(text);
  const needle = codePoints(search);
  const from = offset ?? BigInt(chars.length);
  if (from < 0n || from > BigInt(chars.length)) throw indexOutOfRange(from);
  for (let i = Math.min(Number(from), chars.length - needle.length); i >= 0; i--) {
    if (needle.every((c, j) => chars[i + j] === c)) return BigInt(i);
  }
  return -1n;
}

function substring(text: string, start: bigint, end?: bigint): string {
  const chars = codePoints(text);
  const stop = end ?? BigInt(chars.length);
  if (start < 0n || start > BigInt(chars.length)) throw indexOutOfRange(start);
  if (stop < 0n || stop > BigInt(chars.length)) throw indexOutOfRange(stop);
  if (start > stop) throw new CelFunctionError(`invalid substring range. start: ${start}, end: ${stop}`);
  return chars.slice(Number(start), Number(stop)).join('');
}

const lowerAscii = (text: string): string => text.replace(/[A-Z]+/g, (s) => s.toLowerCase());
const upperAscii = (text: string): string => text.replace(/[a-z]+/g, (s) => s.toUpperCase());

/** Go's strings.Replace: at most `limit` replacements (all when negative); an empty `from` matches between characters. */
function replace(text: string, from: string, to: string, limit = -1n): string {
  let remaining = limit < 0n ? BigInt(Number.MAX_SAFE_INTEGER) : limit;
  if (from === '') {
    const chars = codePoints(text);
    let out = '';
    for (let i = 0; i <= chars.length; i++) {
      if (remaining > 0n) {
        out += to;
        remaining--;
      }
      out += chars[i] ?? '';
    }
    return out;
  }
  let out = '';
  let rest = text;
  while (remaining > 0n) {
    const at = rest.indexOf(from);
    if (at < 0) break;
    out += rest.slice(0, at) + to;
    rest = rest.slice(at + from.length);
    remaining--;
  }
  return out + rest;
}

function formatNumber(value: unknown, verb: string, precision: number | undefined): string {
  const number = value instanceof UnsignedInt ? value.value : value;
  switch (verb) {
    case 'd':
      if (typeof number === 'bigint') return number.toString();
      if (typeof number === 'number' && !Number.isFinite(number))
        return Number.isNaN(number) ? 'NaN' : number > 0 ? 'Infinity' : '-Infinity';
      throw new CelFunctionError(
        `error during formatting: decimal clause can only be used on integers, was given ${typeof number}`,
      );
    case 'f':
    case 'e': {
      const double = typeof number === 'bigint' ? Number(number) : number;
      if (typeof double !== 'number')
        throw new CelFunctionError(`error during formatting: fixed-point clause can only be used on doubles`);
      if (!Number.isFinite(double)) return Number.isNaN(double) ? 'NaN' : double > 0 ? 'Infinity' : '-Infinity';
      if (verb === 'f') return double.toFixed(precision ?? 6);
      return double.toExponential(precision ?? 6).replace(/e([+-])(\d)$/, 'e$10$2');
    }
    case 'b':
    case 'o':
    case 'x':
    case 'X': {
      const radix = verb === 'b' ? 2 : verb === 'o' ? 8 : 16;
      let digits: string;
      if (typeof number === 'bigint')
        digits = (number < 0n ? '-' : '') + (number < 0n ? -number : number).toString(radix);
      else if (typeof number === 'string') digits = Buffer.from(number, 'utf8').toString('hex');
      else if (number instanceof Uint8Array) digits = Buffer.from(number).toString('hex');
      else if (typeof number === 'boolean' && radix === 2) digits = number ? '1' : '0';
      else
        throw new CelFunctionError(
          `error during formatting: only integers, byte buffers, and strings can be formatted as hex, was given ${typeof number}`,
        );
      return verb === 'X' ? digits.toUpperCase() : digits;
    }
    default:
      throw new CelFunctionError(`could not parse formatting clause: unrecognized formatting clause "${verb}"`);
  }
}

function formatString(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null) return 'null';
  if (typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  if (value instanceof UnsignedInt) return String(value.value);
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : String(value);
  if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8');
  if (value instanceof Date) return value.toISOString().replace('.000Z', 'Z');
  if (Array.isArray(value)) return `[${value.map(formatString).join(', ')}]`;
  if (value instanceof Map) {
    const entries = [...value.entries()].map(([k, v]) => [formatString(k), formatString(v)] as const);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${k}: ${v}`).join(', ')}}`;
  }
  return String(value);
}

/** `"%s is %d".format([a, b])`: the verbs s, d, f, e, b, o, x, X and `%%`. */
function format(template: string, args: unknown[]): string {
  let argIndex = 0;
  return template.replace(
    /%(?:\.(\d+))?([a-zA-Z%])?/g,
    (_all, precision: string | undefined, verb: string | undefined) => {
      if (verb === '%') return '%';
      if (verb === undefined) throw new CelFunctionError('could not parse formatting clause: unexpected end of string');
      if (argIndex >= args.length) throw new CelFunctionError(`index ${argIndex} out of range`);
      const value = args[argIndex++];
      if (verb === 's') return formatString(value);
      return formatNumber(value, verb, precision === undefined ? undefined : Number(precision));
    },
  );
}

/** Holder for `strings.quote`: the engine resolves `strings.` as a variable of this type. */
class StringsNamespace {}

export const stringsLibrary: CelLibrary = {
  declare(env: Environment) {
    env
      .registerFunction('string.charAt(int): string', charAt)
      .registerFunction('string.replace(string, string): string', replace)
      .registerFunction('string.replace(string, string, int): string', replace)
      .registerFunction('string.format(list<dyn>): string', format)
      .registerType('kubernetes.StringsNamespace', StringsNamespace)
      .registerConstant('strings', 'kubernetes.StringsNamespace', new StringsNamespace())
      .registerFunction('kubernetes.StringsNamespace.quote(string): string', (_ns: StringsNamespace, text: string) =>
        goQuote(text),
      );
  },
  costs: {
    '.charAt': () => 1,
    '.indexOf': ([receiver, search]) =>
      1 + traversalCost(receiver) + (typeof receiver === 'string' ? traversalCost(search) : 0),
    '.lastIndexOf': ([receiver, search]) =>
      1 + traversalCost(receiver) + (typeof receiver === 'string' ? traversalCost(search) : 0),
    '.lowerAscii': ([receiver]) => 1 + traversalCost(receiver),
    '.upperAscii': ([receiver]) => 1 + traversalCost(receiver),
    '.replace': ([receiver], result) => 1 + traversalCost(receiver) + traversalCost(result),
    '.split': ([receiver], result) => 1 + traversalCost(receiver) + sizeOf(result),
    '.substring': ([receiver]) => 1 + traversalCost(receiver),
    '.trim': ([receiver]) => 1 + traversalCost(receiver),
    '.join': (_args, result) => 1 + traversalCost(result),
    '.format': (_args, result) => 1 + traversalCost(result),
    '.quote': ([, text]) => 1 + traversalCost(text),
    '.contains': ([receiver, search]) => 1 + Math.ceil(sizeOf(receiver) * sizeOf(search) * 0.1),
    '.startsWith': ([, prefix]) => 1 + traversalCost(prefix),
    '.endsWith': ([, suffix]) => 1 + traversalCost(suffix),
  },
  overrides: {
    // indexOf and lastIndexOf are also list functions; the receiver says which.
    '.indexOf/1': (receiver: string | unknown[], search: unknown) =>
      typeof receiver === 'string' ? indexOf(receiver, search as string) : listIndexOf(receiver, search),
    '.indexOf/2': indexOf,
    '.lastIndexOf/1': (receiver: string | unknown[], search: unknown) =>
      typeof receiver === 'string' ? lastIndexOf(receiver, search as string) : listLastIndexOf(receiver, search),
    '.lastIndexOf/2': lastIndexOf,
    '.substring/1': substring,
    '.substring/2': substring,
    '.lowerAscii/0': lowerAscii,
    '.upperAscii/0': upperAscii,
  },
};
