/**
 * The Go types the reference decodes an AuthenticationConfiguration into
 * (k8s.io/apiserver/pkg/apis/apiserver/v1), as data: their JSON members, and the names Go's
 * unmarshal errors give them.
 */
import type { Definitions } from '../validation/decode';
import { GO_BOOL, GO_STRING, goNamed, goSlice, goStruct, TYPE_META_FIELDS } from '../validation/config-types';

export const AUTHENTICATION_CONFIG_ROOT = 'v1.AuthenticationConfiguration';

const EXPRESSION_AND_MESSAGE = { expression: GO_STRING, message: GO_STRING };

export const AUTHENTICATION_CONFIG_TYPES: Definitions = {
  [AUTHENTICATION_CONFIG_ROOT]: goStruct({
    ...TYPE_META_FIELDS,
    jwt: goSlice(goNamed('v1.JWTAuthenticator')),
    anonymous: goNamed('v1.AnonymousAuthConfig'),
  }),
  'v1.AnonymousAuthConfig': goStruct({ enabled: GO_BOOL, conditions: goSlice(goNamed('v1.AnonymousAuthCondition')) }),
  'v1.AnonymousAuthCondition': goStruct({ path: GO_STRING }),
  'v1.JWTAuthenticator': goStruct({
    issuer: goNamed('v1.Issuer'),
    claimValidationRules: goSlice(goNamed('v1.ClaimValidationRule')),
    claimMappings: goNamed('v1.ClaimMappings'),
    userValidationRules: goSlice(goNamed('v1.UserValidationRule')),
  }),
  'v1.Issuer': goStruct({
    url: GO_STRING,
    discoveryURL: GO_STRING,
    certificateAuthority: GO_STRING,
    audiences: goSlice(GO_STRING),
    audienceMatchPolicy: goNamed('v1.AudienceMatchPolicyType'),
    egressSelectorType: goNamed('v1.EgressSelectorType'),
  }),
  'v1.AudienceMatchPolicyType': GO_STRING,
  'v1.EgressSelectorType': GO_STRING,
  'v1.ClaimValidationRule': goStruct({ claim: GO_STRING, requiredValue: GO_STRING, ...EXPRESSION_AND_MESSAGE }),
  'v1.ClaimMappings': goStruct({
    username: goNamed('v1.PrefixedClaimOrExpression'),
    groups: goNamed('v1.PrefixedClaimOrExpression'),
    uid: goNamed('v1.ClaimOrExpression'),
    extra: goSlice(goNamed('v1.ExtraMapping')),
  }),
  'v1.PrefixedClaimOrExpression': goStruct({ claim: GO_STRING, prefix: GO_STRING, expression: GO_STRING }),
  'v1.ClaimOrExpression': goStruct({ claim: GO_STRING, expression: GO_STRING }),
  'v1.ExtraMapping': goStruct({ key: GO_STRING, valueExpression: GO_STRING }),
  'v1.UserValidationRule': goStruct(EXPRESSION_AND_MESSAGE),
};
