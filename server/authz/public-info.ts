/**
 * What the reference's default `system:public-info-viewer` binding grants to everyone,
 * anonymous included: GET on the health and version paths. Exactly those paths, as the role
 * lists them: `/livez/ping` is not among them, and RBAC grants it only to whom a role names.
 */
import { ALLOW, NO_OPINION, type Authorizer } from './types';

const PUBLIC_PATHS: ReadonlySet<string> = new Set(['/healthz', '/livez', '/readyz', '/version', '/version/']);

export function publicInfoAuthorizer(): Authorizer {
  return {
    authorize: ({ request }) =>
      !request.isResourceRequest && request.verb === 'get' && PUBLIC_PATHS.has(request.path) ? ALLOW : NO_OPINION,
  };
}
