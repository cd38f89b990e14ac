/**
 * The CEL authorizer library's checks (`authorizer.group(g).resource(r)...check(verb)`,
 * `authorizer.path(p).check(verb)`) asked of the server's authorizer, as the reference asks its
 * own: a resource check names every version (`*`), a path check is a non-resource request.
 */
import type { AuthorizationChecker } from '../cel/libraries/authorizer';
import { nonResourceAttributes, type Attributes, type Authorizer } from './types';

export function celAuthorizationChecker(authorizer: Authorizer): AuthorizationChecker {
  return ({ user, verb, resource, path }) => {
    const attributes: Attributes = resource
      ? {
          user,
          verb,
          isResourceRequest: true,
          path: '',
          namespace: resource.namespace,
          apiGroup: resource.group,
          apiVersion: '*',
          resource: resource.resource,
          subresource: resource.subresource,
          name: resource.name,
        }
      : nonResourceAttributes(user, verb, path ?? '');
    return authorizer.authorize(attributes);
  };
}
