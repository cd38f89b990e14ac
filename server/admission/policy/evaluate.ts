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
import type { ExpressionCompiler } from '../../cel/environment';
import { celEnvironment } from '../../cel/lazy';
import type { CelValue } from '../../cel/values';
import { matchResources } from './matching';
import {
  MESSAGE_VARIABLES,
  POLICY_VARIABLES,
  budgetedRunner,
  compileExpression,
  compileNamed,
  computeVariables,
  evaluateMatchConditions,
  labelsOfNamespace,
  policyContext,
  type Compiled,
  type NamedCompiled,
  type PolicyInputs,
  type RunResult,
} from './expressions';
import type {
  AdmissionAttributes,
  ValidatingAdmissionPolicy,
  ValidatingAdmissionPolicyBinding,
  ValidationAction,
} from '../../../api/admissionregistration';

export type { PolicyInputs } from './expressions';

export const VALIDATION_FAILURE_AUDIT_KEY = 'validation.policy.admission.k8s.io/validation_failure';

const REASON_CODES: Readonly<Record<string, number>> = {
  Unauthorized: 401,
  Forbidden: 403,
  RequestEntityTooLarge: 413,
  Invalid: 422,
};

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

interface Failure {
  readonly message: string;
  readonly reason: string;
  readonly expressionIndex?: number;
}

/** A policy with its expressions compiled once, to evaluate for many requests and bindings. */
export class CompiledPolicy {
  private readonly compiler: ExpressionCompiler;
  private readonly messageCompiler: ExpressionCompiler;
  private readonly matchConditions: readonly NamedCompiled[];
  private readonly variables: readonly NamedCompiled[];
  private readonly validations: ReadonlyArray<{ rule: Compiled; message?: Compiled }>;
  private readonly auditAnnotations: ReadonlyArray<{ key: string; compiled: Compiled }>;

  constructor(readonly policy: ValidatingAdmissionPolicy) {
    const { ExpressionCompiler } = celEnvironment();
    // Requests are admitted by policies already stored: the reference's StoredExpressions.
    this.compiler = new ExpressionCompiler(POLICY_VARIABLES, { environment: 'stored' });
    this.messageCompiler = new ExpressionCompiler(MESSAGE_VARIABLES, { environment: 'stored' });
    const spec = policy.spec;
    this.matchConditions = compileNamed(this.compiler, spec.matchConditions);
    this.variables = compileNamed(this.compiler, spec.variables);
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
    return compileExpression(compiler, expression);
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
    const { RequestCostBudget } = celEnvironment();
    const budget = inputs.budget ?? new RequestCostBudget();
    const context = policyContext(inputs);
    const runOn = budgetedRunner(budget);
    const run = (compiled: Compiled, source: string, on: Readonly<Record<string, CelValue>> = context) =>
      runOn(compiled, source, on);

    // Match conditions: any false skips the policy; an error with none false is a failure.
    const conditions = await evaluateMatchConditions(this.matchConditions, runOn, context);
    if (conditions.skip) return NOT_MATCHED;
    const failures: Failure[] = [];
    const conditionFailure = conditions.failures[0];
    if (conditionFailure !== undefined) {
      if (!failClosed) return NOT_MATCHED;
      const message =
        'error' in conditionFailure
          ? `failed to evaluate match condition '${conditionFailure.name}': ${conditionFailure.error}`
          : `match condition '${conditionFailure.name}' did not evaluate to a bool`;
      failures.push({ message, reason: 'Invalid' });
    }

    // Messages are evaluated without `authorizer`, so variables that ask it are unset there too
    // (the reference evaluates variables lazily, in the message's own activation).
    let messageContext: Promise<Record<string, CelValue>> | undefined;
    const runMessage = async (compiled: Compiled, source: string): Promise<RunResult> => {
      const { authorizer: _authorizer, ...withoutAuthorizer } = context;
      messageContext ??= computeVariables(this.variables, runOn, withoutAuthorizer);
      return run(compiled, source, await messageContext);
    };

    if (failures.length === 0) {
      await computeVariables(this.variables, runOn, context);

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
