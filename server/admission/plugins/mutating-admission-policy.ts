/**
 * The MutatingAdmissionPolicy plugin (admissionregistration.k8s.io v1beta1/v1alpha1), as the
 * reference's dispatcher runs it on CREATE, UPDATE and CONNECT: every binding's policy that
 * matches the write (matchConstraints, then the binding's matchResources, in the version the
 * policy matches it in, as ValidatingAdmissionPolicy does) is invoked once per param object the
 * binding selects, policies in the order of their names; each invocation's mutations change the
 * object in turn (server/admission/policy/mutating-policy.ts), the result defaulted as the
 * kind's decoding would default it.
 *
 * Failures (a mutation that errs or cannot be applied, a matchCondition that errs, params that
 * cannot be collected) refuse the write when the policy's failurePolicy is Fail, and are
 * dropped under Ignore, as the reference's: a 403 whose reason is Invalid (Forbidden when the
 * first failure is the configuration's: params), the first failure's `policy '<p>' with binding
 * '<b>' denied request: ...` as its message, and every failure a cause.
 * The object is then validated as any other, so a mutation that makes it invalid is refused by
 * the kind's validation.
 *
 * Reinvocation, as the reference's: an invocation that changed the object makes the earlier
 * IfNeeded invocations (policy, binding and param) due again, and the chain makes a second pass
 * in which only those run; a change made between the passes by a later plugin makes all of
 * them due.
 */
import type { GroupVersion } from '../../../api/identity';
import type { MutatingAdmissionPolicy, MutatingAdmissionPolicyBinding } from '../../../api/admissionregistration';
import { StatusError } from '../../status/status-error';
import { deepEqual } from '../../status/field-errors';
import { rootSchemaNode } from '../../apply/schema-node';
import { definitionsOfType, typedForKind } from '../../registry/type-definitions';
import { schemaData } from '../../schema/definitions';
import type { Definitions } from '../../validation/decode';
import { CompiledMutatingPolicy, type MutationApplier } from '../policy/mutating-policy';
import { applyConfiguration, applyJsonPatchMutation, type AppliedMutation } from '../policy/apply-mutation';
import { matchingAttributes } from '../policy/attributes';
import { collectParams, type ParamKindLookup } from '../policy/params';
import { getCached, listCached, type StorageOf } from '../lookup';
import {
  newReinvocationRecord,
  replaceObject,
  requireReinvokingPreviouslyInvoked,
  type AdmissionAttributes,
  type AdmissionPlugin,
  type ReinvocationRecord,
} from '../types';
import type { Authorizer } from '../../authz/types';
import type { ObjectStorage } from '../../../storage/objects/types';
import { celAuthorizationChecker } from '../../authz/cel-checker';
import { requestAuthorizer } from '../../cel/libraries/request-authorizer';
import { convertObject, viewIn, type ServedTypeLookup } from '../webhook/versions';
import { bindingsByPolicy, CompiledPolicies, matchingPolicies } from '../policy/policy-source';
import { compareStrings } from '../../string-order';

const PLUGIN_NAME = 'MutatingAdmissionPolicy';
const GROUP = 'admissionregistration.k8s.io';
/** The versions the kinds may be served in, preferred first (either holds the same fields). */
const VERSIONS = ['v1beta1', 'v1alpha1'];

export interface MutatingAdmissionPolicyDependencies {
  readonly storageOf: StorageOf;
  readonly authorizer: Authorizer;
  /** The served kinds: the policies' and bindings' own, and the policies' paramKinds. */
  readonly servedKinds: ParamKindLookup;
  readonly servedType: ServedTypeLookup;
}

interface PolicyFailure {
  readonly policy: string;
  readonly binding?: string;
  readonly message: string;
  /** Invalid for what the policy's expressions did; Forbidden (the refusal's own) for its configuration. */
  readonly reason: 'Invalid' | 'Forbidden';
}

function failureText({ policy, binding, message }: PolicyFailure): string {
  return binding === undefined
    ? `policy ${JSON.stringify(policy)} denied request: ${message}`
    : `policy '${policy}' with binding '${binding}' denied request: ${message}`;
}

function refusal(attributes: AdmissionAttributes, failures: readonly PolicyFailure[]): StatusError {
  const texts = failures.map(failureText);
  return new StatusError({
    code: 403,
    reason: failures[0].reason,
    message: texts[0],
    details: {
      name: attributes.name,
      group: attributes.resource.group,
      kind: attributes.resource.resource,
      causes: texts.map((message) => ({ message })),
    },
  });
}

export function mutatingAdmissionPolicyPlugin(dependencies: MutatingAdmissionPolicyDependencies): AdmissionPlugin {
  const { storageOf, servedKinds, servedType } = dependencies;
  const checker = celAuthorizationChecker(dependencies.authorizer);
  const compiledPolicies = new CompiledPolicies(
    (policy) => new CompiledMutatingPolicy(policy as unknown as MutatingAdmissionPolicy),
  );

  const storageOfKind = (kind: string): ObjectStorage | undefined => {
    for (const version of VERSIONS) {
      const served = servedKinds({ group: GROUP, version, kind });
      if (served !== undefined) return served.storage;
    }
    return undefined;
  };

  /** Applies mutations to objects of `version` of the request's resource, then defaults them as decoding does. */
  const applierFor = (attributes: AdmissionAttributes, version: GroupVersion): MutationApplier => {
    const resource = { ...version, resource: attributes.resource.resource };
    const type = servedType(resource);
    const definition = type?.versions.find((served) => served.version === version.version)?.definition;
    const definitions = type && definitionsOfType(schemaData().definitions as unknown as Definitions, type);
    const schema = type && rootSchemaNode(definitions, definition);
    // An applied configuration's nulls read as the reference's conversion to the kind's type reads
    // them (a custom resource's schema defaulting decides its own).
    const typed = (applied: AppliedMutation): AppliedMutation =>
      applied.ok && type !== undefined
        ? { ok: true, object: typedForKind(definitions, type, definition, applied.object).object }
        : applied;
    return async (object, result) => {
      const applied =
        result.patchType === 'ApplyConfiguration'
          ? typed(applyConfiguration(object, result.applyConfiguration, schema))
          : applyJsonPatchMutation(object, result.operations);
      if (applied.ok) type?.strategy.applyDefaults?.(applied.object, version.version);
      return applied;
    };
  };

  return {
    name: PLUGIN_NAME,
    reinvocable: true,
    async admit(attributes, reinvocation) {
      // Nothing to mutate on DELETE; the policies' own kinds are never mutated, so that a bad
      // policy cannot block its own repair.
      if (attributes.operation === 'DELETE' || attributes.object === undefined) return;
      if (attributes.resource.group === GROUP) return;
      const policies = storageOfKind('MutatingAdmissionPolicy');
      const bindingStorage = storageOfKind('MutatingAdmissionPolicyBinding');
      if (policies === undefined || bindingStorage === undefined) return;
      const bindings = await listCached(bindingStorage);
      if (bindings.length === 0) return;
      const bound = bindingsByPolicy<MutatingAdmissionPolicyBinding>(bindings);

      const record = reinvocation.stateOf<ReinvocationRecord>(PLUGIN_NAME, newReinvocationRecord);
      const isReinvoke = reinvocation.isReinvoke;
      // A plugin after this one changed the object: every IfNeeded invocation is due.
      if (isReinvoke && !deepEqual(record.lastOutput, attributes.object)) requireReinvokingPreviouslyInvoked(record);

      const namespaceObject =
        attributes.namespace === '' ||
        (attributes.resource.group === '' && attributes.resource.resource === 'namespaces')
          ? null
          : ((await getCached(storageOf('', 'namespaces'), attributes.namespace)) ?? null);
      const authorizerValue = requestAuthorizer(checker, matchingAttributes(attributes));
      const failures: PolicyFailure[] = [];

      const matches = matchingPolicies({
        bound,
        names: [...bound.keys()].sort(compareStrings),
        policies,
        compiled: compiledPolicies,
        attributes,
        namespaceObject,
        servedType,
      });
      for await (const { name: policyName, compiled, version, bindings: policyBindings } of matches) {
        const apply = applierFor(attributes, version);
        for (const binding of [...policyBindings].sort((a, b) => compareStrings(a.metadata.name, b.metadata.name))) {
          const viewed = await viewIn(attributes, version, servedType);
          if (!compiled.matchesBinding(binding, matchingAttributes({ ...attributes, ...viewed }), namespaceObject))
            continue;
          const collected = await collectParams(compiled.policy, binding, attributes.namespace, servedKinds);
          if (!collected.ok) {
            if (compiled.failClosed)
              failures.push({
                policy: policyName,
                ...(collected.scope === 'binding' ? { binding: binding.metadata.name } : {}),
                message: `failed to configure ${collected.scope}: ${collected.error}`,
                reason: 'Forbidden',
              });
            continue;
          }
          for (const params of collected.params) {
            const key = JSON.stringify([
              policyName,
              binding.metadata.name,
              (params?.metadata as { namespace?: string } | undefined)?.namespace ?? '',
              (params?.metadata as { name?: string } | undefined)?.name ?? '',
            ]);
            if (isReinvoke && !record.due.has(key)) continue;
            // The object as the invocations before this one left it, in the policy's version.
            const current = await viewIn(attributes, version, servedType);
            const outcome = await compiled.mutate(
              {
                attributes: matchingAttributes({ ...attributes, ...current }),
                namespaceObject,
                params,
                authorizer: authorizerValue,
              },
              apply,
            );
            if (outcome.skipped) continue;
            if (compiled.failClosed)
              for (const message of outcome.errors)
                failures.push({ policy: policyName, binding: binding.metadata.name, message, reason: 'Invalid' });
            if (!deepEqual(outcome.object, current.object)) {
              const back = await convertObject(servedType(current.resource), outcome.object, attributes.kind);
              replaceObject(attributes, { ...back, kind: attributes.kind.kind });
              requireReinvokingPreviouslyInvoked(record);
              reinvocation.shouldReinvoke = true;
            }
            if (compiled.policy.spec.reinvocationPolicy === 'IfNeeded') record.previouslyInvoked.add(key);
          }
        }
      }
      record.lastOutput = structuredClone(attributes.object);
      if (failures.length > 0) throw refusal(attributes, failures);
    },
  };
}
