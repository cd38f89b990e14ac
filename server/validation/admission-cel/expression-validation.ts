/**
 * Write-time validation of admission expressions, as the reference refuses them (422): a
 * ValidatingAdmissionPolicy's expressions must compile with the policy's variables
 * (declarations.ts, with `object` and `oldObject` dynamic) and give its place's type: a bool for
 * matchConditions and validations, a string for messageExpressions, a string or null for
 * auditAnnotations. A dynamic result does not count as any of them. Variables may give
 * anything. A webhook's matchConditions are named, at most 64, and compile to a bool with the
 * webhook's variables (match-conditions.ts).
 */
import type { CompileResult, ExpressionCompiler } from '../../cel/environment';
import { resultTypeError } from '../../cel/compile-errors';
import { duplicate, FieldPath, invalid, required, tooMany } from '../../status/field-errors';
import { isQualifiedName } from '../names';
import { compileMatchCondition } from './match-conditions';
import type { FieldError } from '../../registry/types';
import type { CelSchema } from '../../cel/schema-types';
import { policyCompilers } from './declarations';
import type { ValidatingAdmissionPolicySpec } from '../../../api/admissionregistration';

/** The error of one expression, or none. */
function expressionError(
  result: CompileResult,
  path: FieldPath,
  expression: string,
  allowed?: readonly string[],
): FieldError | undefined {
  if (!result.ok) return invalid(path, expression, `compilation failed: ${result.error}`);
  const typeError = allowed && resultTypeError(result.compiled.outputType, allowed);
  return typeError ? invalid(path, expression, typeError) : undefined;
}

/** The errors of the policy's expressions, in the reference's order. `namespace` is the Namespace schema. */
export function validatePolicyExpressions(
  spec: ValidatingAdmissionPolicySpec,
  namespace: CelSchema | undefined,
): FieldError[] {
  const errors: FieldError[] = [];
  const root = FieldPath.root('spec');
  const check = (
    compiler: ExpressionCompiler,
    path: FieldPath,
    expression: string | undefined,
    allowed?: readonly string[],
  ) => {
    // An empty expression is refused as required by the kind's validation, not compiled.
    if (typeof expression !== 'string' || expression.trim() === '') return;
    const error = expressionError(compiler.compile(expression), path, expression, allowed);
    if (error) errors.push(error);
  };
  const variableErrors: FieldError[] = [];
  const variables = spec.variables ?? [];
  const compilers = policyCompilers({ params: spec.paramKind ? {} : undefined, namespace }, variables, {
    onVariable: (index, result) => {
      const error = expressionError(
        result,
        root.child('variables').index(index).child('expression'),
        variables[index].expression,
      );
      if (error) variableErrors.push(error);
    },
  });
  for (const [index, condition] of (spec.matchConditions ?? []).entries()) {
    check(compilers.expressions, root.child('matchConditions').index(index).child('expression'), condition.expression, [
      'bool',
    ]);
  }
  errors.push(...variableErrors);
  for (const [index, validation] of (spec.validations ?? []).entries()) {
    const path = root.child('validations').index(index);
    check(compilers.expressions, path.child('expression'), validation.expression, ['bool']);
    if (validation.messageExpression)
      check(compilers.messages, path.child('messageExpression'), validation.messageExpression, ['string']);
  }
  for (const [index, annotation] of (spec.auditAnnotations ?? []).entries()) {
    check(
      compilers.expressions,
      root.child('auditAnnotations').index(index).child('valueExpression'),
      annotation.valueExpression,
      ['string', 'null'],
    );
  }
  return errors;
}

/** The most matchConditions a webhook may have. */
const MAX_MATCH_CONDITIONS = 64;

/** The errors of a webhook's matchConditions (at `path`), in the reference's order. */
export function validateWebhookMatchConditions(
  conditions: readonly { readonly name?: unknown; readonly expression?: unknown }[],
  path: FieldPath,
): FieldError[] {
  const errors: FieldError[] = [];
  if (conditions.length > MAX_MATCH_CONDITIONS) errors.push(tooMany(path, conditions.length, MAX_MATCH_CONDITIONS));
  const names = new Set<string>();
  for (const [index, condition] of conditions.entries()) {
    const at = path.index(index);
    const expression = typeof condition.expression === 'string' ? condition.expression.trim() : '';
    if (expression === '') errors.push(required(at.child('expression')));
    else {
      const error = expressionError(compileMatchCondition(expression), at.child('expression'), expression, ['bool']);
      if (error) errors.push(error);
    }
    const name = typeof condition.name === 'string' ? condition.name : '';
    if (name === '') errors.push(required(at.child('name')));
    else for (const message of isQualifiedName(name)) errors.push(invalid(at.child('name'), name, message));
    if (name !== '' && names.has(name)) errors.push(duplicate(at.child('name'), name));
    names.add(name);
  }
  return errors;
}
