/**
 * Literals the engine's lexer reads otherwise than cel-go:
 * - bytes: it truncates each character of `b'ÿ'` to one byte (cel-go encodes literal characters
 *   as UTF-8, so `b'ÿ'` is `b'\303\277'`), and it does not know the raw prefixes `br`/`rb`;
 * - doubles written without a leading digit (`.99`, `.5e3`), which it does not read at all.
 *
 * Before parsing, each such literal becomes one the engine reads at the same offsets (a raw
 * bytes literal `br'...'` becomes ` b'   '`, `.99` becomes ` 99`); after parsing, the literal
 * nodes found at the recorded offsets get the value cel-go reads from the original text. The
 * engine has already rejected malformed escapes in non-raw bytes literals by then, so the
 * decoder only meets valid ones.
 */
import type { ASTNode } from '@marcbachmann/cel-js';
import { treeNodes } from './instrumentation';
import { tokenize, type Token } from './source-tokens';

const BYTES_PREFIX = /^(?:[bB][rR]?|[rR][bB])(?=['"])/;
const MAY_NEED_CORRECTION = /[bB][rR]?['"]|[rR][bB]['"]|(?:^|[^\w)\]}.])\s*\.\d/;

const SIMPLE_ESCAPES: Readonly<Record<string, number>> = {
  '\\': 0x5c,
  '?': 0x3f,
  '"': 0x22,
  "'": 0x27,
  '`': 0x60,
  a: 0x07,
  b: 0x08,
  f: 0x0c,
  n: 0x0a,
  r: 0x0d,
  t: 0x09,
  v: 0x0b,
};

export interface PreparedLiterals {
  /** The text to give the engine's parser. */
  readonly source: string;
  /** Each corrected literal's value, by the offset where the engine's literal node starts. */
  readonly literals: ReadonlyMap<number, Uint8Array | number>;
}

/** The bytes a literal's contents denote: escapes as bytes, other characters as UTF-8. */
function decode(contents: string, raw: boolean): Uint8Array {
  if (raw) return Buffer.from(contents, 'utf8');
  const bytes: number[] = [];
  let i = 0;
  while (i < contents.length) {
    if (contents[i] !== '\\' || i + 1 >= contents.length) {
      const codePoint = contents.codePointAt(i)!;
      const char = String.fromCodePoint(codePoint);
      bytes.push(...Buffer.from(char, 'utf8'));
      i += char.length;
      continue;
    }
    const next = contents[i + 1];
    if (next in SIMPLE_ESCAPES) {
      bytes.push(SIMPLE_ESCAPES[next]);
      i += 2;
    } else if (next === 'x' || next === 'X') {
      bytes.push(Number.parseInt(contents.slice(i + 2, i + 4), 16));
      i += 4;
    } else {
      bytes.push(Number.parseInt(contents.slice(i + 1, i + 4), 8));
      i += 4;
    }
  }
  return Uint8Array.from(bytes);
}

const isOperandEnd = (token: Token | undefined): boolean =>
  token !== undefined &&
  (token.kind !== 'punctuation' || token.text === ')' || token.text === ']' || token.text === '}');

/** Finds the literals of `source` the engine reads otherwise and prepares its text for its parser. */
export function prepareLiterals(source: string): PreparedLiterals {
  const literals = new Map<number, Uint8Array | number>();
  if (!MAY_NEED_CORRECTION.test(source)) return { source, literals };
  let prepared = source;
  const replace = (at: number, text: string) => {
    prepared = prepared.slice(0, at) + text + prepared.slice(at + text.length);
  };
  const tokens = tokenize(source);
  tokens.forEach((token, index) => {
    if (token.kind !== 'literal') return;
    if (token.text.startsWith('.')) {
      // `.99` after an operand would be a select, which cel-go's lexer does not make either.
      if (isOperandEnd(tokens[index - 1])) return;
      literals.set(token.start + 1, Number(`0${token.text}`));
      replace(token.start, ' ');
      return;
    }
    const prefix = BYTES_PREFIX.exec(token.text)?.[0];
    if (prefix === undefined) return;
    const quote = token.start + prefix.length;
    const delimiter = source.startsWith(source[quote].repeat(3), quote) ? 3 : 1;
    const contents = source.slice(quote + delimiter, token.end - delimiter);
    const raw = prefix.length === 2;
    literals.set(quote - 1, decode(contents, raw));
    if (raw) replace(token.start, ` b${source.slice(quote, quote + delimiter)}${contents.replace(/[^\n]/g, ' ')}`);
  });
  return { source: prepared, literals };
}

/** The engine's literal node, as far as this pass uses it. */
interface LiteralNode {
  readonly op: string;
  readonly start: number;
  args: unknown;
}

/** Gives each recorded literal node of the parsed tree the value cel-go reads from the text. */
export function correctLiterals(root: ASTNode, literals: ReadonlyMap<number, Uint8Array | number>): void {
  if (literals.size === 0) return;
  for (const node of treeNodes(root as unknown as Parameters<typeof treeNodes>[0]) as unknown as LiteralNode[]) {
    if (node.op !== 'value') continue;
    const value = literals.get(node.start);
    if (value !== undefined) node.args = value;
  }
}
