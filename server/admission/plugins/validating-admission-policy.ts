/**
 * The ValidatingAdmissionPolicy plugin: every binding's policy is evaluated for every write it
 * matches (server/admission/policy/ holds the evaluation), once per param object the binding
 * selects, in the version the policy's matchConstraints match (under Equivalent, another
 * version the resource is served in, with the objects converted to it), and a Deny binding's
 * failure refuses the write with the reference's 422 (or the validation's reason). Policies, bindings and params are read from the watch caches; a policy
 * is compiled once per resourceVersion, and forgotten once no binding reaches it.
 *
 * A policy or binding that cannot be configured (its paramKind not served, its params missing
 * under `Deny`) refuses the write when the policy's failurePolicy is Fail, whatever the
 * binding's actions, as the reference does.
 *
 * Expressions' `authorizer` asks the server's authorizer on behalf of the requesting user.
 * Audit annotations are written into the request's record as the reference writes them: the
 * first Audit failure under `validation.policy.admission.k8s.io/validation_failure`, and each
 * policy's `<policy>/<key>` with its distinct values joined by ", ".
 */
import { qualifiedResource } from '../../../api/identity';
import { StatusError } from '../../status/status-error';
import { CompiledPolicy, VALIDATION_FAILURE_AUDIT_KEY, type PolicyDenial } from '../policy/evaluate';
import { matchingAttributes } from '../policy/attributes';
import { collectParams, type ParamKindLookup } from '../policy/params';
import type { ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding } from '../../../api/admissionregistration';
import { getCached, listCached, type StorageOf } from '../lookup';
import type { AdmissionAttributes, AdmissionPlugin } from '../types';
import type { Authorizer } from '../../authz/types';
import { celAuthorizationChecker } from '../../authz/cel-checker';
import { requestAuthorizer } from '../../cel/libraries/request-authorizer';
import { viewIn, type ServedTypeLookup } from '../webhook/versions';
import { bindingsByPolicy, CompiledPolicies, matchingPolicies } from '../policy/policy-source';

const GROUP = 'admissionregistration.k8s.io';

export interface ValidatingAdmissionPolicyPlugin extends AdmissionPlugin {
  /** How many compiled policies are kept (for tests: the cache must not outgrow the policies in use). */
  readonly compiledPolicyCount: () => number;
}

function refusal(attributes: AdmissionAttributes, denial: PolicyDenial): StatusError {
  const subject = attributes.name
    ? `${qualifiedResource(attributes.resource)} "${attributes.name}"`
    : qualifiedResource(attributes.resource);
  return new StatusError({
    code: denial.code,
    reason: denial.reason,
    message: `${subject} is forbidden: ${denial.message}`,
    details: {
      name: attributes.name,
      group: attributes.resource.group,
      kind: attributes.resource.resource,
      causes: [{ message: denial.message }],
    },
  });
}

export function validatingAdmissionPolicyPlugin(
  storageOf: StorageOf,
  authorizer: Authorizer,
  paramKinds: ParamKindLookup,
  servedType: ServedTypeLookup,
): ValidatingAdmissionPolicyPlugin {
  const checker = celAuthorizationChecker(authorizer);
  const compiledPolicies = new CompiledPolicies(
    (policy) => new CompiledPolicy(policy as unknown as ValidatingAdmissionPolicy),
  );

  return {
    name: 'ValidatingAdmissionPolicy',
    compiledPolicyCount: () => compiledPolicies.size,
    async validate(attributes) {
      // Policies never judge their own kinds, so a bad policy cannot lock out its own repair.
      if (attributes.resource.group === GROUP) return;
      const bindings = await listCached(storageOf(GROUP, 'validatingadmissionpolicybindings'));
      // A policy judges only through its bindings: with none, nothing else need be read.
      if (bindings.length === 0) return;
      const policies = storageOf(GROUP, 'validatingadmissionpolicies');
      const bound = bindingsByPolicy<ValidatingAdmissionPolicyBinding>(bindings);
      const namespaceObject =
        attributes.namespace === ''
          ? null
          : ((await getCached(storageOf('', 'namespaces'), attributes.namespace)) ?? null);
      const authorizerValue = requestAuthorizer(checker, matchingAttributes(attributes));
      let denial: PolicyDenial | undefined;
      const matches = matchingPolicies({
        bound,
        policies,
        compiled: compiledPolicies,
        attributes,
        namespaceObject,
        servedType,
      });
      // Each in the version it matches the request in (matchPolicy); its objects are shown in it.
      for await (const { name: policyName, compiled, version, bindings: policyBindings } of matches) {
        const request = matchingAttributes({ ...attributes, ...(await viewIn(attributes, version, servedType)) });
        const failClosed = (compiled.policy.spec.failurePolicy ?? 'Fail') === 'Fail';
        // The policy's audit annotations: distinct values per key, over its bindings and params.
        const annotationValues = new Map<string, string[]>();
        for (const binding of policyBindings) {
          if (!compiled.matchesBinding(binding, request, namespaceObject)) continue;
          const collected = await collectParams(compiled.policy, binding, attributes.namespace, paramKinds);
          if (!collected.ok) {
            if (!failClosed) continue;
            const subject =
              collected.scope === 'policy'
                ? `ValidatingAdmissionPolicy '${policyName}'`
                : `ValidatingAdmissionPolicy '${policyName}' with binding '${binding.metadata.name}'`;
            denial ??= {
              message: `${subject} denied request: failed to configure ${collected.scope}: ${collected.error}`,
              reason: 'Invalid',
              code: 422,
            };
            continue;
          }
          for (const params of collected.params) {
            const outcome = await compiled.evaluate(binding, {
              attributes: request,
              namespaceObject,
              params,
              authorizer: authorizerValue,
            });
            for (const warning of outcome.warnings) attributes.warnings.add(warning);
            denial ??= outcome.denial;
            if (outcome.validationFailure !== undefined)
              attributes.auditAnnotations[VALIDATION_FAILURE_AUDIT_KEY] ??= outcome.validationFailure;
            for (const [key, value] of Object.entries(outcome.auditAnnotations)) {
              const values = annotationValues.get(key) ?? [];
              if (!values.includes(value)) annotationValues.set(key, [...values, value]);
            }
          }
        }
        // As the reference's AddAnnotation: the first value written under a key stays.
        for (const [key, values] of annotationValues) attributes.auditAnnotations[key] ??= values.join(', ');
      }
      if (denial !== undefined) throw refusal(attributes, denial);
    },
  };
}
