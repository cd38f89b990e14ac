/**
 * The Go types the reference decodes an AuthorizationConfiguration into
 * (k8s.io/apiserver/pkg/apis/apiserver/v1), as data: their JSON members, and the names Go's
 * unmarshal errors give them. A metav1.Duration reads a string first, and is named so.
 */
import type { Definitions } from '../validation/decode';
import { GO_BOOL, GO_STRING, goNamed, goSlice, goStruct, TYPE_META_FIELDS } from '../validation/config-types';

export const AUTHORIZATION_CONFIG_ROOT = 'v1.AuthorizationConfiguration';

export const AUTHORIZATION_CONFIG_TYPES: Definitions = {
  [AUTHORIZATION_CONFIG_ROOT]: goStruct({
    ...TYPE_META_FIELDS,
    authorizers: goSlice(goNamed('v1.AuthorizerConfiguration')),
  }),
  'v1.AuthorizerConfiguration': goStruct({
    type: GO_STRING,
    name: GO_STRING,
    webhook: goNamed('v1.WebhookConfiguration'),
  }),
  'v1.WebhookConfiguration': goStruct({
    authorizedTTL: GO_STRING,
    cacheAuthorizedRequests: GO_BOOL,
    unauthorizedTTL: GO_STRING,
    cacheUnauthorizedRequests: GO_BOOL,
    timeout: GO_STRING,
    subjectAccessReviewVersion: GO_STRING,
    matchConditionSubjectAccessReviewVersion: GO_STRING,
    failurePolicy: GO_STRING,
    connectionInfo: goNamed('v1.WebhookConnectionInfo'),
    matchConditions: goSlice(goNamed('v1.WebhookMatchCondition')),
  }),
  'v1.WebhookConnectionInfo': goStruct({ type: GO_STRING, kubeConfigFile: GO_STRING }),
  'v1.WebhookMatchCondition': goStruct({ expression: GO_STRING }),
};
