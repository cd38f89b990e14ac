/**
 * The server's one authorizer: `system:masters` first, as the reference always puts it, then
 * the configured chain (RBAC, Node, ABAC, webhooks: see `authorization-chain.ts`). The handler
 * chain asks it for the request's verb, and handlers and access reviews ask the very same one
 * for the extra permissions some requests need (create for an apply that creates,
 * `unsafe-delete-ignore-read-errors`), so they never disagree.
 */
import { systemMastersAuthorizer } from './system-masters';
import type { Authorizer } from './types';
import { union } from './union';

export function serverAuthorizer(chain: readonly Authorizer[] = []): Authorizer {
  // `system:masters` decides but lists no rules: a SelfSubjectRulesReview lists the configured
  // modes' rules only, as the reference's rule resolvers are those modes.
  return { authorize: union([systemMastersAuthorizer(), ...chain]).authorize, rulesFor: union(chain).rulesFor };
}
