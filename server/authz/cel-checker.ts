/**
 * The CEL authorizer library's checks (`authorizer.group(g).resource(r)...check(verb)`,
 * `authorizer.path(p).check(verb)`) asked of the server's authorizer, as the reference asks its
 * own: a resource check names every version (`*`) and carries the requirements of its field and
 * label selectors (AuthorizeWithSelectors is locked on in 1.34), a path check is a non-resource
 * request.
 */
import type { AuthorizationChecker } from '../cel/libraries/authorizer';
import { selectorAttributes } from './request-attributes';
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
          ...selectorAttributes(resource.fieldSelector, resource.labelSelector),
        }
      : nonResourceAttributes(user, verb, path ?? '');
    return authorizer.authorize(attributes);
  };
}
