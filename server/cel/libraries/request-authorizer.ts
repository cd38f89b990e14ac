/**
 * The `authorizer` and `authorizer.requestResource` variables of admission expressions
 * (policies' validations, webhooks' matchConditions): checks on behalf of the requesting user,
 * asked of the server's own authorizer, and a resource check already aimed at the request's
 * resource, subresource, namespace and name (as the reference builds it), so that
 * `authorizer.requestResource.check('delete').allowed()` needs no restating of the request.
 */
import { AUTHORIZER_TYPE, CelAuthorizer, ResourceCheck, type AuthorizationChecker } from './authorizer';
import type { UserInfo } from '../../../api/user-info';

/** The library's type of a resource check (what `authorizer.group(g).resource(r)` gives). */
const RESOURCE_CHECK_TYPE = 'kubernetes.authorization.ResourceCheck';

/**
 * The declarations to add to an expression compiler. The dotted name is resolved as one
 * qualified identifier when type-checking; at run time it is a field of the authorizer value.
 */
export const AUTHORIZER_VARIABLES = {
  authorizer: AUTHORIZER_TYPE,
  'authorizer.requestResource': RESOURCE_CHECK_TYPE,
} as const;

export interface AuthorizedRequest {
  readonly userInfo: UserInfo;
  readonly resource: { readonly group: string; readonly resource: string };
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
}

/** The `authorizer` value for one request, carrying its `requestResource`. */
export function requestAuthorizer(checker: AuthorizationChecker, request: AuthorizedRequest): CelAuthorizer {
  const authorizer = new CelAuthorizer(request.userInfo, checker);
  const requestResource = new ResourceCheck(authorizer, {
    group: request.resource.group,
    resource: request.resource.resource,
    subresource: request.subresource,
    namespace: request.namespace,
    name: request.name,
  });
  // An own field: the engine maps a value to its CEL type by its exact class, so no subclass.
  Object.defineProperty(authorizer, 'requestResource', { value: requestResource, enumerable: true });
  return authorizer;
}
