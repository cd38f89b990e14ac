/**
 * Compile errors in the reference's words. The engine phrases its checker's errors its own way
 * (`Unknown variable: x`); clients and tests of the API see cel-go's (`undeclared reference to
 * 'x' (in container '')`), so the common ones are restated, and every error is rendered as
 * cel-go renders it: `ERROR: <input>:line:column: message`, the source line, a caret.
 */

const OPERATOR_FUNCTIONS: Readonly<Record<string, string>> = {
  '+': '_+_', '-': '_-_', '*': '_*_', '/': '_/_', '%': '_%_', '==': '_==_', '!=': '_!=_',
  '<': '_<_', '<=': '_<=_', '>': '_>_', '>=': '_>=_', in: '@in',
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
    const applied = receiver === undefined ? `(${referenceType(args)})` : `${referenceType(receiver)}.(${referenceType(args)})`;
    return `found no matching overload for '${name}' applied to '${applied}'`;
  }
  return summary;
}

/** cel-go's rendering of a compile error at `start` (a character offset) in `expression`. */
export function formatCompileError(expression: string, summary: string, start: number | undefined): string {
  const message = referenceMessage(summary);
  if (start === undefined) return `ERROR: <input>:1:1: ${message}`;
  const before = expression.slice(0, start);
  const line = before.split('\n').length;
  const lineStart = before.lastIndexOf('\n') + 1;
  const column = start - lineStart;
  const sourceLine = expression.slice(lineStart).split('\n')[0];
  return `ERROR: <input>:${line}:${column + 1}: ${message}\n | ${sourceLine}\n | ${'.'.repeat(column)}^`;
}

interface ErrorNode {
  readonly op?: string;
  readonly args?: ReadonlyArray<{ readonly range?: { readonly end: number } }>;
}

/**
 * Where cel-go places an error the engine reports at `start` (the offset of the node in error):
 * cel-go points at a binary operator rather than at its left operand, and at the `.` of a field
 * selection rather than at the field's name.
 */
export function referencePosition(expression: string, start: number, node: ErrorNode | undefined): number {
  const op = node?.op;
  const leftEnd = node?.args?.[0]?.range?.end;
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
