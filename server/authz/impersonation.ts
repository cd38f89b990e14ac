/**
 * What impersonation asks the authorizer, as the reference asks it: verb `impersonate` on the
 * identity taken on, one question per part of it. Users and groups are core-group resources;
 * a service account is `serviceaccounts` in its namespace (and impersonating its user name is
 * asked that way too); a UID and each extra value are in `authentication.k8s.io`, the extra's
 * key as the subresource. The authentication stage that reads the Impersonate-* headers asks
 * the server's authorizer with these, so RBAC, webhooks and every other mode govern it.
 */
import type { UserInfo } from '../../api/user-info';
import type { Attributes } from './types';
import { SERVICE_ACCOUNT_USERNAME_PREFIX } from '../authn/service-account/names';

export type ImpersonatedPart =
  | { readonly kind: 'user'; readonly name: string }
  | { readonly kind: 'group'; readonly name: string }
  | { readonly kind: 'uid'; readonly uid: string }
  | { readonly kind: 'extra'; readonly key: string; readonly value: string };

export function impersonationAttributes(requester: UserInfo, part: ImpersonatedPart): Attributes {
  const base = {
    user: requester,
    verb: 'impersonate',
    isResourceRequest: true,
    path: '',
    apiVersion: '',
    subresource: '',
    namespace: '',
  };
  switch (part.kind) {
    case 'user': {
      if (part.name.startsWith(SERVICE_ACCOUNT_USERNAME_PREFIX)) {
        const [namespace, name] = part.name.slice(SERVICE_ACCOUNT_USERNAME_PREFIX.length).split(':');
        if (namespace && name) return { ...base, apiGroup: '', resource: 'serviceaccounts', namespace, name };
      }
      return { ...base, apiGroup: '', resource: 'users', name: part.name };
    }
    case 'group':
      return { ...base, apiGroup: '', resource: 'groups', name: part.name };
    case 'uid':
      return { ...base, apiGroup: 'authentication.k8s.io', resource: 'uids', name: part.uid };
    case 'extra':
      return {
        ...base,
        apiGroup: 'authentication.k8s.io',
        resource: 'userextras',
        subresource: part.key,
        name: part.value,
      };
  }
}
