/**
 * The engine's classes for CEL durations and unsigned ints. The package exports them only under
 * the `./evaluator` subpath, which this project's module resolution (`node`, for CommonJS) does
 * not read from `exports`; the types come from the file itself and the classes from a require
 * that Node resolves through `exports`.
 */
import type { Duration as DurationClass, UnsignedInt as UnsignedIntClass } from '@marcbachmann/cel-js/lib/functions';

const evaluator = require('@marcbachmann/cel-js/evaluator') as {
  Duration: typeof DurationClass;
  UnsignedInt: typeof UnsignedIntClass;
};

export const Duration = evaluator.Duration;
export type Duration = DurationClass;
export const UnsignedInt = evaluator.UnsignedInt;
export type UnsignedInt = UnsignedIntClass;
