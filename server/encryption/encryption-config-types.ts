/**
 * The Go types the reference decodes an EncryptionConfiguration into
 * (k8s.io/apiserver/pkg/apis/apiserver/config/v1), as data: their JSON members, and the names
 * Go's unmarshal errors give them. A metav1.Duration reads a string first, and is named so.
 */
import type { Definitions } from '../validation/decode';
import { GO_INT32, GO_STRING, goNamed, goSlice, goStruct, TYPE_META_FIELDS } from '../validation/config-types';

export const ENCRYPTION_CONFIG_ROOT = 'v1.EncryptionConfiguration';

const KEYS = goStruct({ keys: goSlice(goNamed('v1.Key')) });

export const ENCRYPTION_CONFIG_TYPES: Definitions = {
  [ENCRYPTION_CONFIG_ROOT]: goStruct({ ...TYPE_META_FIELDS, resources: goSlice(goNamed('v1.ResourceConfiguration')) }),
  'v1.ResourceConfiguration': goStruct({
    resources: goSlice(GO_STRING),
    providers: goSlice(goNamed('v1.ProviderConfiguration')),
  }),
  'v1.ProviderConfiguration': goStruct({
    aesgcm: goNamed('v1.AESConfiguration'),
    aescbc: goNamed('v1.AESConfiguration'),
    secretbox: goNamed('v1.SecretboxConfiguration'),
    identity: goNamed('v1.IdentityConfiguration'),
    kms: goNamed('v1.KMSConfiguration'),
  }),
  'v1.AESConfiguration': KEYS,
  'v1.SecretboxConfiguration': KEYS,
  'v1.Key': goStruct({ name: GO_STRING, secret: GO_STRING }),
  'v1.IdentityConfiguration': goStruct({}),
  'v1.KMSConfiguration': goStruct({
    apiVersion: GO_STRING,
    name: GO_STRING,
    cachesize: GO_INT32,
    endpoint: GO_STRING,
    timeout: GO_STRING,
  }),
};
