/**
 * What a type that expressions may construct (`Name{field: value}`) offers the checker and the
 * evaluator; libraries provide them (libraries/mutation-types.ts), message-construction.ts uses them.
 */
import type { CelValue } from './values';

/** A type that expressions may construct. */
export interface MessageType {
  /**
   * A field's CEL type; undefined when the type has no such field, '' when it accepts the field
   * without a type (what the reference's JSONPatch answers for any name it lacks: no value fits).
   */
  fieldType(field: string): string | undefined;
  /** How the engine knows the type's values: their class, and their fields' types when fixed (else any field, dyn). */
  readonly registration: {
    readonly ctor: abstract new (...args: never[]) => object;
    readonly fields?: Readonly<Record<string, string>>;
  };
  /** The value with `fields` set; throws a CelFunctionError when a dynamic value does not fit. */
  construct(fields: Map<string, CelValue>): object;
}

/** The types of one environment, by the name an expression writes. */
export type MessageTypeResolver = (name: string) => MessageType | undefined;
