/**
 * Go's encoding/json words for a syntax error, from what V8's JSON.parse said about the same
 * text, and for a value of the wrong type: what clients see where the reference decodes JSON with
 * the standard library (a body's version and kind, a list's continue token, an annotation).
 */

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

const GO_ESCAPES: Readonly<Record<string, string>> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
};

/** Go's quoteChar: the character between single quotes, a control character escaped as strconv.Quote does. */
function quoteChar(character: string): string {
  const code = character.charCodeAt(0);
  if (code >= 0x20 && code !== 0x7f) return `'${character}'`;
  return `'${GO_ESCAPES[character] ?? `\\x${code.toString(16).padStart(2, '0')}`}'`;
}

export function goJSONSyntaxError(text: string, error: Error): string {
  if (text.trim() === '') return 'unexpected end of JSON input';
  const position = /at position (\d+)/.exec(error.message);
  if (position) {
    const at = Number(position[1]);
    if (at >= text.trimEnd().length) return 'unexpected end of JSON input';
    const where = GO_SYNTAX_CONTEXTS.find(([pattern]) => pattern.test(error.message));
    if (where) return `invalid character ${quoteChar(text[at])} ${where[1]}`;
  }
  const match = /Unexpected token '?(.)'?/.exec(error.message);
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
