/**
 * `--authentication-token-webhook-config-file`: a remote service decides bearer tokens. The
 * server POSTs a TokenReview (`authentication.k8s.io/v1beta1` by default, or `v1`) with the
 * token and the audiences wanted; the answer's `status` says who it is. An answer without
 * audiences means the API server itself. Answers, yes or no, are kept for
 * `--authentication-token-webhook-cache-ttl` (2 m) under a hash of the token, so a busy client
 * does not call the webhook per request; failures to reach it are not kept.
 */
import { createHash } from 'node:crypto';
import { goQuoteSlice } from '../../api/go-quote';
import { intersectAudiences } from './audiences';
import type { AuthenticationResult, TokenAuthenticator } from './types';
import { postJson, type PostDestination } from '../webhook-client/post-json';

const REQUEST_TIMEOUT_MS = 30_000;
const MAX_CACHED = 10_000;

export interface TokenWebhookOptions {
  readonly client: PostDestination;
  readonly version: 'v1' | 'v1beta1';
  readonly cacheTtlMs: number;
  readonly apiAudiences: readonly string[];
  readonly now?: () => number;
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
  const apiVersion = `authentication.k8s.io/${options.version}`;

  const ask = async (token: string, wanted: readonly string[]): Promise<AuthenticationResult> => {
    const review = {
      apiVersion,
      kind: 'TokenReview',
      metadata: { creationTimestamp: null },
      spec: { token, ...(wanted.length > 0 ? { audiences: wanted } : {}) },
      status: {},
    };
    const answer = await postJson(options.client, JSON.stringify(review), { timeoutMs: REQUEST_TIMEOUT_MS });
    if (answer.status < 200 || answer.status >= 300) throw new Error(`the webhook answered ${answer.status}`);
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

  return {
    async authenticateToken(token, requested) {
      const wanted = requested.length > 0 ? requested : options.apiAudiences;
      const key = createHash('sha256').update(token).update('\0').update(wanted.join('\0')).digest('base64');
      const cached = cache.get(key);
      if (cached && cached.expires > now()) return cached.result;
      let result: AuthenticationResult;
      try {
        result = await ask(token, wanted);
      } catch (error) {
        return { error: `webhook: ${(error as Error).message}` };
      }
      if (options.cacheTtlMs > 0) {
        if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value as string);
        cache.set(key, { expires: now() + options.cacheTtlMs, result });
      }
      return result;
    },
  };
}
