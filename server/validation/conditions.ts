/**
 * A list of metav1.Conditions as apimachinery's ValidateConditions checks it: each type a
 * qualified name seen once, a status of True, False or Unknown, a transition time, a reason in
 * CamelCase-like form of at most 1 KiB, a message of at most 32 KiB, no negative generation.
 */
import type { FieldError } from '../status/field-error';
import { duplicate, FieldPath, invalid, notSupported, required, tooLong } from '../status/field-errors';
import { isQualifiedName, regexError } from './names';

export interface Condition {
  readonly type?: string;
  readonly status?: string;
  readonly observedGeneration?: number;
  readonly lastTransitionTime?: string | null;
  readonly reason?: string;
  readonly message?: string;
}

const STATUSES = ['False', 'True', 'Unknown'];
const MAX_REASON_LENGTH = 1024;
const MAX_MESSAGE_LENGTH = 32 * 1024;
const REASON_FORMAT = '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?';
const REASON = new RegExp(`^${REASON_FORMAT}$`);
const REASON_ERROR = regexError(
  "a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'",
  REASON_FORMAT,
  'my_name',
  'MY_NAME',
  'MyName',
  'ReasonA,ReasonB',
  'ReasonA:ReasonB',
);

function conditionErrors(condition: Condition, path: FieldPath): FieldError[] {
  const type = condition.type ?? '';
  const errors = isQualifiedName(type).map((message) => invalid(path.child('type'), type, message));
  const status = condition.status ?? '';
  if (!STATUSES.includes(status)) errors.push(notSupported(path.child('status'), status, STATUSES));
  const generation = condition.observedGeneration ?? 0;
  if (generation < 0)
    errors.push(invalid(path.child('observedGeneration'), generation, 'must be greater than or equal to zero'));
  if (!condition.lastTransitionTime) errors.push(required(path.child('lastTransitionTime')));
  const reason = condition.reason ?? '';
  if (reason === '') errors.push(required(path.child('reason')));
  else {
    if (!REASON.test(reason)) errors.push(invalid(path.child('reason'), reason, REASON_ERROR));
    if (reason.length > MAX_REASON_LENGTH) errors.push(tooLong(path.child('reason'), MAX_REASON_LENGTH));
  }
  if ((condition.message ?? '').length > MAX_MESSAGE_LENGTH)
    errors.push(tooLong(path.child('message'), MAX_MESSAGE_LENGTH));
  return errors;
}

export function validateConditions(conditions: readonly Condition[], path: FieldPath): FieldError[] {
  const seen = new Set<string>();
  return conditions.flatMap((condition, index) => {
    const type = condition.type ?? '';
    const errors = seen.has(type) ? [duplicate(path.index(index).child('type'), type)] : [];
    seen.add(type);
    return [...errors, ...conditionErrors(condition, path.index(index))];
  });
}
