/**
 * The checks of literal arguments that Kubernetes environments run when an expression is
 * compiled (cel-go's ValidateDurationLiterals, ValidateTimestampLiterals and
 * ValidateRegexLiterals, in base.go from 1.29): `duration('bad')`, `timestamp('bad')` and
 * `s.matches('[')` are refused when the rule is written, with cel-go's "invalid <function>
 * argument" at the literal, rather than failing each time the rule runs.
 */
import type { ASTNode } from '@marcbachmann/cel-js';
import { compileRe2 } from '../regex/re2';
import { treeNodes } from './instrumentation';

interface Node {
  readonly op: string;
  readonly args: unknown;
  readonly start: number;
}

export interface LiteralError {
  readonly message: string;
  /** The offset of the literal in the expression. */
  readonly start: number;
}

/** Whether a string literal is valid as the argument of a conversion (the engine's own conversion is the judge). */
export type ConversionCheck = (functionName: 'duration' | 'timestamp', literal: string) => boolean;

const isStringLiteral = (node: Node | undefined): node is Node =>
  node !== undefined && node.op === 'value' && typeof node.args === 'string';

function validRegex(pattern: string): boolean {
  try {
    compileRe2(pattern);
    return true;
  } catch {
    return false;
  }
}

/** The first literal argument of the tree under `root` that cel-go's validators refuse, if any. */
export function invalidLiteral(root: ASTNode, validConversion: ConversionCheck): LiteralError | undefined {
  const errors: LiteralError[] = [];
  for (const node of treeNodes(root as unknown as Parameters<typeof treeNodes>[0]) as unknown as Node[]) {
    if (node.op !== 'call' && node.op !== 'rcall') continue;
    // cel-go's validators look at the first argument, the receiver of a method not counted:
    // the pattern of `s.matches('re')`, but the text of the global `matches('text', re)`.
    const [name, args] =
      node.op === 'call'
        ? (node.args as [string, Node[]])
        : [(node.args as [string])[0], (node.args as [string, Node, Node[]])[2]];
    const literal = args[0];
    if (!isStringLiteral(literal)) continue;
    const text = literal.args as string;
    const valid =
      name === 'duration' || name === 'timestamp'
        ? args.length !== 1 || validConversion(name, text)
        : name !== 'matches' || validRegex(text);
    if (!valid) errors.push({ message: `invalid ${name} argument`, start: literal.start });
  }
  return errors.sort((a, b) => a.start - b.start)[0];
}
