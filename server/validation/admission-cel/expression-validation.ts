/**
 * Write-time validation of admission expressions, as the reference refuses them (422): a
 * ValidatingAdmissionPolicy's expressions must compile with the policy's variables
 * (declarations.ts, with `object` and `oldObject` dynamic) and give its place's type: a bool for
 * matchConditions and validations, a string for messageExpressions, a string or null for
 * auditAnnotations. A dynamic result does not count as any of them. Variables may give
 * anything. A webhook's matchConditions are named, at most 64, and compile to a bool with the
 * webhook's variables (match-conditions.ts).
 */
import type { CompileResult, EnvironmentKind, ExpressionCompiler } from '../../cel/environment';
import { resultTypeError } from '../../cel/compile-errors';
import { duplicate, FieldPath, invalid, required, tooMany } from '../../status/field-errors';
import { isQualifiedName } from '../names';
import { compileMatchCondition } from './match-conditions';
import type { FieldError } from '../../registry/types';
import type { CelSchema } from '../../cel/schema-types';
import { policyCompilers, type PolicyCompilers } from './declarations';
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

/**
 * The expressions of a policy before an update, by where they were. As in the reference, one
 * found again at the same kind of place compiles in the stored-expression environment, so that
 * an update does not refuse what the server already accepted (a variable counts as there when
 * a validation had its text, as the reference looks it up).
 */
export interface PreexistingPolicyExpressions {
  readonly matchConditions: ReadonlySet<string>;
  readonly validations: ReadonlySet<string>;
  readonly messageExpressions: ReadonlySet<string>;
  readonly auditAnnotations: ReadonlySet<string>;
}

export const NO_PREEXISTING_POLICY_EXPRESSIONS: PreexistingPolicyExpressions = {
  matchConditions: new Set(),
  validations: new Set(),
  messageExpressions: new Set(),
  auditAnnotations: new Set(),
};

export function preexistingPolicyExpressions(spec: ValidatingAdmissionPolicySpec): PreexistingPolicyExpressions {
  const texts = (values: ReadonlyArray<string | undefined>) =>
    new Set(values.filter((value): value is string => typeof value === 'string' && value !== ''));
  return {
    matchConditions: texts((spec.matchConditions ?? []).map((condition) => condition.expression)),
    validations: texts((spec.validations ?? []).map((validation) => validation.expression)),
    messageExpressions: texts((spec.validations ?? []).map((validation) => validation.messageExpression)),
    auditAnnotations: texts((spec.auditAnnotations ?? []).map((annotation) => annotation.valueExpression)),
  };
}

/**
 * The errors of the policy's expressions, in the reference's order. `namespace` is the Namespace
 * schema; `preexisting`, on an update, the old policy's expressions.
 */
export function validatePolicyExpressions(
  spec: ValidatingAdmissionPolicySpec,
  namespace: CelSchema | undefined,
  preexisting: PreexistingPolicyExpressions = NO_PREEXISTING_POLICY_EXPRESSIONS,
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
  const variables = spec.variables ?? [];
  const variableErrors: Record<EnvironmentKind, Array<FieldError | undefined>> = { new: [], stored: [] };
  const compilersIn = (environment: EnvironmentKind) =>
    policyCompilers({ params: spec.paramKind ? {} : undefined, namespace }, variables, {
      environment,
      onVariable: (index, result) => {
        const path = root.child('variables').index(index).child('expression');
        variableErrors[environment][index] = expressionError(result, path, variables[index].expression);
      },
    });
  const fresh = compilersIn('new');
  // Made when an expression needs it: at once when a variable does, its error being needed below.
  let stored = variables.some(({ expression }) => preexisting.validations.has(expression))
    ? compilersIn('stored')
    : undefined;
  const compilersFor = (found: boolean): PolicyCompilers => (found ? (stored ??= compilersIn('stored')) : fresh);
  for (const [index, condition] of (spec.matchConditions ?? []).entries()) {
    check(
      compilersFor(preexisting.matchConditions.has(condition.expression)).expressions,
      root.child('matchConditions').index(index).child('expression'),
      condition.expression,
      ['bool'],
    );
  }
  variables.forEach(({ expression }, index) => {
    const error = variableErrors[preexisting.validations.has(expression) ? 'stored' : 'new'][index];
    if (error) errors.push(error);
  });
  for (const [index, validation] of (spec.validations ?? []).entries()) {
    const path = root.child('validations').index(index);
    check(
      compilersFor(preexisting.validations.has(validation.expression)).expressions,
      path.child('expression'),
      validation.expression,
      ['bool'],
    );
    if (validation.messageExpression)
      check(
        compilersFor(preexisting.messageExpressions.has(validation.messageExpression)).messages,
        path.child('messageExpression'),
        validation.messageExpression,
        ['string'],
      );
  }
  for (const [index, annotation] of (spec.auditAnnotations ?? []).entries()) {
    check(
      compilersFor(preexisting.auditAnnotations.has(annotation.valueExpression)).expressions,
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
  preexisting: ReadonlySet<unknown> = new Set(),
): FieldError[] {
  const errors: FieldError[] = [];
  if (conditions.length > MAX_MATCH_CONDITIONS) errors.push(tooMany(path, conditions.length, MAX_MATCH_CONDITIONS));
  const names = new Set<string>();
  for (const [index, condition] of conditions.entries()) {
    const at = path.index(index);
    const expression = typeof condition.expression === 'string' ? condition.expression.trim() : '';
    if (expression === '') errors.push(required(at.child('expression')));
    else {
      // On an update, a condition the configuration had already compiles as stored (as in the reference).
      const environment = preexisting.has(condition.expression) ? 'stored' : 'new';
      const compiled = compileMatchCondition(expression, environment);
      const error = expressionError(compiled, at.child('expression'), expression, ['bool']);
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
