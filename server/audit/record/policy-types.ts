/**
 * The Go types the reference decodes an audit Policy into (k8s.io/apiserver/pkg/apis/audit/v1),
 * as data: their JSON members, and the names Go's unmarshal errors give them. The metadata is
 * an object the policy does not read.
 */
import type { Definitions } from '../../validation/decode';
import { GO_BOOL, GO_STRING, goNamed, goSlice, goStruct, TYPE_META_FIELDS } from '../../validation/config-types';

export const POLICY_ROOT = 'v1.Policy';

export const POLICY_TYPES: Definitions = {
  [POLICY_ROOT]: goStruct({
    ...TYPE_META_FIELDS,
    metadata: goNamed('v1.ObjectMeta'),
    rules: goSlice(goNamed('v1.PolicyRule')),
    omitStages: goSlice(goNamed('v1.Stage')),
    omitManagedFields: GO_BOOL,
  }),
  'v1.ObjectMeta': { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
  'v1.PolicyRule': goStruct({
    level: goNamed('v1.Level'),
    users: goSlice(GO_STRING),
    userGroups: goSlice(GO_STRING),
    verbs: goSlice(GO_STRING),
    resources: goSlice(goNamed('v1.GroupResources')),
    namespaces: goSlice(GO_STRING),
    nonResourceURLs: goSlice(GO_STRING),
    omitStages: goSlice(goNamed('v1.Stage')),
    omitManagedFields: GO_BOOL,
  }),
  'v1.GroupResources': goStruct({ group: GO_STRING, resources: goSlice(GO_STRING), resourceNames: goSlice(GO_STRING) }),
  'v1.Level': GO_STRING,
  'v1.Stage': GO_STRING,
};
