/**
 * What the expressions of a validating and of a mutating admission policy share, as the
 * reference's policy evaluation has them: the variables they see (`object`, `oldObject`,
 * `request`, `params`, `namespaceObject`, `variables`, `authorizer`), one expression run against
 * the binding's cost budget with the reference's texts, the policy's matchConditions (any false
 * skips the policy), and its variables computed in order.
 */
import type { CompiledExpression, ExpressionCompiler, RequestCostBudget } from '../../cel/environment';
import { celEnvironment } from '../../cel/lazy';
import type { CelAuthorizer } from '../../cel/libraries/authorizer';
import { AUTHORIZER_VARIABLES } from '../../cel/libraries/request-authorizer';
import type { CelValue } from '../../cel/values';
import { admissionUserInfo } from './attributes';
import type { AdmissionAttributes } from '../../../api/admissionregistration';

export interface PolicyInputs {
  readonly attributes: AdmissionAttributes;
  /** The request's namespace object; null for a cluster-scoped request. */
  readonly namespaceObject: Readonly<Record<string, unknown>> | null;
  /** The binding's param object, or null when the policy has no paramKind. */
  readonly params: Readonly<Record<string, unknown>> | null;
  /** Checks on behalf of the requesting user (see request-authorizer.ts); without it, `authorizer` is unbound. */
  readonly authorizer?: CelAuthorizer;
  /** The cost budget of this evaluation (default: a fresh 10,000,000, the reference's per binding). */
  readonly budget?: RequestCostBudget;
}

/** What messageExpressions see: as the reference, no `authorizer`. */
export const MESSAGE_VARIABLES = {
  object: 'dyn',
  oldObject: 'dyn',
  request: 'dyn',
  params: 'dyn',
  namespaceObject: 'dyn',
  variables: 'map<string, dyn>',
} as const;

export const POLICY_VARIABLES = { ...MESSAGE_VARIABLES, ...AUTHORIZER_VARIABLES } as const;

export type Compiled =
  { readonly ok: true; readonly expression: CompiledExpression } | { readonly ok: false; readonly error: string };

export type RunResult = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: string };

/** The reference's text once a binding's budget is spent: nothing more runs. */
export const OUT_OF_BUDGET =
  'validation failed due to running out of cost budget, no further validation rules will be run';

/** A named expression (match condition, variable) and its compiled form. */
export interface NamedCompiled {
  readonly name: string;
  readonly expression: string;
  readonly compiled: Compiled;
}

export function compileExpression(compiler: ExpressionCompiler, expression: string): Compiled {
  const result = compiler.compile(expression);
  return result.ok
    ? { ok: true, expression: result.compiled }
    : { ok: false, error: `compilation failed: ${result.error}` };
}

export function compileNamed(
  compiler: ExpressionCompiler,
  named: ReadonlyArray<{ readonly name: string; readonly expression: string }> | undefined,
): NamedCompiled[] {
  return (named ?? []).map(({ name, expression }) => ({
    name,
    expression,
    compiled: compileExpression(compiler, expression),
  }));
}

/** The variables' values for one evaluation (`variables` filled by `computeVariables`). */
export function policyContext(inputs: PolicyInputs): Record<string, CelValue> {
  const { fromJson } = celEnvironment();
  const { attributes } = inputs;
  const context: Record<string, CelValue> = {
    object: fromJson(attributes.object),
    oldObject: fromJson(attributes.oldObject),
    request: fromJson(requestValue(attributes)),
    params: fromJson(inputs.params),
    namespaceObject: fromJson(inputs.namespaceObject),
    variables: new Map<string, CelValue>(),
  };
  if (inputs.authorizer) context.authorizer = inputs.authorizer;
  return context;
}

export type ExpressionRunner = (
  compiled: Compiled,
  source: string,
  context: Readonly<Record<string, CelValue>>,
) => Promise<RunResult>;

/** Runs expressions against one budget: past it nothing more runs; past one call's limit, that expression errs. */
export function budgetedRunner(budget: RequestCostBudget): ExpressionRunner {
  return async (compiled, source, context) => {
    if (!compiled.ok) return { ok: false, error: `expression '${source}' resulted in error: ${compiled.error}` };
    const result = await compiled.expression.evaluateAwaitingChecks(context, { budget });
    if (result.ok) return result;
    const error =
      result.costExceeded && budget.remaining <= 0
        ? OUT_OF_BUDGET
        : `expression '${source}' resulted in error: ${result.error}`;
    return { ok: false, error };
  };
}

/** A match condition that erred (`error`), or gave something other than a bool. */
export type ConditionFailure =
  { readonly name: string; readonly error: string } | { readonly name: string; readonly notBool: true };

export type ConditionsOutcome =
  { readonly skip: true } | { readonly skip: false; readonly failures: readonly ConditionFailure[] };

/** Any condition false skips the policy; otherwise the ones that failed are told, in order. */
export async function evaluateMatchConditions(
  conditions: readonly NamedCompiled[],
  run: ExpressionRunner,
  context: Readonly<Record<string, CelValue>>,
): Promise<ConditionsOutcome> {
  const failures: ConditionFailure[] = [];
  for (const { name, expression, compiled } of conditions) {
    const result = await run(compiled, expression, context);
    if (result.ok && result.value === false) return { skip: true };
    if (!result.ok) failures.push({ name, error: result.error });
    else if (result.value !== true) failures.push({ name, notBool: true });
  }
  return { skip: false, failures };
}

/**
 * The policy's variables, in order, into `context.variables` (each may use the earlier ones); one
 * that errs is left unset, so only the expressions using it fail.
 */
export async function computeVariables(
  variables: readonly NamedCompiled[],
  run: ExpressionRunner,
  context: Record<string, CelValue>,
): Promise<Record<string, CelValue>> {
  const values = new Map<string, CelValue>();
  context.variables = values;
  for (const { name, expression, compiled } of variables) {
    const result = await run(compiled, expression, context);
    if (result.ok) values.set(name, result.value as CelValue);
  }
  return context;
}

/** The namespace's labels; undefined for a cluster-scoped request. */
export function labelsOfNamespace(
  namespaceObject: PolicyInputs['namespaceObject'],
): Readonly<Record<string, string>> | undefined {
  return namespaceObject
    ? ((namespaceObject.metadata as { labels?: Record<string, string> } | undefined)?.labels ?? {})
    : undefined;
}

/** The `request` variable: the AdmissionRequest fields expressions read. */
function requestValue(attributes: AdmissionAttributes): Record<string, unknown> {
  return {
    kind: attributes.kind,
    resource: attributes.resource,
    subResource: attributes.subresource,
    requestKind: attributes.kind,
    requestResource: attributes.resource,
    requestSubResource: attributes.subresource,
    name: attributes.name,
    namespace: attributes.namespace,
    operation: attributes.operation,
    userInfo: admissionUserInfo(attributes.userInfo),
    dryRun: attributes.dryRun,
    ...(attributes.options ? { options: attributes.options } : {}),
  };
}
