/**
 * Bootstrap tokens (`--enable-bootstrap-token-auth`): a token `<id>.<secret>` is good when
 * `kube-system/bootstrap-token-<id>` is a Secret of type `bootstrap.kubernetes.io/token` with
 * that id and secret, `usage-bootstrap-authentication: "true"`, not expired and not being
 * deleted. The user is `system:bootstrap:<id>` in `system:bootstrappers` plus the secret's
 * `auth-extra-groups`. A token of the right shape that fails any check is simply not
 * accepted, as in the reference (it becomes a 401 unless another method takes it).
 */
import { timingSafeEqual } from 'node:crypto';
import type { KubeObject } from '../../api/objects';
import type { ObjectLookup } from './service-account/authenticator';
import type { TokenAuthenticator } from './types';

export const BOOTSTRAP_TOKEN_SECRET_TYPE = 'bootstrap.kubernetes.io/token';
export const BOOTSTRAP_TOKEN_SECRET_PREFIX = 'bootstrap-token-';
export const BOOTSTRAP_NAMESPACE = 'kube-system';
const TOKEN_PATTERN = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
const EXTRA_GROUP_PATTERN = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;
const DEFAULT_GROUP = 'system:bootstrappers';

/** The decoded data of a bootstrap-token Secret; undefined for any other Secret. */
export function bootstrapTokenData(secret: KubeObject): Record<string, string> | undefined {
  if (secret.type !== BOOTSTRAP_TOKEN_SECRET_TYPE || typeof secret.data !== 'object' || secret.data === null)
    return undefined;
  const data: Record<string, string> = {};
  for (const [key, value] of Object.entries(secret.data as Record<string, unknown>)) {
    if (typeof value === 'string') data[key] = Buffer.from(value, 'base64').toString('utf8');
  }
  return data;
}

/** When the token stops being valid (epoch ms); undefined: never. An unreadable date counts as expired, as in the reference. */
export function bootstrapTokenExpiry(data: Record<string, string>): number | undefined {
  const expiration = data.expiration;
  if (expiration === undefined || expiration === '') return undefined;
  const at = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(expiration)
    ? Date.parse(expiration)
    : NaN;
  return Number.isNaN(at) ? 0 : at;
}

export function bootstrapTokenExpired(data: Record<string, string>, now: number): boolean {
  const expiry = bootstrapTokenExpiry(data);
  return expiry !== undefined && now > expiry;
}

/** `system:bootstrappers` and the valid `auth-extra-groups`, sorted and unique as the reference lists them; undefined when one is invalid. */
export function bootstrapTokenGroups(data: Record<string, string>): string[] | undefined {
  const groups = new Set([DEFAULT_GROUP]);
  for (const group of (data['auth-extra-groups'] ?? '').split(',')) {
    const trimmed = group.trim();
    if (trimmed === '') continue;
    if (!EXTRA_GROUP_PATTERN.test(trimmed)) return undefined;
    groups.add(trimmed);
  }
  return [...groups].sort();
}

function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

export function bootstrapTokenAuthenticator(options: {
  readonly lookup: ObjectLookup;
  readonly now?: () => number;
}): TokenAuthenticator {
  const now = options.now ?? Date.now;
  return {
    async authenticateToken(token) {
      const match = TOKEN_PATTERN.exec(token);
      if (match === null) return undefined;
      const [, id, secretPart] = match;
      const secret = await options.lookup('secrets', BOOTSTRAP_NAMESPACE, `${BOOTSTRAP_TOKEN_SECRET_PREFIX}${id}`);
      if (secret === undefined || secret.metadata.deletionTimestamp) return undefined;
      const data = bootstrapTokenData(secret);
      if (data === undefined) return undefined;
      if (!sameSecret(data['token-secret'] ?? '', secretPart) || data['token-id'] !== id) return undefined;
      if (bootstrapTokenExpired(data, now())) return undefined;
      if (data['usage-bootstrap-authentication'] !== 'true') return undefined;
      const groups = bootstrapTokenGroups(data);
      if (groups === undefined) return undefined;
      return { user: { name: `system:bootstrap:${id}`, groups } };
    },
  };
}
