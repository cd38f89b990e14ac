/**
 * The `--oidc-*` flags, which the reference translates into one `jwt` authenticator: the
 * username from `--oidc-username-claim`, prefixed with `<issuer>#` unless the claim is `email`
 * or a prefix is given (`-`: none); groups from `--oidc-groups-claim` with
 * `--oidc-groups-prefix`; every `--oidc-required-claim` as a claim validation rule. The
 * issuer's keys are issuer-keys.ts.
 */
import { readFileSync } from 'node:fs';
import type { OidcFlags } from '../config/flags';
import { JWT_ALGORITHMS, type JwtAuthenticatorConfig } from './jwt-authenticator';

/** Checks the flags as the reference does at start-up; throws the operator's message. */
export function validateOidcFlags(flags: OidcFlags): void {
  if (!flags.issuerUrl) return;
  let url: URL;
  try {
    url = new URL(flags.issuerUrl);
  } catch {
    throw new Error(`--oidc-issuer-url: Invalid value: ${JSON.stringify(flags.issuerUrl)}: must be a valid URL`);
  }
  if (url.protocol !== 'https:')
    throw new Error(`--oidc-issuer-url: Invalid value: ${JSON.stringify(flags.issuerUrl)}: URL scheme must be https`);
  if (!flags.clientId) throw new Error('--oidc-client-id must be set when --oidc-issuer-url is');
  for (const alg of flags.signingAlgs) {
    if (!JWT_ALGORITHMS.includes(alg)) throw new Error(`--oidc-signing-algs: unsupported signing alg: ${alg}`);
  }
}

/** The flags as one `jwt` entry of an AuthenticationConfiguration, as the reference translates them. */
export function oidcFlagsAsJwtConfig(
  flags: OidcFlags & { readonly issuerUrl: string; readonly clientId: string },
): JwtAuthenticatorConfig {
  const issuer = flags.issuerUrl;
  const usernamePrefix =
    flags.usernamePrefix === '-' ? '' : (flags.usernamePrefix ?? (flags.usernameClaim === 'email' ? '' : `${issuer}#`));
  return {
    issuer: {
      url: issuer,
      audiences: [flags.clientId],
      certificateAuthority: flags.caFile ? readFileSync(flags.caFile, 'utf8') : undefined,
    },
    algorithms: flags.signingAlgs,
    claimValidationRules: Object.entries(flags.requiredClaims).map(([claim, requiredValue]) => ({
      claim,
      requiredValue,
    })),
    claimMappings: {
      username: { claim: flags.usernameClaim, prefix: usernamePrefix },
      ...(flags.groupsClaim ? { groups: { claim: flags.groupsClaim, prefix: flags.groupsPrefix ?? '' } } : {}),
    },
  };
}
