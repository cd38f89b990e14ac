/**
 * Go's encoding/json words for a syntax error, from what V8's JSON.parse said about the same
 * text, and for a value of the wrong type: what clients see where the reference decodes JSON with
 * the standard library (a body's version and kind, a list's continue token, an annotation).
 */
import { goQuote } from './go-quote';

/** V8's JSON.parse complaints and the context Go's encoding/json names for the same spot. */
const GO_SYNTAX_CONTEXTS: readonly (readonly [RegExp, string])[] = [
  [/Expected property name or '}'|Expected double-quoted property name/, 'looking for beginning of object key string'],
  [/Expected ',' or '}' after property value/, 'after object key:value pair'],
  [/Expected ',' or ']' after array element/, 'after array element'],
  [/Expected ':' after property name/, 'after object key'],
  [/Bad control character in string literal/, 'in string literal'],
  [/Unexpected non-whitespace character after JSON/, 'after top-level value'],
  [/Bad escaped character/, 'in string escape code'],
  [/Unterminated fractional number/, 'after decimal point in numeric literal'],
  [/No number after minus sign/, 'in numeric literal'],
];

/**
 * Go's quoteChar: the byte at the error between single quotes, quoted as strconv.Quote quotes
 * it, but for the two quote marks. Go reads bytes: a character beyond ASCII stands there as its
 * first UTF-8 byte, which Go quotes as the rune of that value.
 */
function quoteChar(character: string): string {
  if (character === "'") return "'\\''";
  if (character === '"') return `'"'`;
  const firstByte = Buffer.from(String.fromCodePoint(codePointOf(character)), 'utf8')[0];
  return `'${goQuote(String.fromCharCode(firstByte)).slice(1, -1)}'`;
}

/**
 * V8 names a character beyond the BMP by its high surrogate alone; that half fixes the first
 * UTF-8 byte of every code point it begins, so any of them will do.
 */
function codePointOf(character: string): number {
  const code = character.codePointAt(0)!;
  const loneHighSurrogate = character.length === 1 && code >= 0xd800 && code <= 0xdbff;
  return loneHighSurrogate ? 0x10000 + ((code - 0xd800) << 10) : code;
}

export function goJSONSyntaxError(text: string, error: Error): string {
  if (text.trim() === '') return 'unexpected end of JSON input';
  const position = /at position (\d+)/.exec(error.message);
  if (position) {
    const at = Number(position[1]);
    if (at >= text.trimEnd().length) return 'unexpected end of JSON input';
    const where = GO_SYNTAX_CONTEXTS.find(([pattern]) => pattern.test(error.message));
    if (where) return `invalid character ${quoteChar(String.fromCodePoint(text.codePointAt(at)!))} ${where[1]}`;
  }
  const match = /Unexpected token '?(.)'?/u.exec(error.message);
  if (match) return `invalid character ${quoteChar(match[1])} looking for beginning of value`;
  if (/Unexpected end of JSON input|Unterminated|end of data/i.test(error.message))
    return 'unexpected end of JSON input';
  return error.message;
}

/** How Go's encoding/json names a decoded JSON value's type in its errors (`cannot unmarshal <type> into ...`). */
export function goTypeOf(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'bool';
  return 'object';
}
