/**
 * The server's one authorizer: `system:masters`, then the public health and version paths,
 * then what the caller adds (RBAC, webhooks). The handler chain asks it for the request's verb,
 * and handlers ask the very same one for the extra permissions some requests need (create for
 * an apply that creates, `unsafe-delete-ignore-read-errors`), so the two never disagree.
 */
import { publicInfoAuthorizer } from './public-info';
import { systemMastersAuthorizer } from './system-masters';
import type { Authorizer } from './types';
import { union } from './union';

export function serverAuthorizer(extra: readonly Authorizer[] = []): Authorizer {
  return union([systemMastersAuthorizer(), publicInfoAuthorizer(), ...extra]);
}
