/**
 * What a CEL library adds to the environment: its types and functions, the prices of its calls,
 * and replacements for functions the engine already has with other semantics.
 */
import type { Environment } from '@marcbachmann/cel-js';
import type { MessageType } from '../message-types';
import type { CallCost } from '../runtime-cost';

export interface CelLibrary {
  /**
   * The Kubernetes minor version (1.x) whose base environment adds the library, when later than
   * the compatibility version new expressions are compiled for (environment.ts): until then only
   * stored expressions may use it. Unset: in every environment.
   */
  readonly introduced?: number;
  /** Registers the library's types and function signatures. */
  declare(env: Environment): void;
  /** Runtime prices by call name (`name` for a global function, `.name` for a method). */
  readonly costs?: Readonly<Record<string, CallCost>>;
  /** Replacements of built-in functions, keyed `.name/arity` (method) or `name/arity`. */
  readonly overrides?: Readonly<Record<string, (...args: never[]) => unknown>>;
  /**
   * Narrowings of built-in functions where the engine's is right for most arguments, keyed as
   * overrides: each sees the call's arguments (a method's receiver first) and answers, throws,
   * or defers to the engine's function.
   */
  readonly refinements?: Readonly<Record<string, Refinement>>;
  /**
   * Refuses what the engine's overload resolution lets through but cel-go's checker would not,
   * given every node of a checked expression; the first problem found, if any.
   */
  validate?(nodes: readonly unknown[]): CallProblem | undefined;
  /** The types expressions may construct (`Name{field: value}`) that the library offers, by name. */
  resolveMessageType?(name: string): MessageType | undefined;
}

/** A compile error a library finds in a call: its message, and the call node it is placed at. */
export interface CallProblem {
  readonly message: string;
  readonly node: unknown;
}

/** A narrowing of a built-in function: `engine()` calls the engine's with `args` as they are then. */
export type Refinement = (args: unknown[], engine: () => unknown) => unknown;

/** An error raised by a library function: evaluation fails with this message. */
export class CelFunctionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CelFunctionError';
  }
}
