/**
 * Compile errors in the reference's words. The engine phrases its checker's errors its own way
 * (`Unknown variable: x`); clients and tests of the API see cel-go's (`undeclared reference to
 * 'x' (in container '')`), so the common ones are restated, and every error is rendered as
 * cel-go renders it: `ERROR: <input>:line:column: message`, the source line, a caret.
 */

const OPERATOR_FUNCTIONS: Readonly<Record<string, string>> = {
  '+': '_+_',
  '-': '_-_',
  '*': '_*_',
  '/': '_/_',
  '%': '_%_',
  '==': '_==_',
  '!=': '_!=_',
  '<': '_<_',
  '<=': '_<=_',
  '>': '_>_',
  '>=': '_>=_',
  in: '@in',
};

/** cel-go writes parameterized types with parentheses: `list(int)`, `map(string, dyn)`. */
function referenceType(type: string): string {
  return type.replace(/</g, '(').replace(/>/g, ')');
}

/** A type as cel-go names it (`null_type`, `optional_type(int)`, `list(dyn)`), from the engine's name. */
export function referenceTypeName(type: string): string {
  if (type === 'null') return 'null_type';
  const named = type.replace(/\boptional</g, 'optional_type<').replace(/\b[TKV]\b/g, 'dyn');
  return referenceType(named);
}

/**
 * The reference's complaint when an expression's type is not one its place allows (CEL type
 * names as the engine writes them), or undefined when it is.
 */
export function resultTypeError(outputType: string, allowed: readonly string[]): string | undefined {
  if (allowed.includes(outputType)) return undefined;
  const expected =
    allowed.length === 1 ? referenceTypeName(allowed[0]) : `one of [${allowed.map(referenceTypeName).join(' ')}]`;
  return `must evaluate to ${expected} but got ${referenceTypeName(outputType)}`;
}

export function referenceMessage(summary: string): string {
  let match = /^Unknown variable: (.+)$/.exec(summary);
  if (match) return `undeclared reference to '${match[1]}' (in container '')`;
  match = /^No such key: (.+)$/.exec(summary);
  if (match) return `undefined field '${match[1]}'`;
  match = /^no such overload: (.+?) (\+|-|\*|\/|%|==|!=|<=|<|>=|>|in) (.+)$/.exec(summary);
  if (match) {
    return `found no matching overload for '${OPERATOR_FUNCTIONS[match[2]]}' applied to '(${referenceType(match[1])}, ${referenceType(match[3])})'`;
  }
  match = /^found no matching overload for '(?:(.+)\.)?([A-Za-z_][\w]*)\((.*)\)'$/.exec(summary);
  if (match) {
    const [, receiver, name, args] = match;
    // A namespaced function (`strings.quote`, `jsonpatch.escapeKey`) is a method of a holder type here.
    const namespace =
      receiver === undefined ? undefined : /^(?:kubernetes\.)?([A-Za-z]+)Namespace$/.exec(receiver)?.[1];
    if (namespace !== undefined) {
      return `found no matching overload for '${namespace.toLowerCase()}.${name}' applied to '(${referenceType(args)})'`;
    }
    const applied =
      receiver === undefined ? `(${referenceType(args)})` : `${referenceType(receiver)}.(${referenceType(args)})`;
    return `found no matching overload for '${name}' applied to '${applied}'`;
  }
  return summary;
}

/** cel-go's rendering of a compile error at `start` (a character offset) in `expression`. */
export function formatCompileError(expression: string, summary: string, start: number | undefined): string {
  const message = referenceMessage(summary);
  if (start === undefined) return `ERROR: <input>:1:1: ${message}`;
  // cel-go has no line of an empty source to show, and places its error before the first column.
  if (expression === '') return `ERROR: <input>:1:0: ${message}`;
  const before = expression.slice(0, start);
  const line = before.split('\n').length;
  const lineStart = before.lastIndexOf('\n') + 1;
  const column = start - lineStart;
  // cel-go shows tabs as spaces, and places no dot past the end of the line.
  const sourceLine = expression.slice(lineStart).split('\n')[0].replace(/\t/g, ' ');
  const dots = '.'.repeat(Math.min(column, sourceLine.length));
  return `ERROR: <input>:${line}:${column + 1}: ${message}\n | ${sourceLine}\n | ${dots}^`;
}

interface ErrorNode {
  readonly op?: string;
  readonly args?: ReadonlyArray<{ readonly range?: { readonly end: number } }>;
}

/**
 * Where cel-go places an error the engine reports at `start` (the offset of the node in error):
 * cel-go points at a binary operator rather than at its left operand, at the `.` of a field
 * selection rather than at the field's name, at the `[` of an index, and at the `(` of a call
 * rather than at its start.
 */
export function referencePosition(expression: string, start: number, node: ErrorNode | undefined): number {
  const op = node?.op;
  if (op === 'call' || op === 'rcall') {
    // A method's `(` comes after its receiver (which may hold parentheses of its own).
    const open = expression.indexOf('(', op === 'rcall' ? (node?.args?.[1]?.range?.end ?? start) : start);
    if (open >= 0) return open;
  }
  const leftEnd = node?.args?.[0]?.range?.end;
  if (op === '[]') {
    // cel-go places an index at its `[`.
    const open = expression.indexOf('[', leftEnd ?? start);
    if (open >= 0) return open;
  }
  if (op !== undefined && op in OPERATOR_FUNCTIONS && node?.args?.length === 2 && leftEnd !== undefined) {
    const at = expression.indexOf(op, leftEnd);
    if (at >= 0) return at;
  }
  if (op === '.') {
    const dot = expression.lastIndexOf('.', start);
    if (dot >= 0) return dot;
  }
  return start;
}

/** What cel-go's grammar accepts where an operand must start. */
const OPERAND_STARTS = [
  "'['",
  "'{'",
  "'('",
  "'.'",
  "'-'",
  "'!'",
  "'true'",
  "'false'",
  "'null'",
  'NUM_FLOAT',
  'NUM_INT',
  'NUM_UINT',
  'STRING',
  'BYTES',
  'IDENTIFIER',
];

/** The engine's names of closing tokens, as cel-go's grammar writes them. */
const CLOSING_TOKENS: Readonly<Record<string, string>> = {
  RPAREN: "')'",
  RBRACKET: "']'",
  RBRACE: "'}'",
  COLON: "':'",
};

/** Characters that only start two-character operators (`==`, `&&`, `||`): cel-go's lexer reads one more before giving up. */
const PAIR_STARTS = new Set(['=', '&', '|']);

/** The operands expected after the text before `start`: a call's arguments may also close, an index may be optional (`[?`). */
function operandsExpected(expression: string, start: number): string {
  const before = expression.slice(0, start).trimEnd();
  const expected = [...OPERAND_STARTS];
  if (before.endsWith('(') && /[\w\]]\s*\($/.test(before)) expected.splice(3, 0, "')'");
  if (before.endsWith('[')) expected.splice(6, 0, "'?'");
  return `{${expected.join(', ')}}`;
}

/** Whether cel-go's lexer finds nothing but whitespace in `expression`: it ends where an operand must start. */
export function isBlankExpression(expression: string): boolean {
  return /^[ \t\n\r\f]*$/.test(expression);
}

/** cel-go's rendering of the parse error of a blank expression (see isBlankExpression). */
export function blankExpressionError(expression: string): string {
  const end = expression.length;
  return formatCompileError(
    expression,
    `Syntax error: mismatched input '<EOF>' expecting ${operandsExpected(expression, end)}`,
    end,
  );
}

/**
 * A parse error in cel-go's words, and where cel-go places it: `Syntax error: mismatched input
 * '<EOF>' expecting {...}`, `extraneous input ')' expecting <EOF>`, `missing ')' at '<EOF>'`,
 * `no viable alternative at input '..'`, `token recognition error at: '= '`. Of the last,
 * `dropped` is the text cel-go's lexer skips before it reads on (and may report more errors).
 */
export function syntaxError(
  expression: string,
  summary: string,
  range: { readonly start: number; readonly end: number },
): { message: string; start: number; dropped?: { start: number; end: number } } {
  const { start, end } = range;
  const text = (from: number, to: number) => (from >= expression.length ? '<EOF>' : expression.slice(from, to));
  let match = /^Unexpected character: (.)$/.exec(summary);
  if (match) {
    const length = PAIR_STARTS.has(match[1]) && start + 1 < expression.length ? 2 : 1;
    return {
      message: `Syntax error: token recognition error at: '${expression.slice(start, start + length)}'`,
      start,
      dropped: { start, end: start + length },
    };
  }
  if (/^Unterminated string$|^Newlines not allowed/.test(summary)) {
    const quote = Math.max(expression.lastIndexOf("'", start), expression.lastIndexOf('"', start));
    const from = quote >= 0 ? quote : start;
    const newline = expression.indexOf('\n', from);
    const end = newline < 0 ? expression.length : newline + 1;
    return {
      message: `Syntax error: token recognition error at: '${expression.slice(from, end)}'`,
      start: from,
      dropped: { start: from, end },
    };
  }
  match = /^Unexpected character: '.'$/.exec(summary);
  if (match) return { message: `Syntax error: extraneous input '${text(start, end)}' expecting <EOF>`, start };
  if (/^Expected IDENTIFIER, got/.test(summary)) {
    // A `.` with no name after it: no alternative of the grammar reads on from it.
    const dot = expression.lastIndexOf('.', start - 1);
    if (dot >= 0 && expression.slice(dot + 1, start).trim() === '')
      return { message: `Syntax error: no viable alternative at input '${expression.slice(dot, end)}'`, start };
  }
  match = /^Expected (\w+), got/.exec(summary);
  if (match && CLOSING_TOKENS[match[1]])
    return { message: `Syntax error: missing ${CLOSING_TOKENS[match[1]]} at '${text(start, end)}'`, start };
  if (/^Unexpected token: /.test(summary)) {
    // cel-go drops a stray token when an operand follows it, and reports the mismatch otherwise.
    const following = expression.slice(end).trimStart();
    const kind = start < expression.length && /^[\w'"([{.!-]/.test(following) ? 'extraneous' : 'mismatched';
    return {
      message: `Syntax error: ${kind} input '${text(start, end)}' expecting ${operandsExpected(expression, start)}`,
      start,
    };
  }
  return { message: `Syntax error: ${summary}`, start };
}
