/**
 * `--authentication-token-webhook-config-file`: a remote service decides bearer tokens. The
 * server POSTs a TokenReview (`authentication.k8s.io/v1beta1` by default, or `v1`) with the
 * token and the audiences wanted; the answer's `status` says who it is. An answer without
 * audiences means the API server itself. Answers, yes or no, are kept for
 * `--authentication-token-webhook-cache-ttl` (2 m) under a hash of the token, so a busy client
 * does not call the webhook per request, and requests with a token being looked up wait for
 * that lookup; failures to reach it are not kept. A call that may pass (a reset connection,
 * 429, 500, 504) is made again on the reference's retry schedule, within 30 s for the lookup.
 */
import { createHash } from 'node:crypto';
import { goQuoteSlice } from '../../api/go-quote';
import { intersectAudiences } from './audiences';
import type { AuthenticationResult, TokenAuthenticator } from './types';
import type { PostDestination } from '../webhook-client/post-json';
import { AUTH_WEBHOOK_INITIAL_DELAY_MS, postOnce, retryTransient } from '../webhook-client/backoff';

/** A lookup's bound, its retries included (the reference's shared lookup timeout). */
const LOOKUP_TIMEOUT_MS = 30_000;
const MAX_CACHED = 10_000;

export interface TokenWebhookOptions {
  readonly client: PostDestination;
  readonly version: 'v1' | 'v1beta1';
  readonly cacheTtlMs: number;
  readonly apiAudiences: readonly string[];
  readonly now?: () => number;
  /** The first retry's delay; the reference's half a second unless a test asks for less. */
  readonly retryInitialDelayMs?: number;
}

interface ReviewStatus {
  authenticated?: boolean;
  user?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  audiences?: string[];
  error?: string;
}

export function tokenWebhookAuthenticator(options: TokenWebhookOptions): TokenAuthenticator {
  const now = options.now ?? Date.now;
  const cache = new Map<string, { expires: number; result: AuthenticationResult }>();
  /** Lookups under way, by cache key: a request with the same token waits for the same answer. */
  const lookups = new Map<string, Promise<AuthenticationResult>>();
  const apiVersion = `authentication.k8s.io/${options.version}`;

  const ask = async (token: string, wanted: readonly string[]): Promise<AuthenticationResult> => {
    const review = {
      apiVersion,
      kind: 'TokenReview',
      metadata: {},
      spec: { token, ...(wanted.length > 0 ? { audiences: wanted } : {}) },
      status: {},
    };
    const body = JSON.stringify(review);
    const deadline = Date.now() + LOOKUP_TIMEOUT_MS;
    const answer = await retryTransient(
      options.retryInitialDelayMs ?? AUTH_WEBHOOK_INITIAL_DELAY_MS,
      () =>
        postOnce(
          options.client,
          body,
          { timeoutMs: Math.max(1, deadline - Date.now()) },
          (status) => `the webhook answered ${status}`,
        ),
      () => Date.now() < deadline,
    );
    let parsed: { status?: ReviewStatus } | null;
    try {
      parsed = JSON.parse(answer.body.toString('utf8')) as { status?: ReviewStatus } | null;
    } catch (error) {
      throw new Error(`the webhook's answer is not JSON: ${(error as Error).message}`);
    }
    const status = parsed?.status ?? {};
    if (status.authenticated !== true) return status.error ? { error: status.error } : undefined;
    if (!status.user?.username) return { error: 'the webhook authenticated the token without a username' };
    const granted = status.audiences && status.audiences.length > 0 ? status.audiences : [...options.apiAudiences];
    const audiences = wanted.length > 0 ? intersectAudiences(wanted, granted) : granted;
    if (wanted.length > 0 && audiences.length === 0) {
      return {
        error: `webhook audiences ${goQuoteSlice(granted)} is invalid for the target audiences ${goQuoteSlice(wanted)}`,
      };
    }
    const { username, uid, groups, extra } = status.user;
    return { user: { name: username, ...(uid ? { uid } : {}), groups: groups ?? [], extra: extra ?? {} }, audiences };
  };

  /** The webhook's answer, and whether it may be kept: a failure to get one is not. */
  const lookUp = async (token: string, wanted: readonly string[]) => {
    try {
      return { result: await ask(token, wanted), keep: true };
    } catch (error) {
      return { result: { error: `webhook: ${(error as Error).message}` }, keep: false };
    }
  };

  return {
    async authenticateToken(token, requested) {
      const wanted = requested.length > 0 ? requested : options.apiAudiences;
      const key = createHash('sha256').update(token).update('\0').update(wanted.join('\0')).digest('base64');
      const cached = cache.get(key);
      if (cached && cached.expires > now()) return cached.result;
      if (options.cacheTtlMs <= 0) return (await lookUp(token, wanted)).result;
      let pending = lookups.get(key);
      if (pending === undefined) {
        pending = lookUp(token, wanted).then(({ result, keep }) => {
          lookups.delete(key);
          if (keep) {
            if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value as string);
            cache.set(key, { expires: now() + options.cacheTtlMs, result });
          }
          return result;
        });
        lookups.set(key, pending);
      }
      return pending;
    },
  };
}
