/**
 * Field-level validation errors (the reference's `field.Error`): what an Invalid (422) Status
 * lists as causes and joins into its message.
 */

export type FieldErrorType =
  | 'FieldValueNotFound'
  | 'FieldValueRequired'
  | 'FieldValueDuplicate'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'InternalError'
  | 'FieldValueTypeInvalid';

/** What the reference prints for each type. */
const TYPE_TEXT: Record<FieldErrorType, string> = {
  FieldValueNotFound: 'Not found',
  FieldValueRequired: 'Required value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  InternalError: 'Internal error',
  FieldValueTypeInvalid: 'Invalid value',
};

/** Types whose text never shows the offending value. */
const VALUE_HIDDEN: ReadonlySet<FieldErrorType> = new Set<FieldErrorType>([
  'FieldValueRequired',
  'FieldValueForbidden',
  'FieldValueTooLong',
  'InternalError',
]);

export interface FieldError {
  readonly type: FieldErrorType;
  /** Path of the field, e.g. `metadata.name` or `spec.containers[0].image`. */
  readonly field: string;
  /** The offending value; absent means "not shown". */
  readonly badValue?: unknown;
  readonly detail?: string;
}

/** `<Type>[: <value>][: <detail>]`, the text after the field path. */
export function fieldErrorBody(error: FieldError): string {
  let body = TYPE_TEXT[error.type];
  if (!VALUE_HIDDEN.has(error.type) && error.badValue !== undefined) {
    body += `: ${formatBadValue(error.badValue)}`;
  }
  if (error.detail) body += `: ${error.detail}`;
  return body;
}

/** `<field>: <body>`, as one error of the list. */
export function fieldErrorText(error: FieldError): string {
  return `${error.field}: ${fieldErrorBody(error)}`;
}

/**
 * The reference aggregates a list as its only message, or `[a, b]` for several, skipping
 * repeated messages.
 */
export function aggregateFieldErrors(errors: readonly FieldError[]): string {
  const messages = [...new Set(errors.map(fieldErrorText))];
  return messages.length === 1 ? messages[0] : `[${messages.join(', ')}]`;
}

/** Strings quoted (Go's %q), numbers and booleans bare, nothing as `null`. */
function formatBadValue(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}
