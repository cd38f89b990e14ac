/**
 * The ValidatingAdmissionPolicy plugin: every binding's policy is evaluated for every write it
 * matches (server/admission/policy/ holds the evaluation), and a Deny binding's failure refuses
 * the write with the reference's 422 (or the validation's reason). Policies and bindings are
 * read from the watch caches; a policy is compiled once per resourceVersion.
 *
 * Expressions' `authorizer` asks the server's authorizer on behalf of the requesting user.
 * Audit annotations (and the failures of Audit bindings) go into the request's audit event.
 *
 * Not yet: params (policies with paramKind are refused when created).
 */
import type { KubeObject } from '../../../storage/objects/types';
import { qualifiedResource } from '../../status/catalogue';
import { StatusError } from '../../status/status-error';
import { CompiledPolicy } from '../policy/evaluate';
import { matchingAttributes } from '../policy/attributes';
import type { ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding } from '../policy/types';
import { getCached, listCached, type StorageOf } from '../lookup';
import type { AdmissionPlugin } from '../types';
import type { Authorizer } from '../../authz/types';
import { celAuthorizationChecker } from '../../authz/cel-checker';
import { requestAuthorizer } from '../request-authorizer';

const GROUP = 'admissionregistration.k8s.io';

/** A policy's compiled form, kept while the policy is unchanged. */
interface CacheEntry {
  readonly resourceVersion: string | undefined;
  readonly compiled: CompiledPolicy;
}


export function validatingAdmissionPolicyPlugin(storageOf: StorageOf, authorizer: Authorizer): AdmissionPlugin {
  const checker = celAuthorizationChecker(authorizer);
  const compiledPolicies = new Map<string, CacheEntry>();

  const compiledFor = (policy: KubeObject): CompiledPolicy => {
    const name = String(policy.metadata.name);
    const cached = compiledPolicies.get(name);
    if (cached !== undefined && cached.resourceVersion === policy.metadata.resourceVersion) return cached.compiled;
    const compiled = new CompiledPolicy(policy as unknown as ValidatingAdmissionPolicy);
    compiledPolicies.set(name, { resourceVersion: policy.metadata.resourceVersion, compiled });
    return compiled;
  };

  return {
    name: 'ValidatingAdmissionPolicy',
    async validate(attributes) {
      // Policies never judge their own kinds, so a bad policy cannot lock out its own repair.
      if (attributes.resource.group === GROUP) return;
      const bindings = await listCached(storageOf(GROUP, 'validatingadmissionpolicybindings'));
      if (bindings.length === 0) return;
      const policies = storageOf(GROUP, 'validatingadmissionpolicies');
      const namespaceObject = attributes.namespace === '' ? null : ((await getCached(storageOf('', 'namespaces'), attributes.namespace)) ?? null);
      const request = matchingAttributes(attributes);
      const authorizerValue = requestAuthorizer(checker, request);
      for (const binding of bindings) {
        const policyName = (binding.spec as { policyName?: string } | undefined)?.policyName;
        const policy = policyName ? await getCached(policies, policyName) : undefined;
        if (policy === undefined) continue;
        const outcome = await compiledFor(policy).evaluate(binding as unknown as ValidatingAdmissionPolicyBinding, { attributes: request, namespaceObject, params: null, authorizer: authorizerValue });
        attributes.warnings.push(...outcome.warnings);
        Object.assign(attributes.auditAnnotations, outcome.auditAnnotations);
        if (outcome.denial === undefined) continue;
        const subject = attributes.name ? `${qualifiedResource(attributes.resource)} "${attributes.name}"` : qualifiedResource(attributes.resource);
        throw new StatusError({
          code: outcome.denial.code,
          reason: outcome.denial.reason,
          message: `${subject} is forbidden: ${outcome.denial.message}`,
          details: {
            name: attributes.name,
            group: attributes.resource.group,
            kind: attributes.resource.resource,
            causes: [{ message: outcome.denial.message }],
          },
        });
      }
    },
  };
}
