/**
 * Evaluation of a MutatingAdmissionPolicy through one of its bindings (and one param), as the
 * reference's dispatcher runs an invocation: the policy's matchConditions may skip it (any false
 * skips; an error with none false is a failure, or a skip under failurePolicy Ignore); then each
 * mutation in order, on the object as the mutations before it left it, with the policy's
 * variables computed again for it and a budget of its own. A mutation that fails (does not
 * compile, errs, or cannot be applied) is told and the next one runs: the plugin decides by the
 * failurePolicy what the failures do to the request.
 */
import type { KubeObject } from '../../../api/objects';
import type {
  AdmissionAttributes,
  MutatingAdmissionPolicy,
  MutatingAdmissionPolicyBinding,
} from '../../../api/admissionregistration';
import { celEnvironment } from '../../cel/lazy';
import { matchResources } from './matching';
import { compileMutation, type CompileMutationResult, type MutationResult } from './mutation';
import {
  OUT_OF_BUDGET,
  POLICY_VARIABLES,
  budgetedRunner,
  compileNamed,
  computeVariables,
  evaluateMatchConditions,
  labelsOfNamespace,
  policyContext,
  type NamedCompiled,
  type PolicyInputs,
} from './expressions';
import type { AppliedMutation } from './apply-mutation';
import { goAggregate } from '../../../api/go-json-syntax';

/** Applies one evaluated mutation to the object (the plugin knows the kind's schema and defaults). */
export type MutationApplier = (
  object: KubeObject,
  result: Extract<MutationResult, { ok: true }>,
) => Promise<AppliedMutation>;

export type MutatingOutcome =
  | { readonly skipped: true }
  /** `object`: the object after the mutations that succeeded; `errors`: the failures, in order. */
  | { readonly skipped: false; readonly object: KubeObject; readonly errors: readonly string[] };

const SKIPPED: MutatingOutcome = { skipped: true };

/** A policy with its expressions compiled once, to evaluate for many requests and bindings. */
export class CompiledMutatingPolicy {
  private readonly matchConditions: readonly NamedCompiled[];
  private readonly variables: readonly NamedCompiled[];
  private readonly mutations: readonly CompileMutationResult[];

  constructor(readonly policy: MutatingAdmissionPolicy) {
    const { ExpressionCompiler, mutationTypesLibrary } = celEnvironment();
    // Requests are admitted by policies already stored: the reference's StoredExpressions.
    const compiler = new ExpressionCompiler(POLICY_VARIABLES, { environment: 'stored' });
    const mutationCompiler = new ExpressionCompiler(POLICY_VARIABLES, {
      libraries: [mutationTypesLibrary()],
      environment: 'stored',
    });
    const spec = policy.spec;
    this.matchConditions = compileNamed(compiler, spec.matchConditions);
    this.variables = compileNamed(compiler, spec.variables);
    this.mutations = (spec.mutations ?? []).map((mutation) =>
      compileMutation(
        mutationCompiler,
        mutation.patchType,
        (mutation.patchType === 'JSONPatch' ? mutation.jsonPatch : mutation.applyConfiguration)?.expression ?? '',
      ),
    );
  }

  get failClosed(): boolean {
    return (this.policy.spec.failurePolicy ?? 'Fail') === 'Fail';
  }

  /** Whether the request falls under the policy's matchConstraints. */
  matchesPolicy(attributes: AdmissionAttributes, namespaceObject: PolicyInputs['namespaceObject']): boolean {
    return matchResources(this.policy.spec.matchConstraints, attributes, labelsOfNamespace(namespaceObject));
  }

  /** Whether the request falls under the binding's matchResources. */
  matchesBinding(
    binding: MutatingAdmissionPolicyBinding,
    attributes: AdmissionAttributes,
    namespaceObject: PolicyInputs['namespaceObject'],
  ): boolean {
    return matchResources(binding.spec.matchResources, attributes, labelsOfNamespace(namespaceObject));
  }

  /** Runs the mutations on `inputs.attributes.object` (which is not changed). */
  async mutate(inputs: PolicyInputs, apply: MutationApplier): Promise<MutatingOutcome> {
    const { RequestCostBudget } = celEnvironment();
    const conditionContext = policyContext(inputs);
    const conditions = await evaluateMatchConditions(
      this.matchConditions,
      budgetedRunner(inputs.budget ?? new RequestCostBudget()),
      conditionContext,
    );
    if (conditions.skip) return SKIPPED;
    if (conditions.failures.length > 0) {
      if (!this.failClosed) return SKIPPED;
      const texts = conditions.failures.map((failure) =>
        'error' in failure ? failure.error : `match condition '${failure.name}' did not evaluate to a bool`,
      );
      return { skipped: false, object: inputs.attributes.object as KubeObject, errors: [goAggregate(texts)] };
    }

    let object = inputs.attributes.object as KubeObject;
    const errors: string[] = [];
    for (const compiled of this.mutations) {
      if (!compiled.ok) {
        errors.push(compiled.error);
        continue;
      }
      // Each mutation sees the object as the ones before it left it, with a budget of its own.
      const budget = new RequestCostBudget();
      const run = budgetedRunner(budget);
      const context = policyContext({ ...inputs, attributes: { ...inputs.attributes, object } });
      await computeVariables(this.variables, run, context);
      const result = await compiled.mutation.evaluate(context, { budget });
      if (!result.ok) {
        errors.push(result.costExceeded && budget.remaining <= 0 ? OUT_OF_BUDGET : result.error);
        continue;
      }
      const applied = await apply(object, result);
      if (!applied.ok) {
        errors.push(applied.error);
        continue;
      }
      object = applied.object;
    }
    return { skipped: false, object, errors };
  }
}
