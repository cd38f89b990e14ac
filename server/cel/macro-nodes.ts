/**
 * The engine's syntax tree and checker as the macros of capstan's own (two-variable
 * comprehensions, optMap and optFlatMap) use them, and the errors those macros raise in cel-go's
 * words.
 */
import { ParseError, type ASTNode } from '@marcbachmann/cel-js';
import { referenceTypeName } from './compile-errors';

/** The engine's node as macros use it (its published type omits these members). */
export interface Node {
  op: string;
  args: unknown;
  readonly start: number;
  evaluate(ev: unknown, node: Node, ctx: unknown): unknown;
  clone(op: Operation, args: unknown): Node;
  setMeta(key: string, value: unknown): Node;
}
/** A node kind of a macro's own: its name in the tree, its type check and its evaluation. */
export interface Operation {
  readonly name: string;
  check(chk: Checker, node: Node, ctx: Scope): CheckedType;
  evaluate(ev: unknown, node: Node, ctx: unknown): unknown;
}
export interface CheckedType {
  readonly kind: string;
  readonly name: string;
  readonly keyType?: CheckedType;
  readonly valueType?: CheckedType;
  isDynOrBool(): boolean;
}
export interface Checker {
  check(node: Node, ctx: unknown): CheckedType;
  getType(name: string): CheckedType;
  formatType(type: CheckedType): string;
  readonly registry: {
    getListType(type: CheckedType): CheckedType;
    getMapType(key: CheckedType, value: CheckedType): CheckedType;
    getOptionalType(type: CheckedType): CheckedType;
  };
  createError(code: string, message: string, node: Node): Error;
}
/** The engine's variable scope: a macro forks one per variable it binds, and rebinds it as it runs. */
export interface Scope {
  forkWithVariable(name: string, type: CheckedType): Scope;
  reuse(parent: unknown): Scope;
  setIterValue(value: unknown, ev: unknown): Scope;
  /** The value of the variable `node` names, for its evaluation. */
  getCheckedValue(ev: unknown, node: Node): unknown;
}

/** The code of macro errors, which cel-go reports without the `Syntax error:` of its parser. */
export const MACRO_ERROR_CODE = 'invalid_macro_argument';

export function macroError(message: string, node: Node): ParseError {
  return new ParseError({ code: MACRO_ERROR_CODE, message, node: node as unknown as ASTNode });
}

/** A checked type as cel-go prints it in errors. */
export function typeName(chk: Checker, type: CheckedType): string {
  return referenceTypeName(chk.formatType(type));
}
