/**
 * The MutatingAdmissionWebhook and ValidatingAdmissionWebhook plugins: for every write, each
 * configured webhook that matches it (rules, namespace and object selectors, matchConditions in
 * CEL, with the `authorizer` variable) is sent an AdmissionReview v1, mutating ones one after
 * another (their JSON patches applied in turn), validating ones too. A denial refuses the write with the webhook's status;
 * a webhook that cannot be called, or answers nonsense, fails the write or is skipped as its
 * failurePolicy says; a dry run is refused by a webhook that may have side effects.
 *
 * Reinvocation, as the reference's rules: when a mutating webhook changes the object, every
 * webhook with reinvocationPolicy IfNeeded called before it (and not since marked) is due again,
 * and the chain makes its second pass (see Reinvocation in ../types.ts), in which only the due
 * webhooks are called; a change made between the passes by the plugins before this one (a
 * MutatingAdmissionPolicy reinvoked) makes every IfNeeded webhook called so far due.
 *
 * matchPolicy: a webhook is matched in the request's version, and under Equivalent in the
 * other versions the resource is served in, and sees the objects in the version it matched
 * (versions.ts); its patch comes back to the chain's version.
 */
import { applyJsonPatch, parseJsonPatch } from '../../patch/json-patch';
import { celEnvironment } from '../../cel/lazy';
import { StatusError } from '../../status/status-error';
import { badRequest, forbidden, internalError } from '../../status/catalogue';
import { getCached, listCached, type StorageOf } from '../lookup';
import type { ServiceResolver } from '../../proxy/service-endpoint';
import { admissionUserInfo, matchingAttributes } from '../policy/attributes';
import { matchResources } from '../policy/matching';
import { requestAuthorizer } from '../../cel/libraries/request-authorizer';
import type { AuthorizationChecker } from '../../cel/libraries/authorizer';
import { celAuthorizationChecker } from '../../authz/cel-checker';
import type { Authorizer } from '../../authz/types';
import { deepEqual } from '../../status/field-errors';
import {
  newReinvocationRecord,
  replaceObject,
  requireReinvokingPreviouslyInvoked,
  type AdmissionAttributes,
  type AdmissionPlugin,
  type ReinvocationRecord,
} from '../types';
import type { ResourceType } from '../../registry/types';
import { definitionsOfType, typedForKind } from '../../registry/type-definitions';
import { schemaData } from '../../schema/definitions';
import type { Definitions } from '../../validation/decode';
import { callWebhook, type AdmissionResponse } from './client';
import { compileMatchCondition } from '../../validation/admission-cel/match-conditions';
import type { ConfiguredWebhook, Webhook } from './types';
import { candidateVersions, convertObject, viewIn, type ServedTypeLookup } from './versions';
import type { KubeObject } from '../../../api/objects';
import { goAggregate, goJSONSyntaxError } from '../../../api/go-json-syntax';
import { goQuote } from '../../../api/go-quote';
import type { GroupVersion } from '../../../api/identity';
import { compareStrings } from '../../string-order';

const GROUP = 'admissionregistration.k8s.io';
const DEFAULT_TIMEOUT_SECONDS = 10;

type Phase = 'mutating' | 'validating';

/** The review's request, as webhooks receive it. */
function reviewRequest(attributes: AdmissionAttributes): Record<string, unknown> {
  return {
    uid: attributes.uid,
    kind: attributes.kind,
    resource: attributes.resource,
    ...(attributes.subResource ? { subResource: attributes.subResource } : {}),
    requestKind: attributes.requestKind,
    requestResource: attributes.requestResource,
    ...(attributes.requestSubResource ? { requestSubResource: attributes.requestSubResource } : {}),
    name: attributes.name,
    namespace: attributes.namespace,
    operation: attributes.operation,
    userInfo: admissionUserInfo(attributes.userInfo),
    object: attributes.object ?? null,
    oldObject: attributes.oldObject ?? null,
    dryRun: attributes.dryRun,
    options: attributes.options,
  };
}

/** Whether the webhook's match conditions admit the request: true, false, or the error to handle by failurePolicy. */
async function conditionsAdmit(
  webhook: Webhook,
  attributes: AdmissionAttributes,
  request: Record<string, unknown>,
  checker: AuthorizationChecker,
): Promise<boolean | readonly string[]> {
  if (!webhook.matchConditions?.length) return true;
  const { fromJson } = celEnvironment();
  const context = {
    object: fromJson(attributes.object ?? null),
    oldObject: fromJson(attributes.oldObject ?? null),
    request: fromJson(request),
    authorizer: requestAuthorizer(checker, { ...attributes, subresource: attributes.subResource }),
  };
  const errors: string[] = [];
  for (const { expression } of webhook.matchConditions ?? []) {
    const compiled = compileMatchCondition(expression, 'stored');
    if (!compiled.ok) {
      errors.push(`compilation failed: ${compiled.error}`);
      continue;
    }
    const result = await compiled.compiled.evaluateAwaitingChecks(context);
    if (result.ok && result.value === false) return false;
    if (!result.ok) errors.push(`expression '${expression}' resulted in error: ${result.error}`);
  }
  return errors.length > 0 ? errors : true;
}

/** The webhooks of every configuration of `phase`, by configuration name, then in their order. */
async function configuredWebhooks(storageOf: StorageOf, phase: Phase): Promise<readonly ConfiguredWebhook[]> {
  const resource = phase === 'mutating' ? 'mutatingwebhookconfigurations' : 'validatingwebhookconfigurations';
  const configurations = await listCached(storageOf(GROUP, resource));
  let webhooks = webhooksOfConfigurations.get(configurations);
  if (webhooks === undefined) {
    webhooks = webhooksOf(configurations);
    webhooksOfConfigurations.set(configurations, webhooks);
  }
  return webhooks;
}

/**
 * The webhooks of each list of configurations read: a watch cache gives the same list until the
 * configurations change, so every write between two changes shares one.
 */
const webhooksOfConfigurations = new WeakMap<readonly KubeObject[], readonly ConfiguredWebhook[]>();

function webhooksOf(configurations: readonly KubeObject[]): readonly ConfiguredWebhook[] {
  return [...configurations]
    .sort((a, b) => compareStrings(String(a.metadata.name), String(b.metadata.name)))
    .flatMap((configuration) =>
      ((configuration.webhooks ?? []) as Webhook[]).map((webhook) => ({
        configuration: String(configuration.metadata.name),
        webhook,
      })),
    );
}

/** A denial: the webhook's status, at least 400, its message after the reference's prefix. */
function denial(name: string, response: AdmissionResponse): StatusError {
  const status = response.status ?? {};
  const deniedBy = `admission webhook ${goQuote(name)} denied the request`;
  const message = status.message
    ? `${deniedBy}: ${status.message}`
    : status.reason
      ? `${deniedBy}: ${status.reason}`
      : `${deniedBy} without explanation`;
  // The webhook's status is passed on whole, its details with it.
  return new StatusError({
    code: !status.code || status.code < 400 ? 400 : status.code,
    reason: status.reason ?? '',
    message,
    ...(status.details === undefined ? {} : { details: status.details }),
  });
}

/** A failure of the call itself, or of what it answered (`why` says which); a failure policy of Ignore passes over it. */
class CallFailure extends Error {}

function callFailure(name: string, why: string): StatusError {
  return internalError(`failed calling webhook ${goQuote(name)}: ${why}`);
}

/**
 * The response an AdmissionReview carries, checked as the reference's VerifyAdmissionResponse
 * checks it: present, for this request, and with a patch only from a mutating webhook and then
 * with its type.
 */
function verifiedResponse(
  review: { readonly response?: AdmissionResponse },
  uid: string,
  mutating: boolean,
): AdmissionResponse {
  const invalid = (problem: string) => new CallFailure(`received invalid webhook response: ${problem}`);
  const { response } = review;
  if (!response) throw invalid('webhook response was absent');
  if (response.uid !== uid) throw invalid(`expected response.uid=${goQuote(uid)}, got ${goQuote(response.uid ?? '')}`);
  const hasPatch = (response.patch ?? '') !== '';
  if (!mutating) {
    if (hasPatch) throw invalid('validating webhook may not return response.patch');
    if (response.patchType !== undefined && response.patchType !== null)
      throw invalid('validating webhook may not return response.patchType');
    return response;
  }
  const hasType = response.patchType !== undefined && response.patchType !== null;
  if (hasPatch && !hasType) throw invalid('webhook returned response.patch but not response.patchType');
  if (!hasPatch && hasType) throw invalid('webhook returned response.patchType but not response.patch');
  if (hasType && response.patchType === '') throw invalid('webhook returned invalid response.patchType of ""');
  return response;
}

/**
 * Applies the webhook's patch to the object as the webhook saw it (`viewed`), back in the
 * chain's version; whether the object changed. The patched object is defaulted (a custom
 * resource also pruned by its schema) in the webhook's version, as the reference decodes it: a
 * container a webhook adds gets its defaults, a field the schema does not know goes.
 */
async function applyResponsePatch(
  name: string,
  attributes: AdmissionAttributes,
  viewed: AdmissionAttributes,
  servedType: ServedTypeLookup,
  response: AdmissionResponse,
): Promise<boolean> {
  if (!response.patch) return false;
  const text = Buffer.from(response.patch, 'base64').toString('utf8');
  const undecodable = (why: string) => new CallFailure(`received undecodable patch in webhook response: ${why}`);
  let operations: ReturnType<typeof parseJsonPatch>;
  try {
    JSON.parse(text);
  } catch {
    throw undecodable(goJSONSyntaxError(text));
  }
  try {
    operations = parseJsonPatch(text);
  } catch (error) {
    throw undecodable((error as Error).message);
  }
  if (operations.length === 0) return false;
  if (attributes.object === undefined || viewed.object === undefined)
    throw internalError(
      `admission webhook ${goQuote(name)} attempted to modify the object, which is not supported for this operation`,
    );
  if (response.patchType !== 'JSONPatch')
    throw new CallFailure(`unsupported patch type ${goQuote(String(response.patchType))}`);
  let patched: KubeObject;
  try {
    // The reference applies a webhook's patch with json-patch v4, as it applies a PATCH request's.
    patched = applyJsonPatch(viewed.object, operations) as KubeObject;
  } catch (error) {
    throw internalError((error as Error).message);
  }
  const type = servedType(viewed.resource);
  if (type !== undefined) patched = typedPatchResult(type, viewed.kind.version, patched);
  type?.strategy.applyDefaults?.(patched, viewed.kind.version);
  if (viewed.kind.version !== attributes.kind.version || viewed.kind.group !== attributes.kind.group) {
    patched = await convertObject(servedType(viewed.resource), patched, attributes.kind);
    patched = { ...patched, kind: attributes.kind.kind };
  }
  if (deepEqual(patched, attributes.object)) return false;
  replaceObject(attributes, patched);
  return true;
}

/**
 * The patched object read into the kind's type, as the reference decodes it: a value the type
 * cannot hold (a string where a map belongs) fails the write with Go's words.
 */
function typedPatchResult(type: ResourceType, version: string, patched: KubeObject): KubeObject {
  const definition = type.versions.find((served) => served.version === version)?.definition;
  const definitions = definitionsOfType(schemaData().definitions as unknown as Definitions, type);
  const typed = typedForKind(definitions, type, definition, patched);
  if (typed.typeError !== undefined) throw internalError(typed.typeError);
  return typed.object;
}

/** The group-version the webhook matches the request in (see versions.ts), or undefined. */
function matchedVersion(
  webhook: Webhook,
  attributes: AdmissionAttributes,
  namespaceLabels: Readonly<Record<string, string>> | undefined,
  servedType: ServedTypeLookup,
): GroupVersion | undefined {
  const match = {
    resourceRules: webhook.rules ?? [],
    namespaceSelector: webhook.namespaceSelector,
    objectSelector: webhook.objectSelector,
  };
  return candidateVersions(attributes, webhook.matchPolicy, servedType).find((version) =>
    matchResources(
      match,
      matchingAttributes({
        ...attributes,
        resource: { ...version, resource: attributes.resource.resource },
        kind: { ...version, kind: attributes.kind.kind },
      }),
      namespaceLabels,
    ),
  );
}

function webhookPlugin(
  phase: Phase,
  storageOf: StorageOf,
  services: ServiceResolver,
  authorizer: Authorizer,
  servedType: ServedTypeLookup,
): AdmissionPlugin {
  const checker = celAuthorizationChecker(authorizer);
  /**
   * One pass over the webhooks; for the mutating ones, `record` keeps which IfNeeded webhooks a
   * later change makes due, and on the second pass only those are called. Whether the object changed.
   */
  const run = async (
    attributes: AdmissionAttributes,
    reinvocation?: { readonly record: ReinvocationRecord; readonly isReinvoke: boolean },
  ): Promise<boolean> => {
    let changed = false;
    // Webhooks never judge their own configurations, so a broken webhook cannot block its repair.
    if (attributes.resource.group === GROUP && attributes.resource.resource.endsWith('webhookconfigurations'))
      return changed;
    const webhooks = await configuredWebhooks(storageOf, phase);
    if (webhooks.length === 0) return changed;
    const namespaceObject =
      attributes.namespace === '' ? undefined : await getCached(storageOf('', 'namespaces'), attributes.namespace);
    const namespaceLabels = attributes.namespace === '' ? undefined : (namespaceObject?.metadata.labels ?? {});
    for (const { configuration, webhook } of webhooks) {
      const key = `${configuration}/${webhook.name}`;
      if (reinvocation?.isReinvoke && !reinvocation.record.due.has(key)) continue;
      const failOpen = webhook.failurePolicy === 'Ignore';
      const version = matchedVersion(webhook, attributes, namespaceLabels, servedType);
      if (version === undefined) continue;
      const viewed: AdmissionAttributes = { ...attributes, ...(await viewIn(attributes, version, servedType)) };
      const request = reviewRequest(viewed);
      const admitted = await conditionsAdmit(webhook, viewed, request, checker);
      if (admitted === false) continue;
      if (admitted !== true) {
        // A condition that could not be evaluated: skipped under Ignore, else the request is
        // refused (not the webhook's call failed), as the reference's matcher fails closed.
        if (failOpen) continue;
        throw forbidden(attributes.resource, attributes.name, goAggregate(admitted));
      }
      if (attributes.dryRun && webhook.sideEffects !== 'None' && webhook.sideEffects !== 'NoneOnDryRun') {
        throw badRequest(`admission webhook ${goQuote(webhook.name)} does not support dry run`);
      }
      const timeoutSeconds = webhook.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
      let response: AdmissionResponse;
      try {
        const review = await callWebhook({
          config: webhook.clientConfig,
          review: { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request },
          timeoutSeconds,
          deadline: attributes.deadline,
          services,
        }).catch((error: unknown) => {
          throw new CallFailure(`failed to call webhook: ${(error as Error).message}`);
        });
        response = verifiedResponse(review, attributes.uid, phase === 'mutating');
      } catch (error) {
        if (failOpen) continue;
        throw callFailure(webhook.name, (error as Error).message);
      }
      // Added before a denial is thrown: the client gets them with it.
      for (const warning of response.warnings ?? []) attributes.warnings.add(warning);
      // Kept for the request's audit event, allowed or not, under the webhook's name.
      for (const [key, value] of Object.entries(response.auditAnnotations ?? {}))
        attributes.auditAnnotations[`${webhook.name}/${key}`] = value;
      if (response.allowed !== true) throw denial(webhook.name, response);
      if (reinvocation === undefined) continue;
      let patchChanged: boolean;
      try {
        patchChanged = await applyResponsePatch(webhook.name, attributes, viewed, servedType, response);
      } catch (error) {
        if (!(error instanceof CallFailure)) throw error;
        if (failOpen) continue;
        throw callFailure(webhook.name, error.message);
      }
      if (patchChanged) {
        changed = true;
        requireReinvokingPreviouslyInvoked(reinvocation.record);
      }
      if (webhook.reinvocationPolicy === 'IfNeeded') reinvocation.record.previouslyInvoked.add(key);
    }
    // Kept only when there are webhooks: without them no webhook can be due, whatever changes.
    if (reinvocation) reinvocation.record.lastOutput = attributes.object && structuredClone(attributes.object);
    return changed;
  };
  const name = phase === 'mutating' ? 'MutatingAdmissionWebhook' : 'ValidatingAdmissionWebhook';
  if (phase === 'validating') return { name, validate: async (attributes) => void (await run(attributes)) };
  return {
    name,
    reinvocable: true,
    async admit(attributes, reinvocation) {
      const record = reinvocation.stateOf<ReinvocationRecord>(name, newReinvocationRecord);
      // A plugin before this one changed the object since these webhooks last saw it.
      if (reinvocation.isReinvoke && !deepEqual(record.lastOutput, attributes.object))
        requireReinvokingPreviouslyInvoked(record);
      if (await run(attributes, { record, isReinvoke: reinvocation.isReinvoke })) reinvocation.shouldReinvoke = true;
    },
  };
}

export function mutatingAdmissionWebhookPlugin(
  storageOf: StorageOf,
  services: ServiceResolver,
  authorizer: Authorizer,
  servedType: ServedTypeLookup,
): AdmissionPlugin {
  return webhookPlugin('mutating', storageOf, services, authorizer, servedType);
}

export function validatingAdmissionWebhookPlugin(
  storageOf: StorageOf,
  services: ServiceResolver,
  authorizer: Authorizer,
  servedType: ServedTypeLookup,
): AdmissionPlugin {
  return webhookPlugin('validating', storageOf, services, authorizer, servedType);
}
