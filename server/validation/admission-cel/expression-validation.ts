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
import type { CompileResult, EnvironmentKind } from '../../cel/environment';
import { resultTypeError } from '../../cel/compile-errors';
import { duplicate, FieldPath, GoValue, invalid, notSupported, required, tooMany } from '../../status/field-errors';
import { goJSONEscaped } from '../../../api/go-quote';
import { isQualifiedName } from '../names';
import { isCelIdentifier } from '../../cel/escaping';
import { compileMatchCondition } from './match-conditions';
import type { FieldError } from '../../registry/types';
import type { CelSchema } from '../../cel/schema-types';
import { policyCompilers, type PolicyCompilers } from './declarations';
import type { MutatingAdmissionPolicySpec, ValidatingAdmissionPolicySpec } from '../../../api/admissionregistration';

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
  readonly applyConfigurations: ReadonlySet<string>;
  readonly jsonPatches: ReadonlySet<string>;
}

export const NO_PREEXISTING_POLICY_EXPRESSIONS: PreexistingPolicyExpressions = {
  matchConditions: new Set(),
  validations: new Set(),
  messageExpressions: new Set(),
  auditAnnotations: new Set(),
  applyConfigurations: new Set(),
  jsonPatches: new Set(),
};

function texts(values: ReadonlyArray<unknown>): ReadonlySet<string> {
  return new Set(values.filter((value): value is string => typeof value === 'string' && value !== ''));
}

/** A ValidatingAdmissionPolicy's expressions, as its update finds them. */
export function preexistingPolicyExpressions(spec: ValidatingAdmissionPolicySpec): PreexistingPolicyExpressions {
  return {
    ...NO_PREEXISTING_POLICY_EXPRESSIONS,
    matchConditions: texts((spec.matchConditions ?? []).map((condition) => condition.expression)),
    validations: texts((spec.validations ?? []).map((validation) => validation.expression)),
    messageExpressions: texts((spec.validations ?? []).map((validation) => validation.messageExpression)),
    auditAnnotations: texts((spec.auditAnnotations ?? []).map((annotation) => annotation.valueExpression)),
  };
}

/** A MutatingAdmissionPolicy's expressions, as its update finds them. */
export function preexistingMutatingPolicyExpressions(spec: MutatingAdmissionPolicySpec): PreexistingPolicyExpressions {
  const mutations = spec.mutations ?? [];
  return {
    ...NO_PREEXISTING_POLICY_EXPRESSIONS,
    matchConditions: texts((spec.matchConditions ?? []).map((condition) => condition.expression)),
    applyConfigurations: texts(mutations.map((mutation) => mutation.applyConfiguration?.expression)),
    jsonPatches: texts(mutations.map((mutation) => mutation.jsonPatch?.expression)),
  };
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
  /**
   * One non-blank expression (blank ones are the caller's to refuse) compiled for its place, of
   * an `allowed` type; in the stored-expression environment when `preexisting` holds its text.
   */
  expression(
    place: 'expressions' | 'messages' | 'mutations',
    path: FieldPath,
    expression: unknown,
    allowed: readonly string[] | undefined,
    preexisting: ReadonlySet<string>,
  ): FieldError[];
}

/**
 * The checks of one policy's expressions. `namespace` is the Namespace schema; `preexisting`, on
 * an update, the old policy's expressions.
 */
export function policyExpressionChecks(
  spec: PolicyExpressionsSpec,
  namespace: CelSchema | undefined,
  preexisting: PreexistingPolicyExpressions = NO_PREEXISTING_POLICY_EXPRESSIONS,
): PolicyExpressionChecks {
  const root = FieldPath.root('spec');
  const variables = (spec.variables ?? []).map(({ name, expression }) => ({
    name: String(name ?? ''),
    expression: expression as string,
  }));
  const variableCompileErrors: Record<EnvironmentKind, Map<number, FieldError>> = { new: new Map(), stored: new Map() };
  const compilersIn = (environment: EnvironmentKind) =>
    policyCompilers({ params: present(spec.paramKind) ? {} : undefined, namespace }, variables, {
      environment,
      variablesWhenNone: false,
      onVariable: (index, result) => {
        const path = root.child('variables').index(index).child('expression');
        const error = expressionError(result, path, variables[index].expression);
        if (error) variableCompileErrors[environment].set(index, error);
      },
    });
  const fresh = compilersIn('new');
  // Made when an expression needs it: at once when a variable does, its error being needed below.
  let stored = variables.some(({ expression }) => preexisting.validations.has(expression))
    ? compilersIn('stored')
    : undefined;
  const compilersFor = (found: boolean): PolicyCompilers => (found ? (stored ??= compilersIn('stored')) : fresh);
  return {
    matchConditions: () =>
      validateMatchConditions(spec.matchConditions ?? [], root.child('matchConditions'), (expression) =>
        compilersFor(preexisting.matchConditions.has(expression)).matchConditions.compile(expression),
      ),
    variables: () =>
      (spec.variables ?? []).flatMap(({ name, expression }, index) => {
        const at = root.child('variables').index(index);
        const errors: FieldError[] = [];
        if (typeof name !== 'string' || name.trim() === '')
          errors.push(required(at.child('name'), 'name is not specified'));
        else if (!isCelIdentifier(name)) errors.push(invalid(at.child('name'), name, 'must be a valid CEL identifier'));
        if (isBlank(expression)) errors.push(required(at.child('expression'), 'expression is not specified'));
        const environment = preexisting.validations.has(variables[index].expression) ? 'stored' : 'new';
        const compileError = variableCompileErrors[environment].get(index);
        if (compileError) errors.push(compileError);
        return errors;
      }),
    expression: (place, path, expression, allowed, before) => {
      if (isBlank(expression)) return [];
      const compiler = compilersFor(before.has(expression as string))[place];
      const error = expressionError(compiler.compile(expression as string), path, expression as string, allowed);
      return error ? [error] : [];
    },
  };
}

function present(value: unknown): boolean {
  return value !== undefined && value !== null;
}

/** What a ValidatingAdmissionPolicy's checks need beyond its spec. */
export interface ValidatingPolicyContext {
  /** metadata.name: an audit annotation's key is qualified by it. */
  readonly name: string;
  /** An update that changes neither the match conditions nor the param kind leaves the conditions unchecked. */
  readonly ignoreMatchConditions: boolean;
}

/** The reasons a validation may give for its refusal (sorted, as Go lists them). */
const VALIDATION_REASONS = ['Forbidden', 'Invalid', 'RequestEntityTooLarge'];
const MAX_AUDIT_ANNOTATIONS = 20;
/** Shorter than an annotation value's limit (10 KiB): a concatenating expression gives more than it holds. */
const MAX_AUDIT_ANNOTATION_EXPRESSION_BYTES = 5 * 1024;

/**
 * The errors of a ValidatingAdmissionPolicy's expressions and what goes with them, in the
 * reference's order: its matchConditions, variables, then validations (with their messages and
 * reasons) and auditAnnotations (keys unique and qualified by the policy's name, at most 20),
 * at least one of the two.
 */
export function validatePolicyExpressions(
  spec: ValidatingAdmissionPolicySpec,
  namespace: CelSchema | undefined,
  preexisting: PreexistingPolicyExpressions,
  policy: ValidatingPolicyContext,
): FieldError[] {
  const root = FieldPath.root('spec');
  const checks = policyExpressionChecks(spec, namespace, preexisting);
  const errors = [...(policy.ignoreMatchConditions ? [] : checks.matchConditions()), ...checks.variables()];
  const validations = spec.validations ?? [];
  const auditAnnotations = spec.auditAnnotations ?? [];
  if (validations.length === 0 && auditAnnotations.length === 0) {
    const rule = 'validations or auditAnnotations must contain at least one item';
    return [...errors, required(root.child('validations'), rule), required(root.child('auditAnnotations'), rule)];
  }
  for (const [index, validation] of validations.entries()) {
    const path = root.child('validations').index(index);
    if (isBlank(validation.expression)) errors.push(required(path.child('expression'), 'expression is not specified'));
    else
      errors.push(
        ...checks.expression(
          'expressions',
          path.child('expression'),
          validation.expression,
          ['bool'],
          preexisting.validations,
        ),
      );
    if (validation.messageExpression && isBlank(validation.messageExpression))
      errors.push(
        invalid(path.child('messageExpression'), validation.messageExpression, 'must be non-empty if specified'),
      );
    else
      errors.push(
        ...checks.expression(
          'messages',
          path.child('messageExpression'),
          validation.messageExpression,
          ['string'],
          preexisting.messageExpressions,
        ),
      );
    errors.push(...validationMessageErrors(validation.message, path.child('message')));
    if (
      validation.reason !== undefined &&
      validation.reason !== null &&
      !VALIDATION_REASONS.includes(validation.reason)
    )
      errors.push(notSupported(path.child('reason'), validation.reason, VALIDATION_REASONS));
  }
  if (auditAnnotations.length > MAX_AUDIT_ANNOTATIONS)
    errors.push(
      invalid(
        root.child('auditAnnotations'),
        // The reference prints its internal structs, whose fields carry no JSON names.
        new GoValue(
          goJSONEscaped(
            JSON.stringify(
              auditAnnotations.map(({ key, valueExpression }) => ({ Key: key, ValueExpression: valueExpression })),
            ),
          ),
        ),
        `must not have more than ${MAX_AUDIT_ANNOTATIONS} auditAnnotations`,
      ),
    );
  const keys = new Set<string>();
  for (const [index, annotation] of auditAnnotations.entries()) {
    const path = root.child('auditAnnotations').index(index);
    for (const message of isQualifiedName(`${policy.name}/${annotation.key}`))
      errors.push(invalid(path.child('key'), `${policy.name}/${annotation.key}`, message));
    const valuePath = path.child('valueExpression');
    if (isBlank(annotation.valueExpression)) errors.push(required(valuePath, 'valueExpression is not specified'));
    else if (Buffer.byteLength(annotation.valueExpression.trim()) > MAX_AUDIT_ANNOTATION_EXPRESSION_BYTES)
      errors.push(required(valuePath, `must not exceed ${MAX_AUDIT_ANNOTATION_EXPRESSION_BYTES} bytes in length`));
    else
      errors.push(
        ...checks.expression(
          'expressions',
          valuePath,
          annotation.valueExpression,
          ['string', 'null'],
          preexisting.auditAnnotations,
        ),
      );
    if (keys.has(annotation.key)) errors.push(duplicate(path.child('key'), annotation.key));
    keys.add(annotation.key);
  }
  return errors;
}

/** A validation's message: not blank when given, on one line. */
function validationMessageErrors(message: string | undefined, path: FieldPath): FieldError[] {
  if (!message) return [];
  if (message.trim() === '') return [invalid(path, message, 'must be non-empty if specified')];
  if (/[\n\r]/.test(message.trim())) return [invalid(path, message, 'must not contain line breaks')];
  return [];
}

function isBlank(expression: unknown): boolean {
  return typeof expression !== 'string' || expression.trim() === '';
}

/** The most matchConditions a webhook may have. */
const MAX_MATCH_CONDITIONS = 64;

/** The errors of a webhook's matchConditions (at `path`), in the reference's order. */
export function validateWebhookMatchConditions(
  conditions: readonly ExpressionSource[],
  path: FieldPath,
  preexisting: ReadonlySet<unknown> = new Set(),
): FieldError[] {
  // On an update, a condition the configuration had already compiles as stored (as in the reference).
  return validateMatchConditions(conditions, path, (expression) =>
    compileMatchCondition(expression, preexisting.has(expression) ? 'stored' : 'new'),
  );
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
