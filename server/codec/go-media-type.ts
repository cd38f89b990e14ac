/**
 * Whether Go's `mime.ParseMediaType` takes a header, which is what the reference asks of a
 * request body's `Content-Type` before it looks for a decoder: a `type/subtype` of tokens, then
 * `; name=value` parameters (a token or a quoted string), trailing semicolons allowed, a name
 * given twice only with the same value. Anything else (`application/json;;;;`, `a=`, `a=b c`,
 * an unclosed quote) is a body in an unknown format. Written out because the parsers on npm
 * (content-type, whatwg-mimetype) each accept or refuse a different set.
 */

/** RFC 2045 tspecials: not part of a token. */
const SPECIALS = new Set('()<>@,;:\\"/[]?=');

function isTokenCharacter(character: string): boolean {
  const code = character.charCodeAt(0);
  return code > 0x20 && code < 0x7f && !SPECIALS.has(character);
}

function token(text: string): { token: string; rest: string } {
  let end = 0;
  while (end < text.length && isTokenCharacter(text[end])) end++;
  return { token: text.slice(0, end), rest: text.slice(end) };
}

/** A token, or a quoted string with `\` escaping a special; undefined when a quote never closes. */
function value(text: string): { value: string; rest: string } | undefined {
  if (!text.startsWith('"')) {
    const found = token(text);
    return { value: found.token, rest: found.rest };
  }
  let unquoted = '';
  for (let i = 1; i < text.length; i++) {
    const character = text[i];
    if (character === '"') return { value: unquoted, rest: text.slice(i + 1) };
    if (character === '\\' && i + 1 < text.length && SPECIALS.has(text[i + 1])) {
      unquoted += text[++i];
    } else if (character === '\r' || character === '\n') {
      return undefined;
    } else {
      unquoted += character;
    }
  }
  return undefined;
}

const trimStart = (text: string) => text.replace(/^\s+/, '');

/** One `; name=value`, or undefined when the text does not start with a well-formed one. */
function parameter(text: string): { name: string; value: string; rest: string } | undefined {
  let rest = trimStart(text);
  if (!rest.startsWith(';')) return undefined;
  const name = token(trimStart(rest.slice(1)));
  if (name.token === '') return undefined;
  rest = trimStart(name.rest);
  if (!rest.startsWith('=')) return undefined;
  rest = trimStart(rest.slice(1));
  const found = value(rest);
  if (found === undefined || (found.value === '' && found.rest === rest)) return undefined;
  return { name: name.token.toLowerCase(), value: found.value, rest: found.rest };
}

/** The lowercased `type/subtype` when Go's parser takes the whole header, else undefined. */
export function goMediaType(header: string): string | undefined {
  const semicolon = header.indexOf(';');
  const base = (semicolon < 0 ? header : header.slice(0, semicolon)).trim().toLowerCase();
  const type = token(base);
  if (type.token === '' || !type.rest.startsWith('/')) return undefined;
  const subtype = token(type.rest.slice(1));
  if (subtype.token === '' || subtype.rest !== '') return undefined;

  const seen = new Map<string, string>();
  let rest = semicolon < 0 ? '' : header.slice(semicolon);
  while (rest.length > 0) {
    rest = trimStart(rest);
    if (rest === '') break;
    const found = parameter(rest);
    if (found === undefined) {
      // Trailing semicolons are no parameter, and no error.
      if (rest.trim() === ';') break;
      return undefined;
    }
    const earlier = seen.get(found.name);
    if (earlier !== undefined && earlier !== found.value) return undefined;
    seen.set(found.name, found.value);
    rest = found.rest;
  }
  return base;
}
