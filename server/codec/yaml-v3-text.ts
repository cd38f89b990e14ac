/**
 * The YAML text go.yaml.in/yaml/v3 writes for a JSON value it has read into a node tree and whose
 * styles were then cleared: what gnostic's `compiler.Marshal` makes of an extension, enum or
 * example value in an OpenAPI v3 document (the `yaml` of its `Any` message), so that the
 * protobuf form of a document holds the reference's bytes. Block style, four-space indentation,
 * sequences indented under their key and items' maps two spaces past the `- `, members in the
 * order given, no line folding, `{}` and `[]` for empty collections.
 *
 * A string keeps the string tag it had in JSON, so the writer quotes (double) any text that
 * yaml.v3 would read back as another type (`true`, `""`, `1e3`, `2001-12-14`), writes one with a
 * line break as a literal block, and otherwise lets the emitter's analysis of the characters pick
 * plain, single-quoted or double-quoted text. Written by hand: the YAML library's emitter has
 * its own (1.2, yaml.v2-unlike) rules for all of these choices.
 */
import { isTimestamp } from './go-style-yaml';
import { parseGoInteger } from '../validation/go-yaml';

type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

const INDENT = 4;
/** Longest key (in bytes) the emitter writes as a simple `key: value`. */
const SIMPLE_KEY_LIMIT = 128;

const RESOLVED_WORDS: ReadonlyMap<string, string> = new Map([
  ...['true', 'True', 'TRUE', 'false', 'False', 'FALSE'].map((word) => [word, 'bool'] as const),
  ...['', '~', 'null', 'Null', 'NULL'].map((word) => [word, 'null'] as const),
  ...['.nan', '.NaN', '.NAN', '.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF', '-.inf', '-.Inf', '-.INF'].map(
    (word) => [word, 'float'] as const,
  ),
]);
const YAML_STYLE_FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

/** Whether yaml.v3 reads the text, written plain, as a string (its `resolve` with no tag). */
function resolvesAsString(text: string): boolean {
  if (RESOLVED_WORDS.has(text)) return false;
  const first = text[0];
  if (first === '.') return !/^\.[0-9]+(?:[eE][-+]?[0-9]+)?$/.test(text);
  if (!/[-+0-9]/.test(first)) return true;
  if (isTimestamp(text)) return false;
  const plain = text.replaceAll('_', '');
  const integer = parseGoInteger(plain);
  // ParseInt takes what fits an int64; ParseUint, unsigned text, what fits a uint64.
  if (integer !== undefined && integer.value >= INT64_MIN && integer.value <= INT64_MAX) return false;
  if (integer !== undefined && !integer.signed && integer.value <= UINT64_MAX) return false;
  return !(YAML_STYLE_FLOAT.test(plain) && Number.isFinite(Number(plain)));
}

const enum Style {
  Plain,
  Single,
  Double,
  Literal,
}

function isBreak(code: number): boolean {
  return code === 0x0a || code === 0x0d || code === 0x85 || code === 0x2028 || code === 0x2029;
}

/** The emitter's `is_printable` (it takes no character outside the basic plane). */
function isPrintable(code: number): boolean {
  return (
    code === 0x0a ||
    (code >= 0x20 && code <= 0x7e) ||
    (code >= 0xa0 && code <= 0xd7ff) ||
    (code >= 0xe000 && code <= 0xfffd && code !== 0xfeff)
  );
}

function isBlank(code: number | undefined): boolean {
  return code === 0x20 || code === 0x09;
}

interface Analysis {
  readonly multiline: boolean;
  readonly plainAllowed: boolean;
  readonly singleQuotedAllowed: boolean;
  readonly blockAllowed: boolean;
}

/** The emitter's analysis of a scalar, in block context (no flow collection ever holds one here). */
function analyze(text: string): Analysis {
  if (text.length === 0)
    return { multiline: false, plainAllowed: true, singleQuotedAllowed: true, blockAllowed: false };
  const codes = Array.from(text, (character) => character.codePointAt(0) as number);
  let blockIndicators = text.startsWith('---') || text.startsWith('...');
  let lineBreaks = false;
  let special = false;
  let tabs = false;
  let leadingSpace = false;
  let leadingBreak = false;
  let trailingSpace = false;
  let trailingBreak = false;
  let breakSpace = false;
  let spaceBreak = false;
  let precededByWhitespace = true;
  let previousSpace = false;
  let previousBreak = false;
  const last = codes.length - 1;
  codes.forEach((code, index) => {
    const next = codes[index + 1];
    const followedByWhitespace = index === last || isBlank(next);
    const character = String.fromCodePoint(code);
    if (index === 0) {
      if ('#,[]{}&*!|>\'"%@`'.includes(character)) blockIndicators = true;
      else if ((character === '?' || character === ':' || character === '-') && followedByWhitespace)
        blockIndicators = true;
    } else if ((character === ':' && followedByWhitespace) || (character === '#' && precededByWhitespace)) {
      blockIndicators = true;
    }
    if (code === 0x09) tabs = true;
    else if (!isPrintable(code)) special = true;
    if (code === 0x20) {
      if (index === 0) leadingSpace = true;
      if (index === last) trailingSpace = true;
      if (previousBreak) breakSpace = true;
      previousSpace = true;
      previousBreak = false;
    } else if (isBreak(code)) {
      lineBreaks = true;
      if (index === 0) leadingBreak = true;
      if (index === last) trailingBreak = true;
      if (previousSpace) spaceBreak = true;
      previousSpace = false;
      previousBreak = true;
    } else {
      previousSpace = false;
      previousBreak = false;
    }
    precededByWhitespace = isBlank(code) || isBreak(code) || code === 0;
  });
  return {
    multiline: lineBreaks,
    plainAllowed: !(
      leadingSpace ||
      leadingBreak ||
      trailingSpace ||
      trailingBreak ||
      breakSpace ||
      spaceBreak ||
      tabs ||
      special ||
      lineBreaks ||
      blockIndicators
    ),
    singleQuotedAllowed: !(breakSpace || spaceBreak || tabs || special),
    blockAllowed: !(trailingSpace || spaceBreak || special),
  };
}

const ESCAPES: ReadonlyMap<number, string> = new Map([
  [0x00, '0'],
  [0x07, 'a'],
  [0x08, 'b'],
  [0x09, 't'],
  [0x0a, 'n'],
  [0x0b, 'v'],
  [0x0c, 'f'],
  [0x0d, 'r'],
  [0x1b, 'e'],
  [0x22, '"'],
  [0x5c, '\\'],
  [0x85, 'N'],
  [0xa0, '_'],
  [0x2028, 'L'],
  [0x2029, 'P'],
]);

function escaped(code: number): string {
  const short = ESCAPES.get(code);
  if (short !== undefined) return `\\${short}`;
  const [prefix, digits] = code <= 0xff ? ['x', 2] : code <= 0xffff ? ['u', 4] : ['U', 8];
  return `\\${prefix}${code.toString(16).toUpperCase().padStart(digits, '0')}`;
}

/** The emitter's output state: where the next character goes and what precedes it. */
class Emitter {
  text = '';
  column = 0;
  /** The last thing written was whitespace (or nothing), so an indicator needs no space before it. */
  whitespace = true;
  /** Only indentation (and indicators counting as such, `- `) was written on this line. */
  indention = true;

  write(text: string): void {
    this.text += text;
    this.column += text.length;
  }

  lineBreak(): void {
    this.text += '\n';
    this.column = 0;
    this.indention = true;
  }

  writeIndent(indent: number): void {
    const target = Math.max(indent, 0);
    if (!this.indention || this.column > target || (this.column === target && !this.whitespace)) this.lineBreak();
    if (this.column < target) this.write(' '.repeat(target - this.column));
    this.whitespace = true;
  }

  indicator(indicator: string, needWhitespace: boolean, isWhitespace: boolean, isIndention: boolean): void {
    if (needWhitespace && !this.whitespace) this.write(' ');
    this.write(indicator);
    this.whitespace = isWhitespace;
    this.indention = this.indention && isIndention;
  }

  scalar(text: string, style: Style, indent: number): void {
    switch (style) {
      case Style.Plain:
        if (text.length > 0 && !this.whitespace) this.write(' ');
        this.write(text);
        if (text.length > 0) this.whitespace = false;
        this.indention = false;
        return;
      case Style.Single:
        this.indicator("'", true, false, false);
        this.lines(text.replaceAll("'", "''"), indent);
        this.indicator("'", false, false, false);
        break;
      case Style.Double: {
        this.indicator('"', true, false, false);
        // The emitter's BOM test looks at the start of the value for every character.
        const escapeAll = text.startsWith('\ufeff');
        let body = '';
        for (const character of text) {
          const code = character.codePointAt(0) as number;
          body +=
            escapeAll || !isPrintable(code) || isBreak(code) || code === 0x22 || code === 0x5c
              ? escaped(code)
              : character;
        }
        this.write(body);
        this.indicator('"', false, false, false);
        break;
      }
      case Style.Literal:
        this.literal(text, indent);
        return;
    }
    this.whitespace = false;
    this.indention = false;
  }

  private literal(text: string, indent: number): void {
    const characters = Array.from(text);
    this.indicator('|', true, false, false);
    const first = text.codePointAt(0) as number;
    if (first === 0x20 || isBreak(first)) this.indicator(String(INDENT), false, false, false);
    const lastCode = characters[characters.length - 1].codePointAt(0) as number;
    let chomp = '';
    if (!isBreak(lastCode)) chomp = '-';
    else if (characters.length === 1) chomp = '+';
    else if (isBreak(characters[characters.length - 2].codePointAt(0) as number)) chomp = '+';
    if (chomp !== '') this.indicator(chomp, false, false, false);
    this.lineBreak();
    this.whitespace = true;
    this.lines(text, indent, true);
  }

  /**
   * Text whose line breaks each start a new line indented to `indent` (`\n` never reaches a
   * single-quoted scalar, the other breaks may).
   */
  private lines(text: string, indent: number, afterBreak = false): void {
    let breaks = afterBreak;
    for (const character of text) {
      if (isBreak(character.codePointAt(0) as number)) {
        if (character === '\n') this.lineBreak();
        else {
          this.text += character;
          this.column = 0;
          this.indention = true;
        }
        breaks = true;
      } else {
        if (breaks) this.writeIndent(indent);
        this.write(character);
        this.indention = false;
        breaks = false;
      }
    }
  }
}

/** The indentation of a block collection (or block scalar) nested in a mapping whose keys are at `indent`. */
function nestedInMapping(indent: number): number {
  return indent < 0 ? 0 : INDENT * Math.floor((indent + INDENT) / INDENT);
}

function isCollection(value: JsonValue): value is JsonValue[] | { [key: string]: JsonValue } {
  return typeof value === 'object' && value !== null;
}

function isEmptyCollection(value: JsonValue): boolean {
  return Array.isArray(value) ? value.length === 0 : isCollection(value) && Object.keys(value).length === 0;
}

function scalarText(value: JsonValue): string {
  return typeof value === 'string' ? value : value === null ? 'null' : JSON.stringify(value);
}

/** The style the encoder asks for and the emitter settles on. */
function styleOf(value: JsonValue, simpleKey: boolean): Style {
  if (typeof value !== 'string') return Style.Plain;
  const analysis = analyze(value);
  let style = value.includes('\n') ? Style.Literal : resolvesAsString(value) ? Style.Plain : Style.Double;
  if (simpleKey && analysis.multiline) style = Style.Double;
  if (style === Style.Plain && (!analysis.plainAllowed || (value.length === 0 && simpleKey))) style = Style.Single;
  if (style === Style.Single && !analysis.singleQuotedAllowed) style = Style.Double;
  if (style === Style.Literal && (!analysis.blockAllowed || simpleKey)) style = Style.Double;
  return style;
}

function isSimpleKey(key: string): boolean {
  return !analyze(key).multiline && Buffer.byteLength(key, 'utf8') <= SIMPLE_KEY_LIMIT;
}

/**
 * Writes a node. `indent` is the emitter's indentation before the node, `inSequence` whether the
 * node is a block sequence's item (whose nested content goes two columns past the `- `).
 */
function writeNode(emitter: Emitter, value: JsonValue, indent: number, inSequence: boolean): void {
  const nested = inSequence ? indent + 2 : nestedInMapping(indent);
  if (!isCollection(value)) {
    const scalarIndent = indent < 0 ? INDENT : nested;
    emitter.scalar(scalarText(value), styleOf(value, false), scalarIndent);
    return;
  }
  if (isEmptyCollection(value)) {
    emitter.indicator(Array.isArray(value) ? '[' : '{', true, true, false);
    emitter.indicator(Array.isArray(value) ? ']' : '}', false, false, false);
    return;
  }
  if (Array.isArray(value)) {
    for (const item of value) {
      emitter.writeIndent(nested);
      emitter.indicator('-', true, false, true);
      writeNode(emitter, item, nested, true);
    }
    return;
  }
  for (const [key, member] of Object.entries(value)) {
    emitter.writeIndent(nested);
    if (isSimpleKey(key)) {
      emitter.scalar(key, styleOf(key, true), nested);
      emitter.indicator(':', false, false, false);
    } else {
      emitter.indicator('?', true, false, true);
      writeNode(emitter, key, nested, false);
      emitter.writeIndent(nested);
      emitter.indicator(':', true, false, true);
    }
    writeNode(emitter, member, nested, false);
  }
}

/** yaml.v3's text for the value, ending in a line break. */
export function yamlV3Text(value: JsonValue): string {
  const emitter = new Emitter();
  writeNode(emitter, value, -1, false);
  // The document's end puts the last line break.
  emitter.writeIndent(0);
  return emitter.text;
}
