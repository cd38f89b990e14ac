/**
 * The DeclarativeValidation and DeclarativeValidationTakeover gates, as the reference's registries
 * apply them to the few fields its 1.34 types declare rules for (declarative-rules.ts): with the
 * first gate on, the declarative rules run beside the hand-written ones and every disagreement
 * is counted (apiserver_validation_declarative_validation_mismatch_total); the client still gets
 * the hand-written errors, unless takeover is on, when the hand-written errors marked as covered
 * give way to the declarative ones, appended after the rest. Texts, order and field paths differ
 * between the two (see docs/feature-gates.md), so the gates change what a client reads.
 */
import type { FieldError } from '../status/field-error';
import type { WriteContext } from '../registry/types';

/** A field error with what the reference compares declarative and hand-written errors on. */
export interface DeclarativeFieldError extends FieldError {
  /** The rule that made it (`minimum`, `zeroOrOneOf`); the comparison requires one on Invalid errors. */
  readonly origin?: string;
  /** A hand-written error a declarative rule replaces when takeover is on. */
  readonly coveredByDeclarative?: boolean;
}

/** The hand-written `errors` marked as covered by the declarative rule of `origin`. */
export function coveredByDeclarative(errors: readonly FieldError[], origin: string): DeclarativeFieldError[] {
  return errors.map((error) => ({ ...error, origin, coveredByDeclarative: true }));
}

const sameError = (a: DeclarativeFieldError, b: DeclarativeFieldError) =>
  a.type === b.type && a.field === b.field && a.detail === b.detail && a.origin === b.origin;

/** The reference's fuzzy match: type, field and origin, an origin required on both when Invalid. */
const matches = (handWritten: DeclarativeFieldError, declarative: DeclarativeFieldError) =>
  handWritten.type === declarative.type &&
  handWritten.field === declarative.field &&
  handWritten.origin === declarative.origin &&
  (handWritten.type !== 'FieldValueInvalid' || (handWritten.origin !== undefined && declarative.origin !== undefined));

/**
 * How many disagreements the reference counts between the two lists: each covered hand-written
 * error (exact repeats counted once) that no declarative error matches, and each declarative
 * error that no covered hand-written error matched. A declarative error matches at most one
 * hand-written error, so two covered errors for one declarative error count one mismatch.
 */
export function declarativeMismatches(
  handWritten: readonly DeclarativeFieldError[],
  declarative: readonly DeclarativeFieldError[],
): number {
  if (handWritten.length === 0 && declarative.length === 0) return 0;
  const distinct = handWritten.filter((error, index) => handWritten.findIndex((e) => sameError(e, error)) === index);
  let remaining = [...declarative];
  let mismatches = 0;
  for (const error of distinct) {
    if (!error.coveredByDeclarative) continue;
    const unmatched = remaining.filter((candidate) => !matches(error, candidate));
    if (unmatched.length === remaining.length) mismatches++;
    remaining = unmatched;
  }
  return mismatches + remaining.length;
}

/** Whether the declarative errors replace the hand-written ones they cover. */
function takesOver(context: WriteContext): boolean {
  return context.featureEnabled('DeclarativeValidation') && context.featureEnabled('DeclarativeValidationTakeover');
}

/** The hand-written errors a write shows under the gates: with takeover, those not covered. */
export function handWrittenShown(context: WriteContext, handWritten: readonly DeclarativeFieldError[]): FieldError[] {
  return takesOver(context) ? handWritten.filter((error) => !error.coveredByDeclarative) : [...handWritten];
}

/**
 * The errors a write answers with under the gates `context` reads: the hand-written ones, or,
 * with takeover, those not covered followed by the declarative ones. `declarative` runs only
 * with DeclarativeValidation on; its disagreements go to the context's counter.
 */
export function withDeclarativeValidation(
  context: WriteContext,
  handWritten: readonly DeclarativeFieldError[],
  declarative: () => readonly DeclarativeFieldError[],
): FieldError[] {
  if (!context.featureEnabled('DeclarativeValidation')) return [...handWritten];
  const declared = declarative();
  const mismatches = declarativeMismatches(handWritten, declared);
  if (mismatches > 0) context.declarativeMismatches?.(mismatches);
  return takesOver(context) ? [...handWrittenShown(context, handWritten), ...declared] : [...handWritten];
}
