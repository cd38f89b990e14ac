/**
 * admissionregistration.k8s.io: ValidatingAdmissionPolicy and its binding (v1), enforced by the
 * ValidatingAdmissionPolicy admission plugin; the two webhook configurations (v1), called by the
 * Mutating/ValidatingAdmissionWebhook plugins (server/admission/webhook/); and
 * MutatingAdmissionPolicy and its binding (v1beta1, v1alpha1), stored and served as objects.
 */
import type { KubeObject } from '../../../api/objects';
import { FieldPath, forbidden, invalid, notSupported, required } from '../../status/field-errors';
import { validateLabelSelector, type LabelSelectorShape } from '../../validation/object-meta';
import { child, fill, items, type Json } from '../defaults/fill';
import type { FieldError, ResourceType } from '../types';
import { defineKind } from './define';
import {
  validatePolicyExpressions,
  validateWebhookMatchConditions,
} from '../../validation/admission-cel/expression-validation';
import { schemaOfDefinition } from '../../validation/admission-cel/kind-schemas';
import type { ValidatingAdmissionPolicySpec } from '../../../api/admissionregistration';
import { schemaData } from '../../schema/definitions';
import {
  admissionPolicyBindingPrinter,
  mutatingAdmissionPolicyPrinter,
  validatingAdmissionPolicyPrinter,
  webhookConfigurationPrinter,
} from '../../table/admin-printers';

const GROUP = 'admissionregistration.k8s.io';

/** matchConstraints / matchResources as the reference defaults them. */
function defaultMatchResources(match: Json): void {
  fill(match, 'matchPolicy', 'Equivalent');
  fill(match, 'namespaceSelector', {});
  fill(match, 'objectSelector', {});
  for (const rules of ['resourceRules', 'excludeResourceRules'])
    for (const rule of items(match, rules)) fill(rule, 'scope', '*');
}

/** A policy binding of either kind: its matchResources, when it has them. */
function defaultBinding(binding: KubeObject): void {
  const spec = child(binding as Json, 'spec');
  if (spec.matchResources !== undefined && spec.matchResources !== null)
    defaultMatchResources(spec.matchResources as Json);
}

function validatePolicy(policy: KubeObject): FieldError[] {
  const spec = (policy.spec ?? {}) as Json;
  const errors: FieldError[] = [];
  if (spec.paramKind !== undefined && spec.paramKind !== null) {
    const paramKind = spec.paramKind as Json;
    const path = FieldPath.root('spec', 'paramKind');
    if (!paramKind.apiVersion) errors.push(required(path.child('apiVersion')));
    if (!paramKind.kind) errors.push(required(path.child('kind')));
  }
  if (items(spec, 'validations').length === 0 && items(spec, 'auditAnnotations').length === 0) {
    errors.push(
      required(FieldPath.root('spec', 'validations'), 'validations or auditAnnotations must contain at least one item'),
    );
  }
  items(spec, 'validations').forEach((validation, i) => {
    if (typeof validation.expression !== 'string' || validation.expression.trim() === '')
      errors.push(
        required(FieldPath.root('spec', 'validations').index(i).child('expression'), 'expression is not specified'),
      );
  });
  const namespace = schemaOfDefinition(schemaData().definitions, 'io.k8s.api.core.v1.Namespace');
  errors.push(...validatePolicyExpressions(spec as ValidatingAdmissionPolicySpec, namespace));
  return errors;
}

function validateBinding(binding: KubeObject): FieldError[] {
  const spec = (binding.spec ?? {}) as Json;
  const errors: FieldError[] = [];
  if (!spec.policyName) errors.push(required(FieldPath.root('spec', 'policyName')));
  if (items(spec, 'validationActions').length === 0) errors.push(required(FieldPath.root('spec', 'validationActions')));
  if (spec.paramRef !== undefined && spec.paramRef !== null)
    errors.push(...validateParamRef(spec.paramRef as Json, FieldPath.root('spec', 'paramRef')));
  return errors;
}

/** Why a name cannot be one segment of a URL path (the reference's path-segment rule). */
function pathSegmentProblems(name: string): string[] {
  if (name === '.' || name === '..') return [`may not be '${name}'`];
  return ['/', '%']
    .filter((character) => name.includes(character))
    .map((character) => `may not contain '${character}'`);
}

/** A binding's paramRef, with the reference's messages and in its order. */
function validateParamRef(paramRef: Json, path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  const hasSelector = paramRef.selector !== undefined && paramRef.selector !== null;
  // paramRef.namespace goes unchecked, as in the reference.
  if (typeof paramRef.name === 'string')
    for (const message of pathSegmentProblems(paramRef.name))
      errors.push(invalid(path.child('name'), paramRef.name, message));
  if (paramRef.name && hasSelector) {
    errors.push(forbidden(path.child('name'), 'name and selector are mutually exclusive'));
    errors.push(forbidden(path.child('selector'), 'name and selector are mutually exclusive'));
  }
  if (!paramRef.name && !hasSelector) errors.push(required(path, 'one of name or selector must be specified'));
  if (hasSelector)
    errors.push(...validateLabelSelector(paramRef.selector as LabelSelectorShape, path.child('selector')));
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

function validateWebhooks(configuration: KubeObject): FieldError[] {
  const errors: FieldError[] = [];
  for (const [index, webhook] of items(configuration as Json, 'webhooks').entries()) {
    const path = FieldPath.root('webhooks').index(index);
    if (!webhook.name) errors.push(required(path.child('name')));
    const clientConfig = (webhook.clientConfig ?? {}) as Json;
    if (!clientConfig.url && !clientConfig.service)
      errors.push(required(path.child('clientConfig'), 'exactly one of url or service is required'));
    if (!webhook.sideEffects) errors.push(required(path.child('sideEffects')));
    if (items(webhook, 'admissionReviewVersions').length === 0)
      errors.push(required(path.child('admissionReviewVersions')));
    errors.push(...validateWebhookMatchConditions(items(webhook, 'matchConditions'), path.child('matchConditions')));
  }
  return errors;
}

export const admissionRegistrationKinds: readonly ResourceType[] = [
  defineKind({
    group: GROUP,
    resource: 'validatingadmissionpolicies',
    printer: validatingAdmissionPolicyPrinter,
    kind: 'ValidatingAdmissionPolicy',
    namespaced: false,
    categories: ['api-extensions'],
    subresources: { status: true },
    behaviour: {
      tracksGeneration: true,
      initialStatus: () => ({}),
      defaults: (policy) => {
        const spec = child(policy as Json, 'spec');
        fill(spec, 'failurePolicy', 'Fail');
        defaultMatchResources(child(spec, 'matchConstraints'));
      },
      validate: validatePolicy,
    },
  }),
  defineKind({
    group: GROUP,
    resource: 'validatingadmissionpolicybindings',
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
    printer: webhookConfigurationPrinter,
    kind: 'MutatingWebhookConfiguration',
    namespaced: false,
    categories: ['api-extensions'],
    behaviour: { tracksGeneration: true, defaults: defaultWebhooks(true), validate: validateWebhooks },
  }),
  defineKind({
    group: GROUP,
    resource: 'validatingwebhookconfigurations',
    printer: webhookConfigurationPrinter,
    kind: 'ValidatingWebhookConfiguration',
    namespaced: false,
    categories: ['api-extensions'],
    behaviour: { tracksGeneration: true, defaults: defaultWebhooks(false), validate: validateWebhooks },
  }),
  // Stored as v1alpha1 (the reference's storage override, so a server a release older reads them);
  // the versions are field-identical.
  defineKind({
    group: GROUP,
    resource: 'mutatingadmissionpolicies',
    printer: mutatingAdmissionPolicyPrinter,
    kind: 'MutatingAdmissionPolicy',
    namespaced: false,
    categories: ['api-extensions'],
    versions: ['v1beta1', 'v1alpha1'],
    storageVersion: 'v1alpha1',
    behaviour: {
      tracksGeneration: true,
      defaults: (policy) => {
        const spec = child(policy as Json, 'spec');
        fill(spec, 'failurePolicy', 'Fail');
        if (spec.matchConstraints !== undefined && spec.matchConstraints !== null)
          defaultMatchResources(spec.matchConstraints as Json);
      },
    },
  }),
  defineKind({
    group: GROUP,
    resource: 'mutatingadmissionpolicybindings',
    printer: admissionPolicyBindingPrinter,
    kind: 'MutatingAdmissionPolicyBinding',
    namespaced: false,
    categories: ['api-extensions'],
    versions: ['v1beta1', 'v1alpha1'],
    storageVersion: 'v1alpha1',
    behaviour: {
      tracksGeneration: true,
      defaults: defaultBinding,
    },
  }),
];
