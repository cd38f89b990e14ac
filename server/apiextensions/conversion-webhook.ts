/**
 * Conversion of custom resources through a CRD's conversion webhook, as the reference's
 * webhook converter does it: one ConversionReview (apiextensions.k8s.io/v1, or v1beta1 when
 * the CRD accepts only that) POSTed over HTTPS to the configured URL, trusting the CRD's
 * caBundle; the answer must carry the request's uid, a Success result and one object per
 * object sent, each of the wanted apiVersion and the same kind, name, namespace and uid. The
 * converted object keeps the original's metadata except the labels and annotations the webhook
 * chose. Failures are the reference's texts, as internal errors (500), as the reference
 * answers them. A `service` client config is reached as admission webhooks by Service are (at
 * the Service's endpoints, with the Service's DNS name checked in the certificate).
 */
import { randomUUID } from 'node:crypto';
import type { KubeObject } from '../../api/objects';
import { webhookDestination } from '../admission/webhook/client';
import type { ServiceResolver } from '../proxy/service-endpoint';
import { isObject } from '../json/value';
import { postJson } from '../webhook-client/post-json';
import { unclassified } from '../status/catalogue';
import { validateAnnotations, validateLabels } from '../validation/object-meta';
import { FieldPath } from '../status/field-errors';
import type { CustomResourceConversion, WebhookClientConfig } from './crd-types';

/** The reference's timeout for conversion webhook calls. */
const WEBHOOK_TIMEOUT_MS = 30_000;
/** Answers larger than this are refused (the reference caps webhook responses too). */
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

export interface ConversionTarget {
  /** `group/version` to convert to. */
  readonly apiVersion: string;
  readonly kind: string;
}

function reviewVersion(conversion: CustomResourceConversion): string {
  const versions = conversion.webhook?.conversionReviewVersions ?? [];
  const chosen = versions.find((version) => version === 'v1' || version === 'v1beta1');
  if (chosen === undefined) throw new Error('no supported conversion review versions');
  return chosen;
}

/** POSTs the review and answers the parsed JSON reply. */
async function postReview(
  config: WebhookClientConfig,
  review: object,
  services: ServiceResolver | undefined,
): Promise<unknown> {
  const destination = await webhookDestination(config, services);
  const answer = await postJson(destination, JSON.stringify(review), {
    timeoutMs: WEBHOOK_TIMEOUT_MS,
    maxAnswerBytes: MAX_RESPONSE_BYTES,
  });
  const text = answer.body.toString('utf8');
  if (answer.status >= 300) throw new Error(`the server responded with status ${answer.status}: ${text.slice(0, 200)}`);
  return JSON.parse(text);
}

/** The converted objects of a review response, or the reference's complaint about it. */
function convertedObjects(review: unknown, version: string, uid: string): unknown[] {
  if (
    !isObject(review) ||
    review.kind !== 'ConversionReview' ||
    review.apiVersion !== `apiextensions.k8s.io/${version}`
  ) {
    const got = isObject(review) ? `${String(review.apiVersion ?? '')}, Kind=${String(review.kind ?? '')}` : 'nothing';
    throw new Error(`expected webhook response of apiextensions.k8s.io/${version}, Kind=ConversionReview, got ${got}`);
  }
  const response = review.response;
  if (!isObject(response)) throw new Error('no response provided');
  if (response.uid !== uid)
    throw new Error(`expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(response.uid ?? '')}`);
  const result = isObject(response.result) ? response.result : {};
  if (result.status !== 'Success') {
    if (typeof result.message === 'string' && result.message !== '') throw new Error(result.message);
    throw new Error(`response.result.status was '${String(result.status ?? '')}', not 'Success'`);
  }
  return Array.isArray(response.convertedObjects) ? response.convertedObjects : [];
}

/** `example.com/v1, Kind=Widget`, as Go prints a GroupVersionKind. */
function gvkText(object: KubeObject): string {
  return `${object.apiVersion ?? ''}, Kind=${object.kind ?? ''}`;
}

/** The converted object with the original's metadata, but the labels and annotations the webhook set. */
function restoreMetadata(original: KubeObject, converted: Record<string, unknown>): KubeObject {
  const metadata = converted.metadata;
  if (metadata === undefined) throw new Error('missing metadata in converted object');
  if (!isObject(metadata)) throw new Error(`invalid metadata of type ${typeof metadata} in converted object`);
  const restored: Record<string, unknown> = structuredClone(original.metadata);
  for (const field of ['labels', 'annotations'] as const) {
    const chosen = metadata[field];
    if (chosen === undefined || chosen === null) {
      delete restored[field];
      continue;
    }
    if (!isObject(chosen)) throw new Error(`invalid metadata.${field} of type ${typeof chosen} in converted object`);
    for (const [key, value] of Object.entries(chosen)) {
      if (typeof value !== 'string')
        throw new Error(`metadata.${field}[${key}] must be a string, but is ${typeof value} in converted object`);
    }
    const strings = chosen as Record<string, string>;
    const errors =
      field === 'labels'
        ? validateLabels(strings, FieldPath.root('metadata', 'labels'))
        : validateAnnotations(strings, FieldPath.root('metadata', 'annotation'));
    if (errors.length > 0) throw new Error(errors.map((error) => `${error.field}: ${error.detail}`).join(', '));
    restored[field] = strings;
  }
  return { ...(converted as KubeObject), metadata: restored };
}

/**
 * One converted object checked against its original, in the words the reference's converter uses
 * for a single object, which is how it converts each object it serves (a list's items too).
 */
function checkConverted(original: KubeObject, converted: unknown, target: ConversionTarget, index: number): KubeObject {
  const webhook = `conversion webhook for ${gvkText(original)}`;
  const prefix = `${webhook} returned invalid object at index ${index}`;
  if (!isObject(converted)) throw new Error(`${webhook} failed, unexpected type ${typeof converted} at index ${index}`);
  if (converted.apiVersion !== target.apiVersion) {
    throw new Error(
      `${prefix}: invalid groupVersion (expected ${target.apiVersion}, received ${String(converted.apiVersion ?? '')})`,
    );
  }
  if (converted.kind !== target.kind)
    throw new Error(`${prefix}: invalid kind (expected ${target.kind}, received ${String(converted.kind ?? '')})`);
  const meta = isObject(converted.metadata) ? converted.metadata : {};
  const same: ReadonlyArray<['name' | 'namespace' | 'uid', string]> = [
    ['name', 'name'],
    ['namespace', 'namespace'],
    ['uid', 'UID'],
  ];
  for (const [field, word] of same) {
    const expected = original.metadata[field] ?? '';
    const actual = meta[field] ?? '';
    if (expected !== actual)
      throw new Error(
        `${webhook} returned invalid object: must have the same ${word}: ${String(expected)} != ${String(actual)}`,
      );
  }
  try {
    return restoreMetadata(original, converted);
  } catch (error) {
    throw new Error(`${webhook} returned invalid metadata: ${(error as Error).message}`);
  }
}

/**
 * Converts `objects` (all of one kind) to `target` through the webhook; throws a 500 StatusError
 * on any failure, with no reason, as the reference's bare error is answered. `services` says
 * where a webhook given by Service is reached.
 */
export async function convertThroughWebhook(
  conversion: CustomResourceConversion,
  objects: readonly KubeObject[],
  target: ConversionTarget,
  services?: ServiceResolver,
): Promise<KubeObject[]> {
  const first = objects[0];
  if (first === undefined) return [];
  try {
    const version = reviewVersion(conversion);
    const config = conversion.webhook?.clientConfig ?? {};
    const uid = randomUUID();
    const review = {
      apiVersion: `apiextensions.k8s.io/${version}`,
      kind: 'ConversionReview',
      request: { uid, desiredAPIVersion: target.apiVersion, objects },
    };
    let answer: unknown;
    try {
      answer = await postReview(config, review, services);
    } catch (error) {
      throw new Error(`conversion webhook for ${gvkText(first)} failed: ${(error as Error).message}`);
    }
    let converted: unknown[];
    try {
      converted = convertedObjects(answer, version, uid);
    } catch (error) {
      throw new Error(`conversion webhook for ${gvkText(first)} failed: ${(error as Error).message}`);
    }
    if (converted.length !== objects.length) {
      throw new Error(
        `conversion webhook for ${gvkText(first)} returned ${converted.length} objects, expected ${objects.length}`,
      );
    }
    return converted.map((object, index) => checkConverted(objects[index], object, target, index));
  } catch (error) {
    throw unclassified((error as Error).message);
  }
}
