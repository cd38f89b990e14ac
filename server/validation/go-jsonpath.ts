/**
 * Whether a template parses as client-go's util/jsonpath parser reads it (kubectl's
 * `-o jsonpath` grammar: text with `{...}` actions), and if not, the parser's own error message.
 * The reference checks a ValidatingAdmissionPolicy's `status.typeChecking.expressionWarnings[*].fieldRef`
 * with it. Only the verdict is kept: nothing in capstan evaluates these paths. Written by hand, as
 * no library follows Go's grammar (jsonpath-plus, which the printer columns use, accepts other
 * paths and says other things), step by step as the Go parser walks its input.
 *
 * The Go parser calls itself once per token; this one loops instead, so that a long template
 * cannot exhaust the stack. It still recurses for the parts Go parses as templates of their own
 * (the members of a union, a quoted key, the sides of a filter), which nest only a level or two.
 */

/** What the Go parser puts in an action's list; only a recursive descent's place matters here. */
type NodeKind =
  'text' | 'field' | 'wildcard' | 'identifier' | 'bool' | 'int' | 'float' | 'array' | 'filter' | 'union' | 'recursive';

class JSONPathSyntaxError extends Error {}

const EOF = '';
const LEFT_DELIM = '{';
const RIGHT_DELIM = '}';
const DICT_KEY = /^'([^']*)'$/;
const SLICE = /^(-?\d*)(:-?\d*)?(:-?\d*)?$/;
// Go's `.` takes anything but a newline, which a filter cannot hold anyway.
const COMPARISON = /^([^!<>=]+)([!<>=]+)([\s\S]+?)$/;
const LETTER = /^\p{L}$/u;
const DIGIT = /^\p{Nd}$/u;
/** Go's strconv.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;
const MAX_INT64 = 2n ** 63n - 1n;
const MIN_INT64 = -(2n ** 63n);

/** The parser's error for a template, or undefined when it parses. */
export function goJSONPathParseError(template: string): string | undefined {
  try {
    new TemplateParser(template).parse();
    return undefined;
  } catch (error) {
    if (error instanceof JSONPathSyntaxError) return error.message;
    throw error;
  }
}

/**
 * The input as Go decodes it, rune by rune: a lone surrogate (which Go's JSON decoder would have
 * made U+FFFD) counts as that replacement character.
 */
function runesOf(text: string): string[] {
  return Array.from(text, (rune) => (/^[\ud800-\udfff]$/.test(rune) ? '\ufffd' : rune));
}

function isSpace(rune: string): boolean {
  return rune === ' ' || rune === '\t';
}

function isEndOfLine(rune: string): boolean {
  return rune === '\r' || rune === '\n';
}

function isAlphaNumeric(rune: string): boolean {
  return rune === '_' || LETTER.test(rune) || DIGIT.test(rune);
}

/** Where a field or identifier ends. */
function isTerminator(rune: string): boolean {
  return isSpace(rune) || isEndOfLine(rune) || [EOF, '.', ',', '[', ']', '$', '@', '{', '}'].includes(rune);
}

/** Go's `%#U`: the code point, and the character itself when printable. */
function formatRune(rune: string): string {
  const code = `U+${rune.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
  return PRINTABLE.test(rune) ? `${code} '${rune}'` : code;
}

/** Go's strconv.Atoi succeeds: an optional sign, ASCII digits, within int64. */
function isGoInt(text: string): boolean {
  if (!/^[+-]?[0-9]+$/.test(text)) return false;
  const value = BigInt(text);
  return value >= MIN_INT64 && value <= MAX_INT64;
}

/** Go's strconv.ParseFloat succeeds, for the signs, digits and dots a number token holds. */
function isGoFloat(text: string): boolean {
  return /^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)$/.test(text) && Number.isFinite(Number(text));
}

/**
 * Whether the parser's UnquoteExtend takes a quoted token: the escapes of Go's strconv.UnquoteChar,
 * with the token's own quote (single or double) the only one that may be escaped or must be.
 */
function unquotes(token: string[]): boolean {
  const quote = token[0];
  const body = token.slice(1, -1);
  let at = 0;
  const isHex = (rune: string | undefined) => rune !== undefined && /^[0-9A-Fa-f]$/.test(rune);
  while (at < body.length) {
    const rune = body[at];
    if (rune === quote) return false;
    if (rune !== '\\') {
      at += 1;
      continue;
    }
    const escape = body[at + 1];
    at += 2;
    if (escape === undefined) return false;
    if ('abfnrtv\\'.includes(escape)) continue;
    if (escape === "'" || escape === '"') {
      if (escape !== quote) return false;
      continue;
    }
    const hexDigits = { x: 2, u: 4, U: 8 }[escape];
    if (hexDigits !== undefined) {
      const digits = body.slice(at, at + hexDigits);
      if (digits.length < hexDigits || !digits.every(isHex)) return false;
      at += hexDigits;
      const value = parseInt(digits.join(''), 16);
      if (escape !== 'x' && (value > 0x10ffff || (value >= 0xd800 && value <= 0xdfff))) return false;
      continue;
    }
    if (/^[0-7]$/.test(escape)) {
      const digits = [escape, ...body.slice(at, at + 2)];
      if (digits.length < 3 || !digits.every((digit) => /^[0-7]$/.test(digit))) return false;
      at += 2;
      if (parseInt(digits.join(''), 8) > 255) return false;
      continue;
    }
    return false;
  }
  return true;
}

class TemplateParser {
  private readonly input: string[];
  private pos = 0;
  private start = 0;
  private width = 0;
  /** The node kinds of each action, in order. */
  readonly actions: NodeKind[][] = [];

  constructor(template: string) {
    this.input = runesOf(template);
  }

  parse(): void {
    for (let action = this.nextAction(); action !== undefined; action = this.nextAction())
      while (!this.parseActionStep(action));
  }

  /** Skips text up to the next action and opens it; undefined at the end of the input. */
  private nextAction(): NodeKind[] | undefined {
    for (;;) {
      if (this.startsWith(LEFT_DELIM)) {
        this.pos += LEFT_DELIM.length;
        this.consumeText();
        const action: NodeKind[] = [];
        this.actions.push(action);
        return action;
      }
      if (this.next() === EOF) return undefined;
    }
  }

  /** One token inside an action (Go's parseInsideAction); true once the action is closed. */
  private parseActionStep(action: NodeKind[]): boolean {
    if (this.startsWith(RIGHT_DELIM)) {
      this.pos += RIGHT_DELIM.length;
      this.consumeText();
      return true;
    }
    if (this.startsWith('[?(')) this.parseFilter(action);
    else if (this.startsWith('..')) this.parseRecursive(action);
    else {
      const rune = this.next();
      if (rune === EOF || isEndOfLine(rune)) throw new JSONPathSyntaxError('unclosed action');
      if (rune === ' ' || rune === '@' || rune === '$') this.consumeText();
      else if (rune === '[') this.parseArray(action);
      else if (rune === '"' || rune === "'") this.parseQuote(action, rune);
      else if (rune === '.') this.parseField(action);
      else if (rune === '+' || rune === '-' || DIGIT.test(rune)) {
        this.backup();
        this.parseNumber(action);
      } else if (isAlphaNumeric(rune)) {
        this.backup();
        this.parseIdentifier(action);
      } else throw new JSONPathSyntaxError(`unrecognized character in action: ${formatRune(rune)}`);
    }
    return false;
  }

  private parseIdentifier(action: NodeKind[]): void {
    while (!isTerminator(this.next()));
    this.backup();
    const value = this.consumeText();
    action.push(value === 'true' || value === 'false' ? 'bool' : 'identifier');
  }

  private parseRecursive(action: NodeKind[]): void {
    if (action.at(-1) === 'recursive') throw new JSONPathSyntaxError('invalid multiple recursive descent');
    this.pos += 2;
    this.consumeText();
    action.push('recursive');
    if (isAlphaNumeric(this.peek())) this.parseField(action);
  }

  private parseNumber(action: NodeKind[]): void {
    const sign = this.peek();
    if (sign === '+' || sign === '-') this.next();
    for (;;) {
      const rune = this.next();
      if (rune !== '.' && !DIGIT.test(rune)) {
        this.backup();
        break;
      }
    }
    const value = this.consumeText();
    if (isGoInt(value)) action.push('int');
    else if (isGoFloat(value)) action.push('float');
    else throw new JSONPathSyntaxError(`cannot parse number ${value}`);
  }

  private parseArray(action: NodeKind[]): void {
    for (;;) {
      const rune = this.next();
      if (rune === EOF || rune === '\n') throw new JSONPathSyntaxError('unterminated array');
      if (rune === ']') break;
    }
    let text = this.consumeText().slice(1, -1);
    if (text === '*') text = ':';
    const members = text.split(',');
    if (members.length > 1) {
      for (const member of members) parseAction(`[${member.replace(/^ +| +$/g, '')}]`);
      action.push('union');
      return;
    }
    const key = DICT_KEY.exec(text);
    if (key !== null) {
      action.push(...parseAction(`.${key[1]}`));
      return;
    }
    const slice = SLICE.exec(text);
    if (slice === null) throw new JSONPathSyntaxError(`invalid array index ${text}`);
    slice.slice(1).forEach((part, i) => {
      const digits = i > 0 && part !== undefined ? part.slice(1) : part;
      if (digits === undefined || digits === '' || isGoInt(digits)) return;
      throw new JSONPathSyntaxError(`array index ${digits} is not a number`);
    });
    action.push('array');
  }

  private parseFilter(action: NodeKind[]): void {
    this.pos += 3;
    this.consumeText();
    let begin = false;
    let end = false;
    let pair = '';
    for (;;) {
      const rune = this.next();
      if (rune === EOF || rune === '\n') throw new JSONPathSyntaxError('unterminated filter');
      if (rune === '"' || rune === "'") {
        if (!begin) {
          begin = true;
          pair = rune;
        } else if (this.input[this.pos - 2] !== '\\' && rune === pair) end = true;
      } else if (rune === ')' && begin === end) break;
    }
    if (this.next() !== ']') throw new JSONPathSyntaxError('unclosed array expect ]');
    const text = this.consumeText().slice(0, -2);
    const comparison = COMPARISON.exec(text);
    if (comparison === null) parseAction(text);
    else {
      parseAction(comparison[1]);
      parseAction(comparison[3]);
    }
    action.push('filter');
  }

  private parseQuote(action: NodeKind[], quote: string): void {
    for (;;) {
      const rune = this.next();
      if (rune === EOF || rune === '\n') throw new JSONPathSyntaxError('unterminated quoted string');
      if (rune === quote && this.input[this.pos - 2] !== '\\') break;
    }
    const token = this.input.slice(this.start, this.pos);
    const value = this.consumeText();
    if (!unquotes(token)) throw new JSONPathSyntaxError(`unquote string ${value} error invalid syntax`);
    action.push('text');
  }

  private parseField(action: NodeKind[]): void {
    this.consumeText();
    while (this.advance());
    action.push(this.consumeText() === '*' ? 'wildcard' : 'field');
  }

  /** Steps over one rune of a field, or an escaped pair; false at a terminator. */
  private advance(): boolean {
    const rune = this.next();
    if (rune === '\\') this.next();
    else if (isTerminator(rune)) {
      this.backup();
      return false;
    }
    return true;
  }

  private startsWith(prefix: string): boolean {
    return this.input.slice(this.pos, this.pos + prefix.length).join('') === prefix;
  }

  private next(): string {
    if (this.pos >= this.input.length) {
      this.width = 0;
      return EOF;
    }
    this.width = 1;
    this.pos += 1;
    return this.input[this.pos - 1];
  }

  private peek(): string {
    const rune = this.next();
    this.backup();
    return rune;
  }

  private backup(): void {
    this.pos -= this.width;
  }

  private consumeText(): string {
    const value = this.input.slice(this.start, this.pos).join('');
    this.start = this.pos;
    return value;
  }
}

/** A part Go parses as an action of its own (its parseAction): the node kinds of that action. */
function parseAction(text: string): NodeKind[] {
  const parser = new TemplateParser(`${LEFT_DELIM}${text}${RIGHT_DELIM}`);
  parser.parse();
  return parser.actions[0];
}
