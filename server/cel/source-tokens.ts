/**
 * A token-level scan of CEL source: identifiers, punctuation, literals (strings with their
 * prefixes, numbers) and comments, with offsets into the text. The passes that adapt CEL syntax
 * the engine's parser does not know (message-syntax.ts, literal-syntax.ts) read the source
 * through it, so that they never mistake text inside a string for syntax.
 */

export type TokenKind = 'identifier' | 'punctuation' | 'literal';

export interface Token {
  readonly kind: TokenKind;
  readonly text: string;
  readonly start: number;
  readonly end: number;
}

/** Words the lexer reads as identifiers that are not names: literals, and the `in` operator. */
const LITERAL_WORDS: ReadonlySet<string> = new Set(['true', 'false', 'null']);
const STRING_PREFIX = /^(?:[rRbB]|[rR][bB]|[bB][rR])$/;
const NUMBER = /(?:0[xX][0-9a-fA-F]+|\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)[uU]?/y;
const IDENTIFIER = /[A-Za-z_][A-Za-z0-9_]*/y;

/** The end of the string literal whose quote is at `quote` (`raw`: no escapes). */
function stringEnd(source: string, quote: number, raw: boolean): number {
  const q = source[quote];
  const triple = source.startsWith(q.repeat(3), quote);
  const closing = triple ? q.repeat(3) : q;
  let i = quote + closing.length;
  while (i < source.length) {
    if (!raw && source[i] === '\\') i += 2;
    else if (source.startsWith(closing, i)) return i + closing.length;
    else if (!triple && source[i] === '\n') return i;
    else i++;
  }
  return source.length;
}

export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source[i];
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (source.startsWith('//', i)) {
      const newline = source.indexOf('\n', i);
      i = newline < 0 ? source.length : newline + 1;
      continue;
    }
    if (c === '"' || c === "'") {
      const end = stringEnd(source, i, false);
      tokens.push({ kind: 'literal', text: source.slice(i, end), start: i, end });
      i = end;
      continue;
    }
    IDENTIFIER.lastIndex = i;
    const word = IDENTIFIER.exec(source)?.[0];
    if (word !== undefined) {
      const after = i + word.length;
      if (STRING_PREFIX.test(word) && (source[after] === '"' || source[after] === "'")) {
        const end = stringEnd(source, after, /[rR]/.test(word));
        tokens.push({ kind: 'literal', text: source.slice(i, end), start: i, end });
        i = end;
      } else {
        const kind = word === 'in' ? 'punctuation' : LITERAL_WORDS.has(word) ? 'literal' : 'identifier';
        tokens.push({ kind, text: word, start: i, end: after });
        i = after;
      }
      continue;
    }
    NUMBER.lastIndex = i;
    const number = /[\d.]/.test(c) ? NUMBER.exec(source)?.[0] : undefined;
    if (number !== undefined) {
      tokens.push({ kind: 'literal', text: number, start: i, end: i + number.length });
      i += number.length;
      continue;
    }
    tokens.push({ kind: 'punctuation', text: c, start: i, end: i + 1 });
    i++;
  }
  return tokens;
}
