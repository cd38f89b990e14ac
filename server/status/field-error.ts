/**
 * Field-level validation errors (the reference's `field.Error`): what an Invalid (422) Status
 * lists as causes and joins into its message.
 */
import { goAggregate } from '../../api/go-json-syntax';

/** One field problem, as the reference's field.Error: rendered into Invalid (422) causes. */
export interface FieldError {
  /** `FieldValueRequired`, `FieldValueInvalid`, `FieldValueNotSupported`, `FieldValueDuplicate`, `FieldValueForbidden`, `FieldValueTooLong`, `FieldValueTypeInvalid` */
  readonly type: string;
  /** JSON path as the reference prints it: `metadata.name`, `spec.containers[0].image`. */
  readonly field: string;
  /** The reference's text after `<field>: <Type>: `, e.g. `Required value` or `Invalid value: "x": ...`. */
  readonly detail: string;
}

/** `<field>: <body>`, as one error of the list (builders: server/status/field-errors.ts). */
export function fieldErrorText(error: FieldError): string {
  return `${error.field}: ${error.detail}`;
}

/**
 * The reference aggregates a list as its only message, or `[a, b]` for several, skipping
 * repeated messages.
 */
export function aggregateFieldErrors(errors: readonly FieldError[]): string {
  return goAggregate(errors.map(fieldErrorText));
}
