/**
 * Bytes literals as cel-go reads them, where the engine's lexer differs: it truncates each
 * character of `b'ÿ'` to one byte (cel-go encodes literal characters as UTF-8, so `b'ÿ'` is
 * `b'\303\277'`), and it does not know the raw bytes prefixes `br`/`rb` (any case).
 *
 * Before parsing, a raw bytes literal becomes a plain one the engine can read at the same
 * offsets (prefix ` b`, contents blanked); after parsing, every bytes literal node gets the value
 * decoded here from the original text. The engine has already rejected malformed escapes in
 * non-raw literals by then, so the decoder only meets valid ones.
 */
import type { ASTNode } from '@marcbachmann/cel-js';
import { treeNodes } from './instrumentation';
import { tokenize } from './source-tokens';

const BYTES_PREFIX = /^(?:[bB][rR]?|[rR][bB])(?=['"])/;
const MAY_HOLD_BYTES = /[bB][rR]?['"]|[rR][bB]['"]/;

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

export interface PreparedBytes {
  /** The text to give the engine's parser. */
  readonly source: string;
  /** Each bytes literal's value, by the offset where the engine's literal node starts (its `b`). */
  readonly literals: ReadonlyMap<number, Uint8Array>;
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

/** Finds the bytes literals of `source` and prepares its text for the engine's parser. */
export function prepareBytesLiterals(source: string): PreparedBytes {
  const literals = new Map<number, Uint8Array>();
  if (!MAY_HOLD_BYTES.test(source)) return { source, literals };
  let prepared = source;
  for (const token of tokenize(source)) {
    if (token.kind !== 'literal') continue;
    const prefix = BYTES_PREFIX.exec(token.text)?.[0];
    if (prefix === undefined) continue;
    const quote = token.start + prefix.length;
    const delimiter = source.startsWith(source[quote].repeat(3), quote) ? 3 : 1;
    const contents = source.slice(quote + delimiter, token.end - delimiter);
    const raw = prefix.length === 2;
    literals.set(quote - 1, decode(contents, raw));
    if (raw) {
      const plain = ` b${source.slice(quote, quote + delimiter)}${contents.replace(/[^\n]/g, ' ')}`;
      prepared = prepared.slice(0, token.start) + plain + prepared.slice(token.start + plain.length);
    }
  }
  return { source: prepared, literals };
}

/** The engine's literal node, as far as this pass uses it. */
interface LiteralNode {
  readonly op: string;
  readonly start: number;
  args: unknown;
}

/** Gives each bytes literal node of the parsed tree the value cel-go reads from the text. */
export function correctBytesLiterals(root: ASTNode, literals: ReadonlyMap<number, Uint8Array>): void {
  if (literals.size === 0) return;
  for (const node of treeNodes(root as unknown as Parameters<typeof treeNodes>[0]) as unknown as LiteralNode[]) {
    if (node.op !== 'value' || !(node.args instanceof Uint8Array)) continue;
    const value = literals.get(node.start);
    if (value !== undefined) node.args = value;
  }
}
