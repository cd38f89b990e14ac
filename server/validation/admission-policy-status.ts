/**
 * A ValidatingAdmissionPolicy's status as the reference checks it on a status write
 * (ValidateValidatingAdmissionPolicyStatusUpdate): each type-checking warning says what is wrong
 * and where, its `fieldRef` a JSONPath client-go's parser reads, and the conditions are
 * well-formed metav1 Conditions. The spec is not looked at: a status write cannot change it.
 */
import type { FieldError } from '../status/field-error';
import { FieldPath, invalid, required } from '../status/field-errors';
import type { ExpressionWarning, ValidatingAdmissionPolicyStatus } from '../../api/admissionregistration';
import { validateConditions, type Condition } from './conditions';
import { goJSONPathParseError } from './go-jsonpath';
import { goTrimSpace } from './go-space';

const STATUS = FieldPath.root('status');

export function validateValidatingAdmissionPolicyStatus(
  status: ValidatingAdmissionPolicyStatus | undefined,
): FieldError[] {
  const warnings = status?.typeChecking?.expressionWarnings ?? [];
  const warningsPath = STATUS.child('typeChecking').child('expressionWarnings');
  return [
    ...warnings.flatMap((warning, index) => expressionWarningErrors(warning ?? {}, warningsPath.index(index))),
    ...validateConditions((status?.conditions ?? []) as readonly Condition[], STATUS.child('conditions')),
  ];
}

function expressionWarningErrors(warning: Partial<ExpressionWarning>, path: FieldPath): FieldError[] {
  const errors = warning.warning ? [] : [required(path.child('warning'))];
  // Parsed as the body of one template action, as the reference parses it.
  const fieldRef = goTrimSpace(warning.fieldRef ?? '');
  if (fieldRef === '') errors.push(required(path.child('fieldRef')));
  else {
    const parseError = goJSONPathParseError(`{${fieldRef}}`);
    if (parseError !== undefined)
      errors.push(invalid(path.child('fieldRef'), fieldRef, `invalid JSONPath: ${parseError}`));
  }
  return errors;
}
