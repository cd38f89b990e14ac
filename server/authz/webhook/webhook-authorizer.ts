/**
 * The Webhook mode: asks a remote service with a SubjectAccessReview (authorization.k8s.io
 * v1 or v1beta1, whose `spec.group` is v1's `spec.groups`) carrying the resource or non-resource
 * attributes, the user, and selector requirements when the request has them. `allowed` allows,
 * `denied` denies at once, neither is no opinion. Answers are cached by the review they
 * answer: allowed ones for `authorizedTtlMs` (5 min), the others for `unauthorizedTtlMs` (30 s).
 * A call that may pass (a reset connection, 429, 500, 504) is made again, as the reference's
 * retry schedule says (five attempts, from half a second apart); one that fails for good
 * (unreachable, timeout, another non-2xx, malformed answer) follows `failurePolicy`: no opinion
 * (the flag-configured webhook) or deny.
 */
import type { FieldRequirement } from '../../selectors/field-selector';
import type { LabelOperator, LabelRequirement } from '../../selectors/label-selector';
import type { Attributes, AuthorizationResult, Authorizer } from '../types';
import type { PostDestination } from '../../webhook-client/post-json';
import { AUTH_WEBHOOK_INITIAL_DELAY_MS, postOnce, retryTransient } from '../../webhook-client/backoff';

export interface WebhookOptions {
  readonly client: PostDestination;
  readonly version: 'v1' | 'v1beta1';
  readonly authorizedTtlMs: number;
  readonly unauthorizedTtlMs: number;
  readonly cacheAuthorized: boolean;
  readonly cacheUnauthorized: boolean;
  readonly timeoutMs: number;
  readonly failurePolicy: 'NoOpinion' | 'Deny';
  /** The first retry's delay; the reference's half a second unless a test asks for less. */
  readonly retryInitialDelayMs?: number;
  /** Names the webhook in reasons (the configuration's `name`). */
  readonly name?: string;
  /** Skips the webhook (no opinion) unless every condition holds; throws when one cannot be evaluated. */
  readonly matches?: (review: SubjectAccessReview) => boolean;
}

export interface SubjectAccessReview {
  readonly apiVersion: string;
  readonly kind: 'SubjectAccessReview';
  readonly spec: Record<string, unknown>;
}

function selectorRequirements(
  fields: readonly FieldRequirement[] | undefined,
  labels: readonly LabelRequirement[] | undefined,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (fields !== undefined && fields.length > 0) {
    out.fieldSelector = {
      requirements: fields.map(({ field, operator, value }) => ({
        key: field,
        operator: operator === '=' ? 'In' : 'NotIn',
        values: [value],
      })),
    };
  }
  // A review's requirements have no Gt or Lt: the reference leaves those out, which asks about
  // as much or more than the request selects (requirements are AND'd).
  const expressible = (labels ?? []).filter(({ operator }) => LABEL_OPERATORS[operator] !== undefined);
  if (expressible.length > 0) {
    out.labelSelector = {
      requirements: expressible.map(({ key, operator, values }) => ({
        key,
        operator: LABEL_OPERATORS[operator],
        ...(values.length > 0 ? { values } : {}),
      })),
    };
  }
  return out;
}

const LABEL_OPERATORS: Readonly<Partial<Record<LabelOperator, string>>> = {
  '=': 'In',
  in: 'In',
  '!=': 'NotIn',
  notin: 'NotIn',
  exists: 'Exists',
  '!': 'DoesNotExist',
};

/** The review the reference sends for these attributes. */
export function reviewFor(attributes: Attributes, version: 'v1' | 'v1beta1'): SubjectAccessReview {
  const { user } = attributes;
  const spec: Record<string, unknown> = { user: user.name, [version === 'v1' ? 'groups' : 'group']: [...user.groups] };
  if (user.uid) spec.uid = user.uid;
  if (user.extra && Object.keys(user.extra).length > 0) spec.extra = user.extra;
  if (attributes.isResourceRequest) {
    spec.resourceAttributes = {
      namespace: attributes.namespace,
      verb: attributes.verb,
      group: attributes.apiGroup,
      version: attributes.apiVersion,
      resource: attributes.resource,
      subresource: attributes.subresource,
      name: attributes.name,
      ...selectorRequirements(attributes.fieldSelector, attributes.labelSelector),
    };
  } else {
    spec.nonResourceAttributes = { path: attributes.path, verb: attributes.verb };
  }
  return { apiVersion: `authorization.k8s.io/${version}`, kind: 'SubjectAccessReview', spec };
}

interface ReviewStatus {
  allowed?: unknown;
  denied?: unknown;
  reason?: unknown;
  evaluationError?: unknown;
}

async function post(options: WebhookOptions, review: SubjectAccessReview): Promise<ReviewStatus> {
  const answer = await postOnce(
    options.client,
    JSON.stringify(review),
    { timeoutMs: options.timeoutMs },
    (status) => `the webhook answered HTTP ${status}`,
  );
  try {
    const parsed = JSON.parse(answer.body.toString('utf8')) as {
      apiVersion?: unknown;
      kind?: unknown;
      status?: ReviewStatus;
    } | null;
    if (parsed?.kind !== 'SubjectAccessReview' || parsed.apiVersion !== review.apiVersion) {
      throw new Error(
        `expected a ${review.apiVersion} SubjectAccessReview, got ${String(parsed?.apiVersion)} ${String(parsed?.kind)}`,
      );
    }
    return parsed.status ?? {};
  } catch (error) {
    throw new Error(`malformed webhook answer: ${(error as Error).message}`);
  }
}

export function webhookAuthorizer(options: WebhookOptions): Authorizer {
  const cache = new Map<string, { result: AuthorizationResult; expires: number }>();
  const label = options.name ? `webhook ${JSON.stringify(options.name)}` : 'webhook';
  const failed = (message: string): AuthorizationResult =>
    options.failurePolicy === 'Deny'
      ? { decision: 'deny', reason: `${label}: ${message}` }
      : { decision: 'no-opinion', reason: `${label}: ${message}` };

  return {
    async authorize(attributes) {
      const review = reviewFor(attributes, options.version);
      if (options.matches) {
        try {
          // Match conditions always see the v1 form of the review.
          if (!options.matches(options.version === 'v1' ? review : reviewFor(attributes, 'v1')))
            return { decision: 'no-opinion', reason: '' };
        } catch (error) {
          return failed(`match condition error: ${(error as Error).message}`);
        }
      }
      const key = JSON.stringify(review.spec);
      const now = Date.now();
      const cached = cache.get(key);
      if (cached !== undefined && cached.expires > now) return cached.result;
      let status: ReviewStatus;
      try {
        status = await retryTransient(options.retryInitialDelayMs ?? AUTH_WEBHOOK_INITIAL_DELAY_MS, () =>
          post(options, review),
        );
      } catch (error) {
        return failed((error as Error).message);
      }
      const reason = typeof status.reason === 'string' ? status.reason : '';
      const result: AuthorizationResult =
        status.allowed === true
          ? { decision: 'allow', reason }
          : status.denied === true
            ? { decision: 'deny', reason }
            : { decision: 'no-opinion', reason };
      const allowed = result.decision === 'allow';
      if (allowed ? options.cacheAuthorized : options.cacheUnauthorized) {
        cache.set(key, { result, expires: now + (allowed ? options.authorizedTtlMs : options.unauthorizedTtlMs) });
        if (cache.size > 10_000) cache.delete(cache.keys().next().value as string);
      }
      return result;
    },
  };
}
