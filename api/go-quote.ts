/**
 * A string as the reference prints it in a message: Go's strconv.Quote (fmt's `%q`), for field
 * errors' values, names, CEL's strings.quote, netip's and url's errors; and Go's encoding/json,
 * for values of a named string type, which a field error prints as JSON.
 */
import { strayByteOf } from './go-bytes';
import { GO_PRINTABLE_RANGES } from './go-printable';

const ESCAPES: Readonly<Record<string, string>> = {
  '"': '\\"',
  '\\': '\\\\',
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
};

/**
 * Go's strconv.IsPrint (and unicode.IsPrint, which agrees with it): a binary search for the last
 * range that starts at or before the code point.
 */
export function goIsPrint(code: number): boolean {
  if (code < 0x7f) return code >= 0x20;
  let low = 0;
  let high = GO_PRINTABLE_RANGES.length / 2 - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (GO_PRINTABLE_RANGES[middle * 2] > code) high = middle - 1;
    else if (GO_PRINTABLE_RANGES[middle * 2 + 1] < code) low = middle + 1;
    else return true;
  }
  return false;
}

function hex(code: number, digits: number): string {
  return code.toString(16).padStart(digits, '0');
}

/**
 * A stray byte (see go-bytes.ts) prints as Go prints it, `\xff`. Any other lone surrogate stands
 * for U+FFFD: JavaScript keeps one that JSON text escapes (`"\ud800"`) where Go's decoder puts
 * the replacement character, so the reference quotes U+FFFD for the same request.
 */
export function goQuote(text: string): string {
  let out = '"';
  for (const character of text) {
    const escape = ESCAPES[character];
    let code = character.codePointAt(0)!;
    const stray = strayByteOf(code);
    if (stray !== undefined) {
      out += `\\x${hex(stray, 2)}`;
      continue;
    }
    if (code >= 0xd800 && code <= 0xdfff) code = 0xfffd;
    if (escape !== undefined) out += escape;
    else if (goIsPrint(code)) out += String.fromCodePoint(code);
    else if (code < 0x20 || code === 0x7f) out += `\\x${hex(code, 2)}`;
    else if (code < 0x10000) out += `\\u${hex(code, 4)}`;
    else out += `\\U${hex(code, 8)}`;
  }
  return `${out}"`;
}

/** Go's `%q` of a []string: each quoted, space-separated, in brackets. */
export function goQuoteSlice(values: readonly string[]): string {
  return `[${values.map(goQuote).join(' ')}]`;
}

/** Go's `%#v` of a []string: `[]string{"a", "b"}`, each element as `%q` quotes it. */
export function goSharpStringSlice(values: readonly string[]): string {
  return `[]string{${values.map(goQuote).join(', ')}}`;
}

/** What Go's encoding/json escapes beyond JSON.stringify, and a JSON.stringify escape to keep whole. */
const GO_JSON_DIFFERENCES = /\\\\|\\ud[89a-f][0-9a-f]{2}|[<>&\u2028\u2029]/g;

/**
 * JSON text of JSON.stringify as Go's json.Marshal writes the same value: HTML-safe (`<`, `>`,
 * `&` escaped), a stray byte as the escape `\ufffd` (as json.Marshal writes a byte that is no
 * UTF-8), and another lone surrogate, which JSON.stringify escapes as it is, the U+FFFD it
 * stands for (see goQuote). Member order stays the caller's.
 */
export function goJSONEscaped(json: string): string {
  return json.replace(GO_JSON_DIFFERENCES, (match) => {
    if (match === '\\\\') return match;
    if (match.length > 1) return strayByteOf(parseInt(match.slice(2), 16)) === undefined ? '\ufffd' : '\\ufffd';
    return `\\u${hex(match.charCodeAt(0), 4)}`;
  });
}

/** Go's json.Marshal of a string. */
export function goJSONQuote(text: string): string {
  return goJSONEscaped(JSON.stringify(text));
}
