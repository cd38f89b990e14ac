/**
 * One JWT issuer, as an `AuthenticationConfiguration` `jwt` entry describes it (the `--oidc-*`
 * flags are translated into one such entry): keys from the issuer's discovery document,
 * audiences, claim validation rules, and the mappings of claims to username, groups and uid.
 * A token from another issuer is not this method's; anything else wrong with it is an error.
 */
import type { JWTPayload } from 'jose';
import { decodeJwt } from 'jose';
import type { CompiledExpression } from '../cel/environment';
import { IssuerKeys } from './issuer-keys';
import type { AuthenticationResult, TokenAuthenticator } from './types';

/** A mapping by claim (and prefix), or by a CEL expression over `claims`. */
export interface ClaimMapping {
  readonly claim: string;
  /** Required for username (may be ""); optional for groups. */
  readonly prefix?: string;
  readonly expression?: CompiledExpression;
}

export type ClaimValidationRule =
  | { readonly claim: string; readonly requiredValue: string }
  | { readonly expression: CompiledExpression; readonly message: string };

export interface JwtAuthenticatorConfig {
  readonly issuer: {
    readonly url: string;
    readonly discoveryURL?: string;
    readonly certificateAuthority?: string;
    readonly audiences: readonly string[];
  };
  readonly algorithms: readonly string[];
  readonly claimValidationRules: readonly ClaimValidationRule[];
  readonly claimMappings: {
    readonly username: ClaimMapping;
    readonly groups?: ClaimMapping;
    readonly uid?: ClaimMapping;
    readonly extra?: readonly { readonly key: string; readonly valueExpression: CompiledExpression }[];
  };
  /** CEL over `user`; all must hold. */
  readonly userValidationRules?: readonly { readonly expression: CompiledExpression; readonly message: string }[];
}

/** A CEL result as a string list: a string is one item; null or "" none. */
function stringsOf(value: unknown): string[] | undefined {
  if (value === null || value === undefined || value === '') return [];
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.every((item) => typeof item === 'string'))
    return value.filter((item) => item !== '');
  return undefined;
}

export const JWT_ALGORITHMS: readonly string[] = [
  'RS256',
  'RS384',
  'RS512',
  'ES256',
  'ES384',
  'ES512',
  'PS256',
  'PS384',
  'PS512',
];

export function discoveryUrlOf(issuer: string): string {
  return `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
}

export function jwtAuthenticator(config: JwtAuthenticatorConfig): TokenAuthenticator {
  const issuer = config.issuer.url;
  const keys = new IssuerKeys({
    issuer,
    discoveryUrl: config.issuer.discoveryURL ?? discoveryUrlOf(issuer),
    ca: config.issuer.certificateAuthority,
  });
  // Start now, so the first token does not wait; a failure is retried when tokens arrive.
  keys.refresh(false).catch(() => {});
  const { username, groups, uid } = config.claimMappings;

  return {
    async authenticateToken(token): Promise<AuthenticationResult> {
      let unverified: JWTPayload;
      try {
        unverified = decodeJwt(token);
      } catch {
        return undefined;
      }
      if (unverified.iss !== issuer) return undefined;
      let claims: JWTPayload;
      try {
        claims = await keys.verify(token, { audience: config.issuer.audiences, algorithms: config.algorithms });
      } catch (error) {
        return { error: `jwt: verify token: ${(error as Error).message}` };
      }
      const values = { claims };
      for (const rule of config.claimValidationRules) {
        if ('expression' in rule) {
          const result = rule.expression.evaluate(values);
          if (!result.ok) return { error: `oidc: error evaluating claim validation expression: ${result.error}` };
          if (result.value !== true)
            return {
              error: `oidc: error evaluating claim validation expression: expression '${rule.expression.expression}' resulted in error: ${rule.message}`,
            };
          continue;
        }
        const got = claims[rule.claim];
        if (got === undefined) return { error: `oidc: required claim ${rule.claim} not present in ID token` };
        if (got !== rule.requiredValue)
          return {
            error: `oidc: required claim ${rule.claim} value does not match. Got = ${String(got)}, want = ${rule.requiredValue}`,
          };
      }
      /** A mapping's value: the expression's result, or the claim's. */
      const mapped = (mapping: ClaimMapping): { value: unknown } | { error: string } => {
        if (!mapping.expression) return { value: claims[mapping.claim] };
        const result = mapping.expression.evaluate(values);
        return result.ok
          ? { value: result.value }
          : { error: `oidc: error evaluating expression '${mapping.expression.expression}': ${result.error}` };
      };

      const usernameValue = mapped(username);
      if ('error' in usernameValue) return usernameValue;
      const name = typeof usernameValue.value === 'string' ? usernameValue.value : undefined;
      if (name === undefined || name === '')
        return { error: `oidc: parse username claims "${username.claim}": claim not present` };
      if (
        !username.expression &&
        username.claim === 'email' &&
        claims.email_verified !== undefined &&
        claims.email_verified !== true
      ) {
        return { error: 'oidc: email not verified' };
      }
      let groupNames: string[] = [];
      if (groups) {
        const value = mapped(groups);
        if ('error' in value) return value;
        const list = stringsOf(value.value);
        if (list === undefined)
          return { error: `oidc: parse groups claim "${groups.claim}": expected a string or a list of strings` };
        groupNames = list.map((group) => `${groups.prefix ?? ''}${group}`);
      }
      let uidValue: string | undefined;
      if (uid) {
        const value = mapped(uid);
        if ('error' in value) return value;
        if (typeof value.value !== 'string')
          return { error: `oidc: parse uid claim "${uid.claim}": claim not present` };
        uidValue = value.value;
      }
      const extra: Record<string, string[]> = {};
      for (const { key, valueExpression } of config.claimMappings.extra ?? []) {
        const result = valueExpression.evaluate(values);
        if (!result.ok)
          return { error: `oidc: error evaluating extra expression '${valueExpression.expression}': ${result.error}` };
        const list = stringsOf(result.value);
        if (list === undefined) return { error: `oidc: extra mapping ${key}: expected a string or a list of strings` };
        if (list.length > 0) extra[key] = list;
      }
      const user = {
        name: `${username.prefix ?? ''}${name}`,
        ...(uidValue ? { uid: uidValue } : {}),
        groups: groupNames,
        extra,
      };
      for (const rule of config.userValidationRules ?? []) {
        const result = rule.expression.evaluate({
          user: { username: user.name, uid: user.uid ?? '', groups: user.groups, extra: user.extra },
        });
        if (!result.ok) return { error: `oidc: error evaluating user info validation rule: ${result.error}` };
        if (result.value !== true)
          return {
            error: `oidc: error evaluating user info validation rule: validation expression '${rule.expression.expression}' failed: ${rule.message}`,
          };
      }
      return { user };
    },
  };
}
