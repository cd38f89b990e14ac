/**
 * The webhooks of a Validating- or MutatingWebhookConfiguration, checked as the reference's
 * validateValidatingWebhook / validateMutatingWebhook do, in their order: name, rules, policies,
 * side effects, timeout, selectors, client config, match conditions, review versions, and names
 * unique. An update keeps what the stored configuration already had (see validateWebhooks).
 */
import type { KubeObject } from '../../../api/objects';
import { deepEqual, duplicate, FieldPath, invalid, required } from '../../status/field-errors';
import { validateRuleWithOperations, type RuleWithOperations } from '../../validation/admission-rules';
import { validateWebhookMatchConditions } from '../../validation/admission-cel/expression-validation';
import { isDNS1123Subdomain } from '../../validation/names';
import { labelSelectorParses, validateLabelSelector, type LabelSelectorShape } from '../../validation/object-meta';
import { ACCEPTED_REVIEW_VERSIONS, validateReviewVersions } from '../../validation/review-versions';
import {
  validateWebhookService,
  validateWebhookURL,
  type WebhookService,
} from '../../validation/webhook-client-config';
import { items, type Json } from '../defaults/fill';
import type { FieldError } from '../types';
import { FAILURE_POLICIES, MATCH_POLICIES, present, REINVOCATION_POLICIES, supportedOnly } from './admission-values';

/**
 * A configuration's webhooks, in the reference's order. On an update, what the stored
 * configuration already had is kept: its match conditions go unchecked while no webhook's
 * conditions change (and compile as stored ones when they do), and side effects, duplicate names, unknown review
 * versions and invalid selector values stay allowed when it had them.
 */
export function validateWebhooks(
  configuration: KubeObject,
  old: KubeObject | undefined,
  mutating: boolean,
): FieldError[] {
  const errors: FieldError[] = [];
  const webhooks = items(configuration as Json, 'webhooks');
  const oldWebhooks = old === undefined ? undefined : items(old as Json, 'webhooks');
  const preexisting = new Set(
    (oldWebhooks ?? []).flatMap((webhook) =>
      items(webhook, 'matchConditions').map((condition) => condition.expression),
    ),
  );
  const ignoreMatchConditions = oldWebhooks !== undefined && sameMatchConditions(webhooks, oldWebhooks);
  const allowInvalidLabelValues = old !== undefined && hasInvalidWebhookSelector(old);
  const requireAccepted = old === undefined || acceptsKnownReviewVersions(old);
  const requireNoSideEffects = old === undefined || hasNoSideEffects(old);
  const requireUniqueNames = oldWebhooks === undefined || hasUniqueNames(oldWebhooks);
  const names = new Set<unknown>();
  for (const [index, webhook] of webhooks.entries()) {
    const path = FieldPath.root('webhooks').index(index);
    errors.push(...fullyQualifiedNameErrors(webhook.name, path.child('name')));
    items(webhook, 'rules').forEach((rule, i) =>
      errors.push(...validateRuleWithOperations(rule as RuleWithOperations, path.child('rules').index(i))),
    );
    errors.push(...webhookPolicyErrors(webhook, path, requireNoSideEffects));
    for (const selector of WEBHOOK_SELECTORS)
      if (present(webhook[selector]))
        errors.push(
          ...validateLabelSelector(webhook[selector] as LabelSelectorShape, path.child(selector), {
            allowInvalidLabelValues,
          }),
        );
    if (mutating && present(webhook.reinvocationPolicy))
      errors.push(
        ...supportedOnly(webhook.reinvocationPolicy, REINVOCATION_POLICIES, path.child('reinvocationPolicy')),
      );
    errors.push(...validateClientConfig((webhook.clientConfig ?? {}) as Json, path.child('clientConfig')));
    if (!ignoreMatchConditions)
      errors.push(
        ...validateWebhookMatchConditions(
          items(webhook, 'matchConditions'),
          path.child('matchConditions'),
          preexisting,
        ),
      );
    errors.push(
      ...validateReviewVersions(webhook.admissionReviewVersions, path.child('admissionReviewVersions'), {
        requireAccepted,
        requiredDetail: `must specify one of ${ACCEPTED_REVIEW_VERSIONS.join(', ')}`,
      }),
    );
    if (requireUniqueNames && webhook.name) {
      if (names.has(webhook.name)) errors.push(duplicate(path.child('name'), webhook.name));
      names.add(webhook.name);
    }
  }
  return errors;
}

/** The reference's IsFullyQualifiedName: a DNS subdomain of at least three segments. */
function fullyQualifiedNameErrors(name: unknown, path: FieldPath): FieldError[] {
  if (typeof name !== 'string' || name === '') return [required(path)];
  const problems = isDNS1123Subdomain(name);
  if (problems.length > 0) return [invalid(path, name, problems.join(','))];
  if (name.split('.').length < 3)
    return [invalid(path, name, 'should be a domain with at least three segments separated by dots')];
  return [];
}

/** Exactly one of a URL (https) and an in-cluster service. */
function validateClientConfig(clientConfig: Json, path: FieldPath): FieldError[] {
  const { url, service } = clientConfig;
  if (present(url) === present(service)) return [required(path, 'exactly one of url or service is required')];
  if (present(url)) return validateWebhookURL(path.child('url'), url as unknown as string, true);
  return validateWebhookService(path.child('service'), service as WebhookService);
}

/** Whether the webhooks are as many as before and each has the match conditions it had. */
function sameMatchConditions(webhooks: readonly Json[], oldWebhooks: readonly Json[]): boolean {
  return (
    webhooks.length === oldWebhooks.length &&
    webhooks.every((webhook, i) => deepEqual(webhook.matchConditions ?? null, oldWebhooks[i].matchConditions ?? null))
  );
}

function hasUniqueNames(webhooks: readonly Json[]): boolean {
  return new Set(webhooks.map((webhook) => webhook.name)).size === webhooks.length;
}

/** Side effect classes, sorted: every one the API knows, and those a new webhook may declare. */
const SIDE_EFFECT_CLASSES = ['None', 'NoneOnDryRun', 'Some', 'Unknown'];
const NO_SIDE_EFFECT_CLASSES = ['None', 'NoneOnDryRun'];

/**
 * A webhook's failure and match policies, its side effect class, and its timeout, in the
 * reference's order. `requireNoSideEffects`: only the classes without side effects (all but an
 * update of a configuration that already had a webhook with some, or without a class).
 */
function webhookPolicyErrors(webhook: Json, path: FieldPath, requireNoSideEffects: boolean): FieldError[] {
  const errors: FieldError[] = [];
  if (present(webhook.failurePolicy))
    errors.push(...supportedOnly(webhook.failurePolicy, FAILURE_POLICIES, path.child('failurePolicy')));
  if (present(webhook.matchPolicy))
    errors.push(...supportedOnly(webhook.matchPolicy, MATCH_POLICIES, path.child('matchPolicy')));
  const allowedSideEffects = requireNoSideEffects ? NO_SIDE_EFFECT_CLASSES : SIDE_EFFECT_CLASSES;
  if (!present(webhook.sideEffects))
    errors.push(required(path.child('sideEffects'), `must specify one of ${allowedSideEffects.join(', ')}`));
  else errors.push(...supportedOnly(webhook.sideEffects, allowedSideEffects, path.child('sideEffects')));
  const timeout = webhook.timeoutSeconds;
  if (typeof timeout === 'number' && (timeout < 1 || timeout > 30))
    errors.push(invalid(path.child('timeoutSeconds'), timeout, 'the timeout value must be between 1 and 30 seconds'));
  return errors;
}

/** Whether every webhook that names review versions names one this server sends. */
function acceptsKnownReviewVersions(configuration: KubeObject): boolean {
  return items(configuration as Json, 'webhooks').every((webhook) => {
    const versions = Array.isArray(webhook.admissionReviewVersions)
      ? (webhook.admissionReviewVersions as string[])
      : [];
    return versions.length === 0 || versions.some((version) => ACCEPTED_REVIEW_VERSIONS.includes(version));
  });
}

/** Whether every webhook of a configuration declares a class without side effects. */
function hasNoSideEffects(configuration: KubeObject): boolean {
  return items(configuration as Json, 'webhooks').every((webhook) =>
    NO_SIDE_EFFECT_CLASSES.includes(webhook.sideEffects as unknown as string),
  );
}

const WEBHOOK_SELECTORS = ['namespaceSelector', 'objectSelector'] as const;

/**
 * Whether a stored configuration has a webhook selector that is invalid in any way: an update of
 * it then leaves every selector's values unchecked, as the reference's
 * AllowInvalidLabelValueInSelector does for webhooks (made before values were checked).
 */
function hasInvalidWebhookSelector(configuration: KubeObject): boolean {
  return items(configuration as Json, 'webhooks').some((webhook) =>
    WEBHOOK_SELECTORS.some(
      (selector) => present(webhook[selector]) && !labelSelectorParses(webhook[selector] as LabelSelectorShape),
    ),
  );
}
