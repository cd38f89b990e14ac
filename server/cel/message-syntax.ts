/**
 * CEL's message construction syntax, `Name{field: value, ?optionalField: optionalValue}` with a
 * dotted (optionally leading-dot) type name, which the engine's parser does not know.
 *
 * Before parsing, each construction's type name is blanked out of the source (and the `?` of its
 * optional fields): the engine then parses the field list as a map literal at the same offsets,
 * so every position in the tree and in error messages stays that of the original text. After
 * parsing, the map nodes found at the recorded offsets become construction nodes
 * (message-construction.ts). Only a token-level scan is needed: a name followed by `{` is a
 * construction and nothing else in CEL's grammar, so the scan reads identifiers, punctuation,
 * strings (whose contents it skips), numbers and comments, and no more. Field lists are checked
 * here as cel-go's grammar checks them (an identifier, then `:`), with its syntax error texts.
 */
import { tokenize, type Token } from './source-tokens';

/** One construction: its type name as written and, per field, what the checker needs. */
export interface MessageSite {
  /** The type name, leading dot removed (the reference resolves it from the root container, ''). */
  readonly typeName: string;
  /** Per field, by the offset of its name: the `:` offset (where cel-go reports field errors) and whether it is `?`-optional. */
  readonly fields: ReadonlyMap<number, { readonly colon: number; readonly optional: boolean }>;
}

export interface PreparedSource {
  /** The text to give the engine's parser. */
  readonly source: string;
  /**
   * By the offset of each construction's `{`: where the engine's map node starts, and where
   * cel-go reports an unknown type.
   */
  readonly sites: ReadonlyMap<number, MessageSite>;
  /** The first error in a construction's field list, as cel-go words it. */
  readonly syntaxError?: { readonly message: string; readonly start: number };
}

const EXPECTING_FIELD = "{'}', ',', '?', IDENTIFIER, ESC_IDENTIFIER}";

/** The index of the token after the `}` closing the `{` at `open`. */
function closingIndex(tokens: readonly Token[], open: number): number {
  let depth = 0;
  for (let i = open; i < tokens.length; i++) {
    const text = tokens[i].text;
    if (text === '{' || text === '(' || text === '[') depth++;
    else if (text === '}' || text === ')' || text === ']') {
      depth--;
      if (depth === 0) return i;
    }
  }
  return tokens.length;
}

const isOperandEnd = (token: Token | undefined): boolean =>
  token !== undefined &&
  (token.kind !== 'punctuation' || token.text === ')' || token.text === ']' || token.text === '}');

/** Finds the constructions in `expression` and prepares its text for the engine's parser. */
export function prepareMessageSyntax(expression: string): PreparedSource {
  if (!expression.includes('{')) return { source: expression, sites: new Map() };
  const tokens = tokenize(expression);
  const blanked = expression.split('');
  const blank = (from: number, to: number) => {
    for (let i = from; i < to; i++) if (blanked[i] !== '\n') blanked[i] = ' ';
  };
  const sites = new Map<number, MessageSite>();
  let syntaxError: PreparedSource['syntaxError'];
  const fail = (message: string, start: number) => {
    if (syntaxError === undefined || start < syntaxError.start) syntaxError = { message, start };
  };

  tokens.forEach((token, index) => {
    if (token.text !== '{' || index === 0 || tokens[index - 1].kind !== 'identifier') return;
    // The name: identifiers joined by dots, back from the brace.
    let first = index - 1;
    while (first >= 2 && tokens[first - 1].text === '.' && tokens[first - 2].kind === 'identifier') first -= 2;
    const typeName = tokens
      .slice(first, index)
      .map((t) => t.text)
      .join('');
    const before = tokens[first - 1];
    if (before?.text === '.') {
      // `f().Name{` selects from an operand, which no construction does: the engine reports it.
      if (isOperandEnd(tokens[first - 2])) return;
      first--;
    } else if (isOperandEnd(before)) {
      return;
    }
    blank(tokens[first].start, token.start);

    const fields = new Map<number, { colon: number; optional: boolean }>();
    const close = closingIndex(tokens, index);
    let i = index + 1;
    while (i < close) {
      let optional = false;
      if (tokens[i].text === '?') {
        optional = true;
        blank(tokens[i].start, tokens[i].end);
        i++;
      }
      const name = tokens[i];
      if (name === undefined || i >= close) {
        if (optional)
          fail(
            `Syntax error: mismatched input '${name?.text ?? '<EOF>'}' expecting IDENTIFIER`,
            name?.start ?? expression.length,
          );
        break;
      }
      if (name.text === '`') {
        fail("unsupported syntax: '`'", name.start);
        break;
      }
      if (name.kind !== 'identifier') {
        fail(`Syntax error: mismatched input '${name.text}' expecting ${EXPECTING_FIELD}`, name.start);
        break;
      }
      const colon = tokens[i + 1];
      if (colon?.text !== ':') {
        fail(`Syntax error: missing ':' at '${colon?.text ?? '<EOF>'}'`, colon?.start ?? expression.length);
        break;
      }
      fields.set(name.start, { colon: colon.start, optional });
      // Past the value, to the next field.
      let depth = 0;
      i += 2;
      while (i < close && !(depth === 0 && tokens[i].text === ',')) {
        const text = tokens[i].text;
        if (text === '{' || text === '(' || text === '[') depth++;
        else if (text === '}' || text === ')' || text === ']') depth--;
        i++;
      }
      i++;
    }
    sites.set(token.start, { typeName, fields });
  });
  return { source: blanked.join(''), sites, syntaxError };
}
