/**
 * Calling one admission webhook: an AdmissionReview v1 POSTed over HTTPS to the webhook's URL,
 * or to its Service (reached at the address of the Service's endpoints, since this server has
 * no cluster network of its own, with the Service's DNS name checked in the certificate), within
 * its timeout; the review's response back. Failures are errors for the caller's failure policy.
 */
import { posix } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { postJson, type PostDestination } from '../../webhook-client/post-json';
import { endpointOrigin, type ServiceResolver } from '../../proxy/service-endpoint';
import type { WebhookClientConfig } from './types';
import { GO_TYPE_META_STRUCT, goJSONSyntaxError, goTypeOf } from '../../../api/go-json-syntax';
import { goQuote } from '../../../api/go-quote';
import { genericServerResponse } from '../../status/server-response';
import type { StatusDetails } from '../../status/status-error';

/** The answer part of an AdmissionReview. */
export interface AdmissionResponse {
  readonly uid?: string;
  readonly allowed?: boolean;
  readonly status?: {
    readonly code?: number;
    readonly message?: string;
    readonly reason?: string;
    readonly details?: StatusDetails;
  };
  readonly patch?: string;
  readonly patchType?: string;
  readonly warnings?: readonly string[];
  readonly auditAnnotations?: Readonly<Record<string, string>>;
}

/** An AdmissionReview answer bigger than this is refused (the reference caps them at 30 MB too). */
const MAX_RESPONSE_BYTES = 30 * 1024 * 1024;

/**
 * Where a webhook client config (also a CRD conversion webhook's) is called, and the CAs its
 * caBundle trusts: its URL, or where its Service leads, resolved as the aggregator resolves an
 * APIService's (the reference gives webhooks and the aggregator one service resolver); a URL
 * needs no resolver.
 */
export async function webhookDestination(
  config: WebhookClientConfig,
  services: ServiceResolver | undefined,
): Promise<PostDestination> {
  const ca = config.caBundle ? Buffer.from(config.caBundle, 'base64').toString('utf8') : undefined;
  if (config.url) {
    const url = new URL(config.url);
    url.pathname = requestPath(url.pathname);
    return { url, ca };
  }
  const service = config.service;
  if (!service) throw new Error('webhook has neither url nor service');
  if (services === undefined) throw new Error('webhook by service reference, and no Service lookup given');
  const resolution = await services.resolve({
    namespace: service.namespace,
    name: service.name,
    port: service.port ?? 443,
  });
  if (!resolution.ok) throw new Error(resolution.message);
  return {
    url: new URL(`${endpointOrigin(resolution.endpoint)}${requestPath(service.path ?? '')}`),
    serverName: resolution.endpoint.serverName,
    ca,
  };
}

/**
 * The path the reference's webhook client requests: its REST client joins the configured path
 * onto `/` with Go's path.Join, which collapses repeated slashes, resolves `.` and `..` and
 * drops a trailing slash. envtest's URLs (`https://host:port/` + a path that starts with `/`)
 * depend on it: a Go webhook server redirects `//path` instead of serving it.
 */
export function requestPath(path: string): string {
  const cleaned = posix.normalize(`/${path}`);
  return cleaned.length > 1 && cleaned.endsWith('/') ? cleaned.slice(0, -1) : cleaned;
}

/**
 * How long past the request's deadline a webhook is still waited for, so that the timeout stage
 * answers first (504 Timeout) and the webhook's failure only ends the work behind it.
 */
const DEADLINE_GRACE_MS = 100;

/**
 * POSTs the review and resolves with the AdmissionReview answered (its response not yet
 * checked: see dispatch.ts); rejects on transport errors, non-2xx, bodies that are no v1
 * AdmissionReview and the timeout: the webhook's own, or the request's deadline when that
 * comes first.
 */
export async function callWebhook(options: {
  readonly config: WebhookClientConfig;
  readonly review: object;
  readonly timeoutSeconds: number;
  /** The request's deadline (epoch ms). */
  readonly deadline?: number;
  readonly services: ServiceResolver;
}): Promise<{ readonly response?: AdmissionResponse }> {
  const destination = await webhookDestination(options.config, options.services);
  const ownTimeoutMs = options.timeoutSeconds * 1000;
  const timeoutMs = Math.min(ownTimeoutMs, options.deadline === undefined ? Infinity : options.deadline - Date.now());
  // The reference tells the webhook the time it has left in a `timeout` query parameter, in
  // whole seconds rounded up; none when it has none left (the call then fails at once).
  if (timeoutMs > 0) destination.url.searchParams.set('timeout', `${Math.ceil(timeoutMs / 1000)}s`);
  const cutByDeadline = timeoutMs < ownTimeoutMs;
  const answer = await postJson(destination, JSON.stringify(options.review), {
    timeoutMs: Math.max(0, timeoutMs) + (cutByDeadline ? DEADLINE_GRACE_MS : 0),
    maxAnswerBytes: MAX_RESPONSE_BYTES,
  });
  const text = answer.body.toString('utf8');
  if (answer.status < 200 || answer.status >= 300) throw new Error(refusalMessage(answer.status, text));
  return decodeReview(text);
}

/** What the reference's REST client makes of a webhook's answer that is no success: its Status's words, else the code's. */
function refusalMessage(code: number, text: string): string {
  try {
    const status = JSON.parse(text) as { kind?: unknown; message?: unknown } | null;
    if (status?.kind === 'Status' && typeof status.message === 'string' && status.message !== '') return status.message;
  } catch {
    // Not a Status: the code speaks.
  }
  return genericServerResponse(code, 'POST', text).message;
}

/** The AdmissionReview a webhook answered, read as the reference's decoder reads it into v1, or why it cannot be. */
function decodeReview(text: string): { readonly response?: AdmissionResponse } {
  let review: unknown;
  try {
    review = JSON.parse(text);
  } catch {
    // The reference's decoder takes YAML too: text that is no JSON may still be a YAML scalar.
    try {
      review = parseYaml(text);
    } catch {
      throw new Error(`couldn't get version/kind; json parse error: ${goJSONSyntaxError(text)}`);
    }
  }
  // Go decodes a null as an empty review, which then has no response.
  if (review === null) return {};
  if (typeof review !== 'object' || Array.isArray(review))
    throw new Error(
      `couldn't get version/kind; json parse error: json: cannot unmarshal ${goTypeOf(review)} into Go value of type ${GO_TYPE_META_STRUCT}`,
    );
  const { apiVersion = '', kind = '' } = review as { apiVersion?: unknown; kind?: unknown };
  if (kind === '') throw new Error(`Object 'Kind' is missing in '${text}'`);
  if (kind === 'AdmissionReview' && apiVersion === 'admission.k8s.io/v1beta1')
    throw new Error('converting (v1beta1.AdmissionReview) to (v1.AdmissionReview): unknown conversion');
  if (kind !== 'AdmissionReview' || apiVersion !== 'admission.k8s.io/v1')
    throw new Error(
      `no kind ${goQuote(String(kind))} is registered for version ${goQuote(String(apiVersion))} in scheme "pkg/runtime/scheme.go:110"`,
    );
  return review as { response?: AdmissionResponse };
}
