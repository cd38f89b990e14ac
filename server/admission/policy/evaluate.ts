/**
 * Evaluation of a ValidatingAdmissionPolicy through one of its bindings, as pure functions of
 * the policy, the binding and the request's record (params, namespace and authorizer resolved
 * by the caller).
 *
 * Order, as the reference: the policy's matchConstraints and the binding's matchResources
 * select the request; matchConditions may skip it (any false skips; an error with none false
 * is a failure); variables are computed in order (each may use the earlier ones); each
 * validation that is false yields its message (messageExpression's result, else message, else
 * `failed expression: <rule>`) and reason (default Invalid); auditAnnotations add values under
 * `<policy>/<key>`. An expression that errs (or runs out of the binding's cost budget) fails the
 * request when failurePolicy is Fail (the default) and is skipped when it is Ignore. The
 * binding's validationActions turn failures into a denial, warnings and audit annotations.
 */
import type { CompiledExpression, ExpressionCompiler, RequestCostBudget } from '../../cel/environment';
import { celEnvironment } from '../../cel/lazy';
import type { CelAuthorizer } from '../../cel/libraries/authorizer';
import { AUTHORIZER_VARIABLES } from '../../cel/libraries/request-authorizer';
import type { CelValue } from '../../cel/values';
import { admissionUserInfo } from './attributes';
import { matchResources } from './matching';
import type {
  AdmissionAttributes,
  ValidatingAdmissionPolicy,
  ValidatingAdmissionPolicyBinding,
  ValidationAction,
} from '../../../api/admissionregistration';

export const VALIDATION_FAILURE_AUDIT_KEY = 'validation.policy.admission.k8s.io/validation_failure';

const REASON_CODES: Readonly<Record<string, number>> = {
  Unauthorized: 401,
  Forbidden: 403,
  RequestEntityTooLarge: 413,
  Invalid: 422,
};

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

export interface PolicyDenial {
  readonly message: string;
  /** A Status reason and its HTTP code. */
  readonly reason: string;
  readonly code: number;
}

export interface PolicyOutcome {
  /** False when the request is outside the policy or binding, or a match condition skipped it. */
  readonly matched: boolean;
  readonly denial?: PolicyDenial;
  readonly warnings: readonly string[];
  /** The policy's auditAnnotations, by `<policy>/<key>`. */
  readonly auditAnnotations: Readonly<Record<string, string>>;
  /** With an Audit action and a failure: the value of `validation.policy.admission.k8s.io/validation_failure`. */
  readonly validationFailure?: string;
}

const NOT_MATCHED: PolicyOutcome = { matched: false, warnings: [], auditAnnotations: {} };

/** What messageExpressions see: as the reference, no `authorizer`. */
const MESSAGE_VARIABLES = {
  object: 'dyn',
  oldObject: 'dyn',
  request: 'dyn',
  params: 'dyn',
  namespaceObject: 'dyn',
  variables: 'map<string, dyn>',
} as const;

const POLICY_VARIABLES = { ...MESSAGE_VARIABLES, ...AUTHORIZER_VARIABLES } as const;

type Compiled =
  { readonly ok: true; readonly expression: CompiledExpression } | { readonly ok: false; readonly error: string };

type RunResult = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: string };

interface Failure {
  readonly message: string;
  readonly reason: string;
  readonly expressionIndex?: number;
}

/** A policy with its expressions compiled once, to evaluate for many requests and bindings. */
export class CompiledPolicy {
  private readonly compiler: ExpressionCompiler;
  private readonly messageCompiler: ExpressionCompiler;
  private readonly matchConditions: ReadonlyArray<{ name: string; compiled: Compiled }>;
  private readonly variables: ReadonlyArray<{ name: string; compiled: Compiled }>;
  private readonly validations: ReadonlyArray<{ rule: Compiled; message?: Compiled }>;
  private readonly auditAnnotations: ReadonlyArray<{ key: string; compiled: Compiled }>;

  constructor(readonly policy: ValidatingAdmissionPolicy) {
    const { ExpressionCompiler } = celEnvironment();
    this.compiler = new ExpressionCompiler(POLICY_VARIABLES);
    this.messageCompiler = new ExpressionCompiler(MESSAGE_VARIABLES);
    const spec = policy.spec;
    this.matchConditions = (spec.matchConditions ?? []).map(({ name, expression }) => ({
      name,
      compiled: this.compile(expression),
    }));
    this.variables = (spec.variables ?? []).map(({ name, expression }) => ({
      name,
      compiled: this.compile(expression),
    }));
    this.validations = (spec.validations ?? []).map((validation) => ({
      rule: this.compile(validation.expression),
      message: validation.messageExpression
        ? this.compile(validation.messageExpression, this.messageCompiler)
        : undefined,
    }));
    this.auditAnnotations = (spec.auditAnnotations ?? []).map(({ key, valueExpression }) => ({
      key,
      compiled: this.compile(valueExpression),
    }));
  }

  private compile(expression: string, compiler = this.compiler): Compiled {
    const result = compiler.compile(expression);
    return result.ok
      ? { ok: true, expression: result.compiled }
      : { ok: false, error: `compilation failed: ${result.error}` };
  }

  /** Whether the request falls under the policy's matchConstraints. */
  matchesPolicy(attributes: AdmissionAttributes, namespaceObject: PolicyInputs['namespaceObject']): boolean {
    return matchResources(this.policy.spec.matchConstraints, attributes, labelsOfNamespace(namespaceObject));
  }

  /** Whether the request falls under the binding's matchResources. */
  matchesBinding(
    binding: ValidatingAdmissionPolicyBinding,
    attributes: AdmissionAttributes,
    namespaceObject: PolicyInputs['namespaceObject'],
  ): boolean {
    return matchResources(binding.spec.matchResources, attributes, labelsOfNamespace(namespaceObject));
  }

  /** Whether the request falls under both. */
  matches(
    binding: ValidatingAdmissionPolicyBinding,
    attributes: AdmissionAttributes,
    namespaceObject: PolicyInputs['namespaceObject'],
  ): boolean {
    return this.matchesPolicy(attributes, namespaceObject) && this.matchesBinding(binding, attributes, namespaceObject);
  }

  async evaluate(binding: ValidatingAdmissionPolicyBinding, inputs: PolicyInputs): Promise<PolicyOutcome> {
    const { attributes } = inputs;
    if (!this.matches(binding, attributes, inputs.namespaceObject)) return NOT_MATCHED;

    const failClosed = (this.policy.spec.failurePolicy ?? 'Fail') === 'Fail';
    const { fromJson, RequestCostBudget } = celEnvironment();
    const budget = inputs.budget ?? new RequestCostBudget();
    const context: Record<string, CelValue> = {
      object: fromJson(attributes.object),
      oldObject: fromJson(attributes.oldObject),
      request: fromJson(requestValue(attributes)),
      params: fromJson(inputs.params),
      namespaceObject: fromJson(inputs.namespaceObject),
      variables: new Map<string, CelValue>(),
    };
    if (inputs.authorizer) context.authorizer = inputs.authorizer;

    const run = async (
      compiled: Compiled,
      source: string,
      on: Readonly<Record<string, CelValue>> = context,
    ): Promise<RunResult> => {
      if (!compiled.ok) return { ok: false, error: `expression '${source}' resulted in error: ${compiled.error}` };
      const result = await compiled.expression.evaluateAwaitingChecks(on, { budget });
      if (result.ok) return result;
      // Past the binding's budget nothing more runs; past one call's limit, that expression errs.
      const error =
        result.costExceeded && budget.remaining <= 0
          ? 'validation failed due to running out of cost budget, no further validation rules will be run'
          : `expression '${source}' resulted in error: ${result.error}`;
      return { ok: false, error };
    };

    // Match conditions: any false skips the policy; an error with none false is a failure.
    let conditionError: string | undefined;
    for (const [index, { name, compiled }] of this.matchConditions.entries()) {
      const result = await run(compiled, this.policy.spec.matchConditions![index].expression);
      if (result.ok && result.value === false) return NOT_MATCHED;
      if (!result.ok) conditionError ??= `failed to evaluate match condition '${name}': ${result.error}`;
      else if (result.value !== true) conditionError ??= `match condition '${name}' did not evaluate to a bool`;
    }
    const failures: Failure[] = [];
    if (conditionError !== undefined) {
      if (!failClosed) return NOT_MATCHED;
      failures.push({ message: conditionError, reason: 'Invalid' });
    }

    // Variables, in order; one that errs is left unset, so only the expressions using it fail.
    const computeVariables = async (on: Record<string, CelValue>): Promise<Record<string, CelValue>> => {
      const variables = new Map<string, CelValue>();
      on.variables = variables;
      for (const [index, { name, compiled }] of this.variables.entries()) {
        const result = await run(compiled, this.policy.spec.variables![index].expression, on);
        if (result.ok) variables.set(name, result.value as CelValue);
      }
      return on;
    };
    // Messages are evaluated without `authorizer`, so variables that ask it are unset there too
    // (the reference evaluates variables lazily, in the message's own activation).
    let messageContext: Promise<Record<string, CelValue>> | undefined;
    const runMessage = async (compiled: Compiled, source: string): Promise<RunResult> => {
      const { authorizer: _authorizer, ...withoutAuthorizer } = context;
      messageContext ??= computeVariables(withoutAuthorizer);
      return run(compiled, source, await messageContext);
    };

    if (failures.length === 0) {
      await computeVariables(context);

      for (const [index, { rule, message }] of this.validations.entries()) {
        if (budget.remaining <= 0) break;
        const validation = this.policy.spec.validations![index];
        const result = await run(rule, validation.expression);
        if (!result.ok) {
          if (failClosed) failures.push({ message: result.error, reason: 'Invalid', expressionIndex: index });
          continue;
        }
        if (result.value === true) continue;
        failures.push({
          message: await this.failureMessage(validation, message, runMessage),
          reason: validation.reason ?? 'Invalid',
          expressionIndex: index,
        });
      }
    }

    const auditAnnotations: Record<string, string> = {};
    for (const [index, { key, compiled }] of this.auditAnnotations.entries()) {
      if (budget.remaining <= 0) break;
      const result = await run(compiled, this.policy.spec.auditAnnotations![index].valueExpression);
      if (!result.ok) {
        if (failClosed) failures.push({ message: result.error, reason: 'Invalid' });
        continue;
      }
      // null or an empty string leaves the annotation out.
      if (typeof result.value === 'string' && result.value !== '')
        auditAnnotations[`${this.policy.metadata.name}/${key}`] = result.value;
    }

    return this.outcome(binding, failures, auditAnnotations);
  }

  private async failureMessage(
    validation: NonNullable<ValidatingAdmissionPolicy['spec']['validations']>[number],
    messageExpression: Compiled | undefined,
    run: (compiled: Compiled, source: string) => Promise<RunResult>,
  ): Promise<string> {
    if (messageExpression && validation.messageExpression) {
      const result = await run(messageExpression, validation.messageExpression);
      // A messageExpression that errs, or gives no usable text, falls back to message.
      if (result.ok && typeof result.value === 'string' && result.value.trim() !== '' && !/[\r\n]/.test(result.value)) {
        return result.value;
      }
    }
    return validation.message || `failed expression: ${validation.expression.trim()}`;
  }

  private outcome(
    binding: ValidatingAdmissionPolicyBinding,
    failures: readonly Failure[],
    auditAnnotations: Record<string, string>,
  ): PolicyOutcome {
    const policyName = this.policy.metadata.name;
    const bindingName = binding.metadata.name;
    const actions = new Set<ValidationAction>(binding.spec.validationActions);
    const warnings = actions.has('Warn')
      ? failures.map(
          (f) =>
            `Validation failed for ValidatingAdmissionPolicy '${policyName}' with binding '${bindingName}': ${f.message}`,
        )
      : [];
    const first = failures[0];
    // The reference writes each failure as a one-element list under the same key, and the
    // first written stays: the annotation tells the first failure.
    const validationFailure =
      actions.has('Audit') && first
        ? JSON.stringify([
            {
              message: first.message,
              policy: policyName,
              binding: bindingName,
              expressionIndex: first.expressionIndex ?? 0,
              validationActions: binding.spec.validationActions,
            },
          ])
        : undefined;
    const denial =
      actions.has('Deny') && first
        ? {
            message: `ValidatingAdmissionPolicy '${policyName}' with binding '${bindingName}' denied request: ${first.message}`,
            reason: first.reason,
            code: REASON_CODES[first.reason] ?? 422,
          }
        : undefined;
    return {
      matched: true,
      ...(denial ? { denial } : {}),
      warnings,
      auditAnnotations,
      ...(validationFailure ? { validationFailure } : {}),
    };
  }
}

/** The namespace's labels; undefined for a cluster-scoped request. */
function labelsOfNamespace(
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
