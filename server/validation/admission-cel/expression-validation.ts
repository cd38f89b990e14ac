/**
 * Write-time validation of admission expressions, as the reference refuses them (422): an
 * admission policy's expressions (Validating or Mutating) must compile with the policy's
 * variables (declarations.ts, with `object` and `oldObject` dynamic) and give its place's type: a
 * bool for matchConditions and validations, a string for messageExpressions, a string or null for
 * auditAnnotations, an `Object` or a `list(JSONPatch)` for mutations (the kind's validation says
 * which). A dynamic result does not count as any of them. Variables may give anything, and are
 * named as CEL identifiers. matchConditions are named, at most 64, and see no `variables`; a
 * webhook's compile with the webhook's variables (match-conditions.ts).
 */
import type { CompileResult } from '../../cel/environment';
import { resultTypeError } from '../../cel/compile-errors';
import { duplicate, FieldPath, invalid, required, tooMany } from '../../status/field-errors';
import { isQualifiedName } from '../names';
import { isCelIdentifier } from '../../cel/escaping';
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

/** What both admission policies' expressions are compiled against (the rest of a spec is the caller's). */
export interface PolicyExpressionsSpec {
  readonly paramKind?: unknown;
  readonly matchConditions?: readonly ExpressionSource[];
  readonly variables?: readonly ExpressionSource[];
}

interface ExpressionSource {
  readonly name?: unknown;
  readonly expression?: unknown;
}

/** A policy's compilers, each expression checked where it stands. */
export interface PolicyExpressionChecks {
  /** The reference's validateMatchConditions: names, count, and each compiled to a bool without `variables`. */
  matchConditions(): FieldError[];
  /** The reference's validateVariable for each: a CEL identifier as name, an expression that compiles. */
  variables(): FieldError[];
  /** One non-blank expression (blank ones are the caller's to refuse) compiled for its place, of an `allowed` type. */
  expression(
    place: 'expressions' | 'messages' | 'mutations',
    path: FieldPath,
    expression: unknown,
    allowed?: readonly string[],
  ): FieldError[];
}

/** The checks of one policy's expressions. `namespace` is the Namespace schema. */
export function policyExpressionChecks(
  spec: PolicyExpressionsSpec,
  namespace: CelSchema | undefined,
): PolicyExpressionChecks {
  const root = FieldPath.root('spec');
  const variables = spec.variables ?? [];
  const variableCompileErrors = new Map<number, FieldError>();
  const compilers = policyCompilers(
    { params: present(spec.paramKind) ? {} : undefined, namespace },
    variables.map(({ name, expression }) => ({ name: String(name ?? ''), expression: expression as string })),
    (index, result) => {
      const error = expressionError(
        result,
        root.child('variables').index(index).child('expression'),
        variables[index].expression as string,
      );
      if (error) variableCompileErrors.set(index, error);
    },
  );
  return {
    matchConditions: () =>
      validateMatchConditions(spec.matchConditions ?? [], root.child('matchConditions'), (expression) =>
        compilers.matchConditions.compile(expression),
      ),
    variables: () =>
      variables.flatMap(({ name, expression }, index) => {
        const at = root.child('variables').index(index);
        const errors: FieldError[] = [];
        if (typeof name !== 'string' || name.trim() === '')
          errors.push(required(at.child('name'), 'name is not specified'));
        else if (!isCelIdentifier(name)) errors.push(invalid(at.child('name'), name, 'must be a valid CEL identifier'));
        if (isBlank(expression)) errors.push(required(at.child('expression'), 'expression is not specified'));
        const compileError = variableCompileErrors.get(index);
        if (compileError) errors.push(compileError);
        return errors;
      }),
    expression: (place, path, expression, allowed) => {
      if (isBlank(expression)) return [];
      const error = expressionError(
        compilers[place].compile(expression as string),
        path,
        expression as string,
        allowed,
      );
      return error ? [error] : [];
    },
  };
}

function present(value: unknown): boolean {
  return value !== undefined && value !== null;
}

/**
 * The errors of a ValidatingAdmissionPolicy's expressions, in the reference's order: its
 * matchConditions, variables, then validations and auditAnnotations (at least one of them,
 * each with an expression).
 */
export function validatePolicyExpressions(
  spec: ValidatingAdmissionPolicySpec,
  namespace: CelSchema | undefined,
): FieldError[] {
  const root = FieldPath.root('spec');
  const checks = policyExpressionChecks(spec, namespace);
  const errors = [...checks.matchConditions(), ...checks.variables()];
  const validations = spec.validations ?? [];
  const auditAnnotations = spec.auditAnnotations ?? [];
  if (validations.length === 0 && auditAnnotations.length === 0) {
    const rule = 'validations or auditAnnotations must contain at least one item';
    return [...errors, required(root.child('validations'), rule), required(root.child('auditAnnotations'), rule)];
  }
  for (const [index, validation] of validations.entries()) {
    const path = root.child('validations').index(index);
    if (isBlank(validation.expression)) errors.push(required(path.child('expression'), 'expression is not specified'));
    else errors.push(...checks.expression('expressions', path.child('expression'), validation.expression, ['bool']));
    errors.push(
      ...checks.expression('messages', path.child('messageExpression'), validation.messageExpression, ['string']),
    );
  }
  for (const [index, annotation] of auditAnnotations.entries()) {
    const path = root.child('auditAnnotations').index(index).child('valueExpression');
    if (isBlank(annotation.valueExpression)) errors.push(required(path, 'valueExpression is not specified'));
    else errors.push(...checks.expression('expressions', path, annotation.valueExpression, ['string', 'null']));
  }
  return errors;
}

function isBlank(expression: unknown): boolean {
  return typeof expression !== 'string' || expression.trim() === '';
}

/** The most matchConditions a webhook may have. */
const MAX_MATCH_CONDITIONS = 64;

/** The errors of a webhook's matchConditions (at `path`), in the reference's order. */
export function validateWebhookMatchConditions(conditions: readonly ExpressionSource[], path: FieldPath): FieldError[] {
  return validateMatchConditions(conditions, path, compileMatchCondition);
}

/** The reference's validateMatchConditions, each expression compiled by `compile`. */
function validateMatchConditions(
  conditions: readonly ExpressionSource[],
  path: FieldPath,
  compile: (expression: string) => CompileResult,
): FieldError[] {
  const errors: FieldError[] = [];
  if (conditions.length > MAX_MATCH_CONDITIONS) errors.push(tooMany(path, conditions.length, MAX_MATCH_CONDITIONS));
  const names = new Set<string>();
  for (const [index, condition] of conditions.entries()) {
    const at = path.index(index);
    const expression = typeof condition.expression === 'string' ? condition.expression.trim() : '';
    if (expression === '') errors.push(required(at.child('expression')));
    else {
      const error = expressionError(compile(expression), at.child('expression'), expression, ['bool']);
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
