/**
 * The configured chain of authorization modes, from `--authorization-mode` (a comma list asked
 * in order), and the startup checks of the authorization flags. The server puts
 * `system:masters` ahead of whatever is configured (server-authorizer.ts). Without the flag the
 * chain is RBAC alone, so the admin certificate keeps working and every other identity is
 * governed by roles; `AlwaysAllow` stays available by flag.
 */
import type { ServerOptions } from '../config/flags';
import { alwaysAllow, alwaysDeny } from './always';
import type { Authorizer } from './types';

export const AUTHORIZATION_MODES = ['AlwaysAllow', 'AlwaysDeny', 'ABAC', 'RBAC', 'Node', 'Webhook'] as const;
export type AuthorizationMode = (typeof AUTHORIZATION_MODES)[number];
export const DEFAULT_AUTHORIZATION_MODES: readonly AuthorizationMode[] = ['RBAC'];

/** Builds each mode that needs more than itself; the server provides those it configured. */
export interface ModeFactories {
  readonly rbac: () => Authorizer;
  readonly node: () => Authorizer;
  readonly abac: () => Authorizer;
  readonly webhook: () => Authorizer;
}

/** The reasons the authorization flags cannot start a server; empty when they can. */
export function authorizationFlagErrors(options: ServerOptions): string[] {
  const errors: string[] = [];
  const webhookFlagsSet = options.authorizationWebhookConfigFile !== undefined;
  if (options.authorizationConfigFile !== undefined) {
    if (options.authorizationModes !== undefined || webhookFlagsSet) {
      errors.push(
        '--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined',
      );
    }
    return errors;
  }
  const modes = options.authorizationModes ?? DEFAULT_AUTHORIZATION_MODES;
  if (modes.length === 0) errors.push('at least one authorization-mode must be passed');
  const seen = new Set<string>();
  for (const mode of modes) {
    if (!(AUTHORIZATION_MODES as readonly string[]).includes(mode))
      errors.push(`authorization-mode ${JSON.stringify(mode)} is not a valid mode`);
    if (seen.has(mode)) errors.push(`authorization-mode ${JSON.stringify(mode)} has mode specified more than once`);
    seen.add(mode);
  }
  if (seen.has('ABAC') && options.authorizationPolicyFile === undefined)
    errors.push("authorization-mode ABAC's authorization policy file not passed");
  if (seen.has('Webhook') && !webhookFlagsSet)
    errors.push("authorization-mode Webhook's authorization config file not passed");
  if (!seen.has('ABAC') && options.authorizationPolicyFile !== undefined)
    errors.push('cannot specify --authorization-policy-file without mode ABAC');
  if (!seen.has('Webhook') && webhookFlagsSet)
    errors.push('cannot specify --authorization-webhook-config-file without mode Webhook');
  return errors;
}

export function modeChain(modes: readonly string[], factories: ModeFactories): Authorizer[] {
  return modes.map((mode) => {
    switch (mode as AuthorizationMode) {
      case 'AlwaysAllow':
        return alwaysAllow;
      case 'AlwaysDeny':
        return alwaysDeny;
      case 'RBAC':
        return factories.rbac();
      case 'Node':
        return factories.node();
      case 'ABAC':
        return factories.abac();
      case 'Webhook':
        return factories.webhook();
      default:
        throw new Error(`authorization-mode ${JSON.stringify(mode)} is not a valid mode`);
    }
  });
}
