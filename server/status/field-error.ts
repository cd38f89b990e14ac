/**
 * Field-level validation errors (the reference's `field.Error`): what an Invalid (422) Status
 * lists as causes and joins into its message.
 */

export type { FieldError } from '../registry/types';
import type { FieldError } from '../registry/types';

/** `<field>: <body>`, as one error of the list (builders: server/validation/field-errors.ts). */
export function fieldErrorText(error: FieldError): string {
  return `${error.field}: ${error.detail}`;
}

/**
 * The reference aggregates a list as its only message, or `[a, b]` for several, skipping
 * repeated messages.
 */
export function aggregateFieldErrors(errors: readonly FieldError[]): string {
  const messages = [...new Set(errors.map(fieldErrorText))];
  return messages.length === 1 ? messages[0] : `[${messages.join(', ')}]`;
}
