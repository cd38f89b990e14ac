/**
 * One JWT issuer, as an `AuthenticationConfiguration` `jwt` entry describes it (the `--oidc-*`
 * flags are translated into one such entry): keys from the issuer's discovery document,
 * audiences, claim validation rules, and the mappings of claims to username, groups and uid.
 * A token from another issuer is not this method's; anything else wrong with it is an error.
 */
import type { JWTPayload } from 'jose';
import { decodeJwt } from 'jose';
import { IssuerKeys } from './oidc';
import type { AuthenticationResult, TokenAuthenticator } from './types';

export interface ClaimMapping {
  readonly claim: string;
  /** Required for username (may be ""); optional for groups. */
  readonly prefix?: string;
}

export interface JwtAuthenticatorConfig {
  readonly issuer: {
    readonly url: string;
    readonly discoveryURL?: string;
    readonly certificateAuthority?: string;
    readonly audiences: readonly string[];
  };
  readonly algorithms: readonly string[];
  readonly claimValidationRules: readonly { readonly claim: string; readonly requiredValue: string }[];
  readonly claimMappings: {
    readonly username: ClaimMapping;
    readonly groups?: ClaimMapping;
    readonly uid?: { readonly claim: string };
  };
}

export const JWT_ALGORITHMS: readonly string[] = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512'];

export function discoveryUrlOf(issuer: string): string {
  return `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
}

function stringClaim(claims: JWTPayload, name: string): string | undefined {
  const value = claims[name];
  return typeof value === 'string' ? value : undefined;
}

export function jwtAuthenticator(config: JwtAuthenticatorConfig): TokenAuthenticator {
  const issuer = config.issuer.url;
  const keys = new IssuerKeys({ issuer, discoveryUrl: config.issuer.discoveryURL ?? discoveryUrlOf(issuer), ca: config.issuer.certificateAuthority });
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
      for (const rule of config.claimValidationRules) {
        const got = claims[rule.claim];
        if (got === undefined) return { error: `oidc: required claim ${rule.claim} not present in ID token` };
        if (got !== rule.requiredValue) return { error: `oidc: required claim ${rule.claim} value does not match. Got = ${String(got)}, want = ${rule.requiredValue}` };
      }
      const name = stringClaim(claims, username.claim);
      if (name === undefined || name === '') return { error: `oidc: parse username claims "${username.claim}": claim not present` };
      if (username.claim === 'email' && claims.email_verified !== undefined && claims.email_verified !== true) return { error: 'oidc: email not verified' };
      let groupNames: string[] = [];
      if (groups && claims[groups.claim] !== undefined) {
        const value = claims[groups.claim];
        if (typeof value === 'string') groupNames = [value];
        else if (Array.isArray(value) && value.every((item) => typeof item === 'string')) groupNames = value as string[];
        else return { error: `oidc: parse groups claim "${groups.claim}": expected a string or a list of strings` };
        groupNames = groupNames.map((group) => `${groups.prefix ?? ''}${group}`);
      }
      let uidValue: string | undefined;
      if (uid) {
        uidValue = stringClaim(claims, uid.claim);
        if (uidValue === undefined) return { error: `oidc: parse uid claim "${uid.claim}": claim not present` };
      }
      return { user: { name: `${username.prefix ?? ''}${name}`, ...(uidValue ? { uid: uidValue } : {}), groups: groupNames } };
    },
  };
}
