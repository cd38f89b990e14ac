/**
 * admissionregistration.k8s.io: ValidatingAdmissionPolicy and its binding (v1), enforced by the
 * ValidatingAdmissionPolicy admission plugin; the two webhook configurations (v1), called by the
 * Mutating/ValidatingAdmissionWebhook plugins (server/admission/webhook/); and
 * MutatingAdmissionPolicy and its binding (v1beta1, v1alpha1), enforced by the
 * MutatingAdmissionPolicy plugin.
 */
import type { KubeObject } from '../../../api/objects';
import { deepEqual, duplicate, FieldPath, forbidden, invalid, notSupported, required } from '../../status/field-errors';
import { validateNamedRuleWithOperations, type NamedRuleWithOperations } from '../../validation/admission-rules';
import { validateLabelSelector, type LabelSelectorShape } from '../../validation/object-meta';
import { isDNS1035Label, isDNS1123Subdomain, isValidPathSegmentName } from '../../validation/names';
import { FAILURE_POLICIES, MATCH_POLICIES, present, REINVOCATION_POLICIES } from './admission-values';
import { validateWebhooks } from './webhook-configurations';
import { child, fill, items, type Json } from '../defaults/fill';
import type { FieldError, ResourceType } from '../types';
import { defineKind } from './define';
import {
  NO_PREEXISTING_POLICY_EXPRESSIONS,
  policyExpressionChecks,
  preexistingMutatingPolicyExpressions,
  preexistingPolicyExpressions,
  validatePolicyExpressions,
  type PolicyExpressionChecks,
  type PolicyExpressionsSpec,
  type PreexistingPolicyExpressions,
} from '../../validation/admission-cel/expression-validation';
import { schemaOfDefinition } from '../../validation/admission-cel/kind-schemas';
import type {
  MutatingAdmissionPolicySpec,
  ValidatingAdmissionPolicySpec,
  ValidatingAdmissionPolicyStatus,
} from '../../../api/admissionregistration';
import { validateValidatingAdmissionPolicyStatus } from '../../validation/admission-policy-status';
import { schemaData } from '../../schema/definitions';
import {
  admissionPolicyBindingPrinter,
  mutatingAdmissionPolicyPrinter,
  validatingAdmissionPolicyPrinter,
  webhookConfigurationPrinter,
} from '../../table/admin-printers';
import { RESET_OBJECT_META_FOR_STATUS } from '../strategy';
import { METADATA_AND_SPEC } from '../reset-fields';

const GROUP = 'admissionregistration.k8s.io';

/** matchConstraints / matchResources as the reference defaults them. */
function defaultMatchResources(match: Json): void {
  fill(match, 'matchPolicy', 'Equivalent');
  fill(match, 'namespaceSelector', {});
  fill(match, 'objectSelector', {});
  for (const rules of ['resourceRules', 'excludeResourceRules'])
    for (const rule of items(match, rules)) fill(rule, 'scope', '*');
}

/** Go's sets.String.List(): the supported values of each field, sorted. */
const MUTATING_OPERATIONS = ['*', 'CONNECT', 'CREATE', 'UPDATE'];
const PATCH_TYPES = ['ApplyConfiguration', 'JSONPatch'];

/** The reference's validateMatchResources. */
function validateMatchResources(match: Json, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  if (!present(match.matchPolicy)) errors.push(required(path.child('matchPolicy')));
  else if (!MATCH_POLICIES.includes(match.matchPolicy as unknown as string))
    errors.push(notSupported(path.child('matchPolicy'), match.matchPolicy, MATCH_POLICIES));
  for (const selector of ['namespaceSelector', 'objectSelector']) {
    if (!present(match[selector])) errors.push(required(path.child(selector)));
    // Strictly, values included: these kinds came after selectors with invalid values were refused.
    else
      errors.push(
        ...validateLabelSelector(match[selector] as LabelSelectorShape, path.child(selector), {
          allowInvalidLabelValues: false,
        }),
      );
  }
  for (const rules of ['resourceRules', 'excludeResourceRules'])
    items(match, rules).forEach((rule, i) =>
      errors.push(...validateNamedRuleWithOperations(rule as NamedRuleWithOperations, path.child(rules).index(i))),
    );
  return errors;
}

/** Deletes cannot be mutated (connects pass, as in the reference). */
function validateMutatingOperations(match: Json, path: FieldPath): FieldError[] {
  return items(match, 'resourceRules').flatMap((rule) =>
    ((rule.operations ?? []) as string[])
      .filter((operation) => !MUTATING_OPERATIONS.includes(operation))
      .map((operation) => notSupported(path.child('resourceRules', 'operations'), operation, MUTATING_OPERATIONS)),
  );
}

/** What each patch type's expression must give. */
const MUTATION_RESULT_TYPES: Readonly<Record<string, readonly string[]>> = {
  ApplyConfiguration: ['Object'],
  JSONPatch: ['list<JSONPatch>'],
};

function validateMutation(
  mutation: Json,
  path: FieldPath,
  checks: PolicyExpressionChecks,
  preexisting: PreexistingPolicyExpressions,
): FieldError[] {
  const errors: FieldError[] = [];
  const patchType = mutation.patchType;
  const given = (field: string) => present(mutation[field]);
  const expressionOf = (field: string) => {
    const expression = (mutation[field] as Json).expression;
    const at = path.child(field, 'expression');
    return typeof expression === 'string' && expression.trim() !== ''
      ? checks.expression(
          'mutations',
          at,
          expression,
          MUTATION_RESULT_TYPES[patchType as unknown as string],
          field === 'jsonPatch' ? preexisting.jsonPatches : preexisting.applyConfigurations,
        )
      : [required(at)];
  };
  if (!patchType) errors.push(required(path.child('patchType')));
  else if (patchType === 'JSONPatch' || patchType === 'ApplyConfiguration') {
    const [own, other] =
      patchType === 'JSONPatch' ? ['jsonPatch', 'applyConfiguration'] : ['applyConfiguration', 'jsonPatch'];
    if (!given(own)) errors.push(required(path.child(own), `must be specified when patchType is ${patchType}`));
    else errors.push(...expressionOf(own));
    if (given(other))
      errors.push(invalid(path.child(other), `{${other}}`, `must not be specified when patchType is ${patchType}`));
  } else errors.push(notSupported(path.child('patchType'), patchType, PATCH_TYPES));
  return errors;
}

/**
 * What both policy kinds' specs begin with, in the reference's order: the failure policy, the
 * param kind, and the match constraints with at least one resource rule (`kindChecks`: what the
 * kind adds to the constraints).
 */
function validatePolicyScope(
  spec: Json,
  path: FieldPath,
  kindChecks: (match: Json, path: FieldPath) => FieldError[] = () => [],
): FieldError[] {
  const errors: FieldError[] = [];
  if (!present(spec.failurePolicy)) errors.push(required(path.child('failurePolicy')));
  else if (!FAILURE_POLICIES.includes(spec.failurePolicy as unknown as string))
    errors.push(notSupported(path.child('failurePolicy'), spec.failurePolicy, FAILURE_POLICIES));
  if (present(spec.paramKind)) errors.push(...validateParamKindFields(spec.paramKind, path.child('paramKind')));
  if (!present(spec.matchConstraints)) errors.push(required(path.child('matchConstraints')));
  else {
    const match = spec.matchConstraints;
    errors.push(...validateMatchResources(match, path.child('matchConstraints')));
    if (items(match, 'resourceRules').length === 0)
      errors.push(required(path.child('matchConstraints', 'resourceRules')));
    errors.push(...kindChecks(match, path.child('matchConstraints')));
  }
  return errors;
}

/** A binding's policy name: a DNS subdomain, as policies' names are. */
function validatePolicyName(spec: Json, path: FieldPath): FieldError[] {
  if (!spec.policyName) return [required(path.child('policyName'))];
  return isDNS1123Subdomain(spec.policyName as string).map((message) =>
    invalid(path.child('policyName'), spec.policyName, message),
  );
}

/**
 * The reference's rules for a MutatingAdmissionPolicy, in its order; `preexisting`, on an update,
 * the old policy's expressions.
 */
function validateMutatingPolicy(
  policy: KubeObject,
  preexisting: PreexistingPolicyExpressions = NO_PREEXISTING_POLICY_EXPRESSIONS,
  ignoreMatchConditions = false,
): FieldError[] {
  const spec = (policy.spec ?? {}) as Json;
  const path = FieldPath.root('spec');
  const errors: FieldError[] = [];
  const checks = policyExpressionChecks(spec as PolicyExpressionsSpec, namespaceSchema(), preexisting);
  errors.push(...validatePolicyScope(spec, path, validateMutatingOperations));
  if (!ignoreMatchConditions) errors.push(...checks.matchConditions());
  errors.push(...checks.variables());
  const mutations = items(spec, 'mutations');
  if (mutations.length === 0)
    errors.push(required(path.child('mutations'), 'mutations must contain at least one item'));
  mutations.forEach((mutation, i) =>
    errors.push(...validateMutation(mutation, path.child('mutations').index(i), checks, preexisting)),
  );
  if (!spec.reinvocationPolicy) errors.push(required(path.child('reinvocationPolicy')));
  else if (!REINVOCATION_POLICIES.includes(spec.reinvocationPolicy as string))
    errors.push(notSupported(path.child('reinvocationPolicy'), spec.reinvocationPolicy, REINVOCATION_POLICIES));
  return errors;
}

function validateMutatingBinding(binding: KubeObject): FieldError[] {
  const spec = (binding.spec ?? {}) as Json;
  const path = FieldPath.root('spec');
  const errors = validatePolicyName(spec, path);
  if (present(spec.paramRef)) errors.push(...validateParamRef(spec.paramRef, path.child('paramRef')));
  if (present(spec.matchResources)) {
    errors.push(...validateMatchResources(spec.matchResources, path.child('matchResources')));
    errors.push(...validateMutatingOperations(spec.matchResources, path.child('matchResources')));
  }
  return errors;
}

/** A policy of either kind: its failure policy, and its matchConstraints when it has them (absent, they are refused). */
function defaultPolicy(policy: KubeObject): void {
  const spec = child(policy as Json, 'spec');
  fill(spec, 'failurePolicy', 'Fail');
  if (present(spec.matchConstraints)) defaultMatchResources(spec.matchConstraints);
}

/** A policy binding of either kind: its matchResources, when it has them. */
function defaultBinding(binding: KubeObject): void {
  const spec = child(binding as Json, 'spec');
  if (spec.matchResources !== undefined && spec.matchResources !== null)
    defaultMatchResources(spec.matchResources as Json);
}

/**
 * A policy's paramKind: an apiVersion of a DNS-subdomain group and a DNS-label version (as an
 * APIService's), and a kind that is a DNS label but for its case.
 */
function validateParamKindFields(paramKind: Json, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const apiVersion = paramKind.apiVersion as unknown as string | undefined;
  const versionPath = path.child('apiVersion');
  if (!apiVersion) errors.push(required(versionPath));
  else {
    const slashes = apiVersion === '/' ? 0 : apiVersion.split('/').length - 1;
    if (slashes > 1) errors.push(invalid(versionPath, apiVersion, `unexpected GroupVersion string: ${apiVersion}`));
    else {
      const [group, version] = apiVersion === '/' ? ['', ''] : slashes === 0 ? ['', apiVersion] : apiVersion.split('/');
      const groupProblems = group === '' ? [] : isDNS1123Subdomain(group);
      if (groupProblems.length > 0) errors.push(invalid(versionPath, group, groupProblems.join(',')));
      if (version === '') errors.push(invalid(versionPath, apiVersion, 'version must be specified'));
      else {
        const versionProblems = isDNS1035Label(version);
        if (versionProblems.length > 0) errors.push(invalid(versionPath, version, versionProblems.join(',')));
      }
    }
  }
  const kind = paramKind.kind as unknown as string | undefined;
  if (!kind) errors.push(required(path.child('kind')));
  else {
    const kindProblems = isDNS1035Label(kind.toLowerCase());
    if (kindProblems.length > 0)
      errors.push(
        invalid(path.child('kind'), kind, `may have mixed case, but should otherwise match: ${kindProblems.join(',')}`),
      );
  }
  return errors;
}

/** The `namespaceObject` policies' expressions see. */
function namespaceSchema() {
  return schemaOfDefinition(schemaData().definitions, 'io.k8s.api.core.v1.Namespace');
}

/** A ValidatingAdmissionPolicy; on an update, `old` is the stored one. */
function validatePolicy(policy: KubeObject, old?: KubeObject): FieldError[] {
  const spec = (policy.spec ?? {}) as Json;
  const errors = validatePolicyScope(spec, FieldPath.root('spec'));
  const oldSpec = old?.spec as ValidatingAdmissionPolicySpec | undefined;
  errors.push(
    ...validatePolicyExpressions(
      spec as ValidatingAdmissionPolicySpec,
      namespaceSchema(),
      oldSpec === undefined ? NO_PREEXISTING_POLICY_EXPRESSIONS : preexistingPolicyExpressions(oldSpec),
      {
        name: policy.metadata.name ?? '',
        ignoreMatchConditions: old !== undefined && sameMatchConditionScope(policy, old),
      },
    ),
  );
  return errors;
}

/**
 * Whether an update leaves a policy's match conditions and param kind as stored: its conditions
 * then go unchecked, as the reference decides (nothing they compile against has changed).
 */
function sameMatchConditionScope(policy: KubeObject, old: KubeObject): boolean {
  const [spec, oldSpec] = [(policy.spec ?? {}) as Json, (old.spec ?? {}) as Json];
  return (
    deepEqual(spec.paramKind ?? null, oldSpec.paramKind ?? null) &&
    deepEqual(spec.matchConditions ?? null, oldSpec.matchConditions ?? null)
  );
}

function validateBinding(binding: KubeObject): FieldError[] {
  const spec = (binding.spec ?? {}) as Json;
  const path = FieldPath.root('spec');
  const errors = validatePolicyName(spec, path);
  if (present(spec.paramRef)) errors.push(...validateParamRef(spec.paramRef, path.child('paramRef')));
  if (present(spec.matchResources))
    errors.push(...validateMatchResources(spec.matchResources, path.child('matchResources')));
  errors.push(...validateValidationActions(spec.validationActions, path.child('validationActions')));
  return errors;
}

/** Go's sets.String.List() of the actions a binding may take. */
const VALIDATION_ACTIONS = ['Audit', 'Deny', 'Warn'];

/** A binding's validationActions: at least one, known and unique, and never both Deny and Warn. */
function validateValidationActions(actions: unknown, path: FieldPath): FieldError[] {
  const list = Array.isArray(actions) ? (actions as string[]) : [];
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  list.forEach((action, i) => {
    if (!VALIDATION_ACTIONS.includes(action)) errors.push(notSupported(path.index(i), action, VALIDATION_ACTIONS));
    if (seen.has(action)) errors.push(duplicate(path.index(i), action));
    seen.add(action);
  });
  if (seen.has('Deny') && seen.has('Warn'))
    errors.push(
      invalid(
        path,
        list,
        'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
      ),
    );
  if (seen.size === 0) errors.push(required(path, 'at least one validation action is required'));
  return errors;
}

/** A binding's paramRef, with the reference's messages and in its order. */
function validateParamRef(paramRef: Json, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const hasSelector = paramRef.selector !== undefined && paramRef.selector !== null;
  // paramRef.namespace goes unchecked, as in the reference.
  if (typeof paramRef.name === 'string')
    for (const message of isValidPathSegmentName(paramRef.name))
      errors.push(invalid(path.child('name'), paramRef.name, message));
  if (paramRef.name && hasSelector) {
    errors.push(forbidden(path.child('name'), 'name and selector are mutually exclusive'));
    errors.push(forbidden(path.child('selector'), 'name and selector are mutually exclusive'));
  }
  if (!paramRef.name && !hasSelector) errors.push(required(path, 'one of name or selector must be specified'));
  if (hasSelector)
    errors.push(
      ...validateLabelSelector(paramRef.selector as LabelSelectorShape, path.child('selector'), {
        allowInvalidLabelValues: false,
      }),
    );
  const action = paramRef.parameterNotFoundAction;
  if (!action) errors.push(required(path.child('parameterNotFoundAction')));
  else if (action !== 'Deny' && action !== 'Allow')
    errors.push(notSupported(path.child('parameterNotFoundAction'), action, ['Deny', 'Allow']));
  return errors;
}

/** A webhook configuration's webhooks as the reference defaults them. */
function defaultWebhooks(mutating: boolean): (configuration: KubeObject) => void {
  return (configuration) => {
    for (const webhook of items(configuration as Json, 'webhooks')) {
      fill(webhook, 'failurePolicy', 'Fail');
      fill(webhook, 'matchPolicy', 'Equivalent');
      fill(webhook, 'namespaceSelector', {});
      fill(webhook, 'objectSelector', {});
      fill(webhook, 'timeoutSeconds', 10);
      if (mutating) fill(webhook, 'reinvocationPolicy', 'Never');
      for (const rule of items(webhook, 'rules')) fill(rule, 'scope', '*');
      const service = (webhook.clientConfig as Json | undefined)?.service as Json | undefined;
      if (service !== undefined && service !== null) fill(service, 'port', 443);
    }
  };
}

export const admissionRegistrationKinds: readonly ResourceType[] = [
  defineKind({
    group: GROUP,
    resource: 'validatingadmissionpolicies',
    requiresResourceVersionOnUpdate: true,
    printer: validatingAdmissionPolicyPrinter,
    kind: 'ValidatingAdmissionPolicy',
    namespaced: false,
    categories: ['api-extensions'],
    subresources: { status: true },
    statusResetFields: METADATA_AND_SPEC,
    behaviour: {
      statusKeepsMetadata: RESET_OBJECT_META_FOR_STATUS,
      tracksGeneration: true,
      initialStatus: () => ({}),
      defaults: defaultPolicy,
      validate: (policy) => validatePolicy(policy),
      validateUpdate: (policy, old) => validatePolicy(policy, old),
      validateStatusUpdate: (policy) =>
        validateValidatingAdmissionPolicyStatus(policy.status as ValidatingAdmissionPolicyStatus | undefined),
    },
  }),
  defineKind({
    group: GROUP,
    resource: 'validatingadmissionpolicybindings',
    requiresResourceVersionOnUpdate: true,
    printer: admissionPolicyBindingPrinter,
    kind: 'ValidatingAdmissionPolicyBinding',
    namespaced: false,
    categories: ['api-extensions'],
    behaviour: {
      tracksGeneration: true,
      defaults: defaultBinding,
      validate: validateBinding,
    },
  }),
  defineKind({
    group: GROUP,
    resource: 'mutatingwebhookconfigurations',
    requiresResourceVersionOnUpdate: true,
    printer: webhookConfigurationPrinter,
    kind: 'MutatingWebhookConfiguration',
    namespaced: false,
    categories: ['api-extensions'],
    behaviour: {
      tracksGeneration: true,
      defaults: defaultWebhooks(true),
      validate: (configuration) => validateWebhooks(configuration, undefined, true),
      validateUpdate: (configuration, old) => validateWebhooks(configuration, old, true),
    },
  }),
  defineKind({
    group: GROUP,
    resource: 'validatingwebhookconfigurations',
    requiresResourceVersionOnUpdate: true,
    printer: webhookConfigurationPrinter,
    kind: 'ValidatingWebhookConfiguration',
    namespaced: false,
    categories: ['api-extensions'],
    behaviour: {
      tracksGeneration: true,
      defaults: defaultWebhooks(false),
      validate: (configuration) => validateWebhooks(configuration, undefined, false),
      validateUpdate: (configuration, old) => validateWebhooks(configuration, old, false),
    },
  }),
  // Stored as v1alpha1 (the reference's storage override, so a server a release older reads them);
  // the versions are field-identical.
  defineKind({
    group: GROUP,
    resource: 'mutatingadmissionpolicies',
    requiresResourceVersionOnUpdate: true,
    printer: mutatingAdmissionPolicyPrinter,
    kind: 'MutatingAdmissionPolicy',
    namespaced: false,
    categories: ['api-extensions'],
    versions: ['v1beta1', 'v1alpha1'],
    storageVersion: 'v1alpha1',
    behaviour: {
      tracksGeneration: true,
      defaults: defaultPolicy,
      validate: (policy) => validateMutatingPolicy(policy),
      validateUpdate: (policy, old) =>
        validateMutatingPolicy(
          policy,
          preexistingMutatingPolicyExpressions((old.spec ?? {}) as MutatingAdmissionPolicySpec),
          sameMatchConditionScope(policy, old),
        ),
    },
  }),
  defineKind({
    group: GROUP,
    resource: 'mutatingadmissionpolicybindings',
    requiresResourceVersionOnUpdate: true,
    printer: admissionPolicyBindingPrinter,
    kind: 'MutatingAdmissionPolicyBinding',
    namespaced: false,
    categories: ['api-extensions'],
    versions: ['v1beta1', 'v1alpha1'],
    storageVersion: 'v1alpha1',
    behaviour: {
      tracksGeneration: true,
      defaults: defaultBinding,
      validate: validateMutatingBinding,
    },
  }),
];
