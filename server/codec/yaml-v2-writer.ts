/**
 * yaml.v2's emitter (go.yaml.in/yaml/v2 2.4, which sigs.k8s.io/yaml prints with) for the block
 * documents capstan writes: the column it is at, and its scalars in the style it picks and with
 * the line breaks it makes. Written by hand because the YAML library folds long strings by a
 * rule of its own (the last space before its width) and picks other styles for some strings;
 * yaml.v2's rules, which clients diff against, are:
 *
 * - The encoder asks for a literal block when the string holds a `\n`, plain when its reader
 *   would read the plain text back as this string, double quotes otherwise. The emitter falls
 *   back from plain to single quotes and from single quotes, or a literal block, to double
 *   quotes when the text's characters forbid it (analyzeScalar).
 * - Plain and quoted scalars fold at a space once the column is past 80 (best_width), and only
 *   at the first of a run of spaces; plain and single-quoted ones not where a space follows,
 *   quoted ones not at the first or last character. A mapping key never folds.
 * - A literal block carries an indentation hint when it starts with a space or break, and `-`
 *   (no final break), nothing (one) or `+` (more, or the text is one break) for its chomping.
 * - Columns count characters; a character outside the printable set (a tab, a control, one
 *   beyond U+FFFF) is escaped in double quotes.
 */

/** yaml.v2's best_width: a scalar folds at a space past this column. */
const BEST_WIDTH = 80;
/** yaml.v2's best_indent: a nesting level, and the indentation hint of a block scalar. */
export const BEST_INDENT = 2;

export type ScalarStyle = 'plain' | 'single' | 'double' | 'literal';

const isSpace = (char: string | undefined) => char === ' ';
const isBreak = (char: string | undefined) =>
  char === '\r' || char === '\n' || char === '\u0085' || char === '\u2028' || char === '\u2029';
const isBlank = (char: string | undefined) => char === ' ' || char === '\t';
/** A blank, a break, or the end of the text. */
const isBlankOrEnd = (char: string | undefined) => char === undefined || isBlank(char) || isBreak(char);

/** yaml.v2's is_printable, on a character rather than its UTF-8 bytes. */
function isPrintable(char: string): boolean {
  const code = char.codePointAt(0)!;
  return (
    code === 0x0a ||
    (code >= 0x20 && code <= 0x7e) ||
    (code >= 0xa0 && code <= 0xd7ff) ||
    (code >= 0xe000 && code <= 0xfffd && code !== 0xfeff)
  );
}

interface ScalarAnalysis {
  readonly multiline: boolean;
  readonly blockPlainAllowed: boolean;
  readonly singleQuotedAllowed: boolean;
  readonly blockAllowed: boolean;
}

/** yaml.v2's yaml_emitter_analyze_scalar, for the block context (no flow collections are written). */
function analyzeScalar(chars: readonly string[]): ScalarAnalysis {
  if (chars.length === 0)
    return { multiline: false, blockPlainAllowed: true, singleQuotedAllowed: true, blockAllowed: false };
  const text = chars.join('');
  let blockIndicators = text.startsWith('---') || text.startsWith('...');
  let lineBreaks = false;
  let special = false;
  let [leadingSpace, leadingBreak, trailingSpace, trailingBreak, breakSpace, spaceBreak] =
    Array<boolean>(6).fill(false);
  let precededByWhitespace = true;
  let previousSpace = false;
  let previousBreak = false;
  chars.forEach((char, index) => {
    const followedByWhitespace = index + 1 >= chars.length || isBlank(chars[index + 1]);
    if (index === 0) {
      if ('#,[]{}&*!|>\'"%@`'.includes(char)) blockIndicators = true;
      else if ((char === '?' || char === ':' || char === '-') && followedByWhitespace) blockIndicators = true;
    } else if ((char === ':' && followedByWhitespace) || (char === '#' && precededByWhitespace)) {
      blockIndicators = true;
    }
    if (!isPrintable(char)) special = true;
    const last = index + 1 === chars.length;
    if (isSpace(char)) {
      if (index === 0) leadingSpace = true;
      if (last) trailingSpace = true;
      if (previousBreak) breakSpace = true;
      [previousSpace, previousBreak] = [true, false];
    } else if (isBreak(char)) {
      lineBreaks = true;
      if (index === 0) leadingBreak = true;
      if (last) trailingBreak = true;
      if (previousSpace) spaceBreak = true;
      [previousSpace, previousBreak] = [false, true];
    } else {
      [previousSpace, previousBreak] = [false, false];
    }
    precededByWhitespace = isBlankOrEnd(char);
  });
  const plainForbidden =
    leadingSpace || leadingBreak || trailingSpace || trailingBreak || breakSpace || spaceBreak || special;
  return {
    multiline: lineBreaks,
    blockPlainAllowed: !(plainForbidden || lineBreaks || blockIndicators),
    singleQuotedAllowed: !(breakSpace || spaceBreak || special),
    blockAllowed: !(trailingSpace || spaceBreak || special),
  };
}

/** Double-quote escapes yaml.v2 writes by name; any other escaped character is \x, \u or \U with its code. */
const NAMED_ESCAPES: Readonly<Record<number, string>> = {
  0x00: '0',
  0x07: 'a',
  0x08: 'b',
  0x09: 't',
  0x0a: 'n',
  0x0b: 'v',
  0x0c: 'f',
  0x0d: 'r',
  0x1b: 'e',
  0x22: '"',
  0x5c: '\\',
  0x85: 'N',
  0xa0: '_',
  0x2028: 'L',
  0x2029: 'P',
};

function escaped(char: string): string {
  const code = char.codePointAt(0)!;
  const named = NAMED_ESCAPES[code];
  if (named !== undefined) return `\\${named}`;
  const [prefix, digits] = code <= 0xff ? ['x', 2] : code <= 0xffff ? ['u', 4] : ['U', 8];
  return `\\${prefix}${code.toString(16).toUpperCase().padStart(digits, '0')}`;
}

/** The text written so far and where the emitter is in it, with yaml.v2's whitespace and indention flags. */
export class YamlV2Writer {
  private readonly parts: string[] = [];
  private column = 0;
  /** The last character written is whitespace: an indicator needs no space before it. */
  private whitespace = true;
  /** Only indentation is written on this line so far. */
  private indention = true;

  text(): string {
    return this.parts.join('');
  }

  private put(text: string, length = 1): void {
    this.parts.push(text);
    this.column += length;
  }

  private putBreak(): void {
    this.parts.push('\n');
    this.column = 0;
  }

  /** yaml_emitter_write_indent: a new line unless only indentation was written, padded to `indent`. */
  writeIndent(indent: number): void {
    if (!this.indention || this.column > indent || (this.column === indent && !this.whitespace)) this.putBreak();
    if (this.column < indent) this.put(' '.repeat(indent - this.column), indent - this.column);
    this.whitespace = true;
    this.indention = true;
  }

  /** yaml_emitter_write_indicator. */
  writeIndicator(indicator: string, { needWhitespace = false, isIndention = false } = {}): void {
    if (needWhitespace && !this.whitespace) this.put(' ');
    this.put(indicator, [...indicator].length);
    this.whitespace = false;
    this.indention = this.indention && isIndention;
  }

  /** Ends the document on a new line, as yaml.v2's document end does. */
  endDocument(): void {
    if (!this.indention || this.column > 0) this.putBreak();
  }

  /**
   * A string as yaml.v2 writes it: `plainReadsBack` says whether its reader would read the plain
   * text back as this string; `isKey` puts it in a simple key's context; `indent` is the
   * scalar's own (its continuation lines and block lines start there).
   */
  writeString(value: string, options: { plainReadsBack: boolean; isKey: boolean; indent: number }): void {
    const chars = Array.from(value);
    const style = scalarStyle(chars, options);
    const allowBreaks = !options.isKey;
    if (style === 'plain') this.writePlain(chars, allowBreaks, options.indent);
    else if (style === 'single') this.writeSingleQuoted(chars, allowBreaks, options.indent);
    else if (style === 'double') this.writeDoubleQuoted(chars, allowBreaks, options.indent);
    else this.writeLiteral(chars, options.indent);
  }

  /** A scalar that is plain text whatever it holds: a number, a boolean, null. */
  writePlainText(text: string): void {
    this.writePlain(Array.from(text), false, 0);
  }

  private writePlain(chars: readonly string[], allowBreaks: boolean, indent: number): void {
    if (!this.whitespace) this.put(' ');
    let spaces = false;
    for (const [index, char] of chars.entries()) {
      if (isSpace(char)) {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && !isSpace(chars[index + 1])) this.writeIndent(indent);
        else this.put(char);
        spaces = true;
      } else {
        this.put(char);
        this.indention = false;
        spaces = false;
      }
    }
    this.whitespace = false;
    this.indention = false;
  }

  private writeSingleQuoted(chars: readonly string[], allowBreaks: boolean, indent: number): void {
    this.writeIndicator("'", { needWhitespace: true });
    let spaces = false;
    let breaks = false;
    for (const [index, char] of chars.entries()) {
      if (isSpace(char)) {
        const foldable = index > 0 && index < chars.length - 1 && !isSpace(chars[index + 1]);
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && foldable) this.writeIndent(indent);
        else this.put(char);
        spaces = true;
      } else if (isBreak(char)) {
        if (!breaks && char === '\n') this.putBreak();
        this.writeBreak(char);
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent(indent);
        this.put(char === "'" ? "''" : char, char === "'" ? 2 : 1);
        this.indention = false;
        spaces = false;
        breaks = false;
      }
    }
    this.writeIndicator("'");
    this.whitespace = false;
    this.indention = false;
  }

  private writeDoubleQuoted(chars: readonly string[], allowBreaks: boolean, indent: number): void {
    this.writeIndicator('"', { needWhitespace: true });
    let spaces = false;
    for (const [index, char] of chars.entries()) {
      if (!isPrintable(char) || char === '\ufeff' || isBreak(char) || char === '"' || char === '\\') {
        const escape = escaped(char);
        this.put(escape, escape.length);
        spaces = false;
      } else if (isSpace(char)) {
        if (allowBreaks && !spaces && this.column > BEST_WIDTH && index > 0 && index < chars.length - 1) {
          this.writeIndent(indent);
          if (isSpace(chars[index + 1])) this.put('\\');
        } else {
          this.put(char);
        }
        spaces = true;
      } else {
        this.put(char);
        spaces = false;
      }
    }
    this.writeIndicator('"');
    this.whitespace = false;
    this.indention = false;
  }

  private writeLiteral(chars: readonly string[], indent: number): void {
    this.writeIndicator('|', { needWhitespace: true });
    if (isSpace(chars[0]) || isBreak(chars[0])) this.writeIndicator(String(BEST_INDENT));
    const chomping = literalChomping(chars);
    if (chomping !== '') this.writeIndicator(chomping);
    this.putBreak();
    this.indention = true;
    this.whitespace = true;
    let breaks = true;
    for (const char of chars) {
      if (isBreak(char)) {
        this.writeBreak(char);
        this.indention = true;
        breaks = true;
      } else {
        if (breaks) this.writeIndent(indent);
        this.put(char);
        this.indention = false;
        breaks = false;
      }
    }
  }

  /** write_break: a `\n` as a line break, any other break character as it is, a new line either way. */
  private writeBreak(char: string): void {
    if (char === '\n') this.putBreak();
    else {
      this.parts.push(char);
      this.column = 0;
    }
  }
}

/** yaml.v2's choice: the encoder's request, then the emitter's fall-backs (yaml_emitter_select_scalar_style). */
function scalarStyle(chars: readonly string[], options: { plainReadsBack: boolean; isKey: boolean }): ScalarStyle {
  const analysis = analyzeScalar(chars);
  let style: ScalarStyle = chars.includes('\n') ? 'literal' : options.plainReadsBack ? 'plain' : 'double';
  if (options.isKey && analysis.multiline) style = 'double';
  if (style === 'plain' && (!analysis.blockPlainAllowed || (chars.length === 0 && options.isKey))) style = 'single';
  if (style === 'single' && !analysis.singleQuotedAllowed) style = 'double';
  if (style === 'literal' && (!analysis.blockAllowed || options.isKey)) style = 'double';
  return style;
}

/** A literal block's chomping indicator: `-` without a final break, `+` with more than one or when the text is one break. */
function literalChomping(chars: readonly string[]): string {
  if (chars.length === 0 || !isBreak(chars[chars.length - 1])) return '-';
  if (chars.length === 1 || isBreak(chars[chars.length - 2])) return '+';
  return '';
}
