/**
 * The Go types client-go decodes a kubeconfig into (k8s.io/client-go/tools/clientcmd/api/v1),
 * as data: their JSON members, and the names Go's unmarshal errors give them. A []byte member
 * is held as its base64 text; the credential plugins' and extensions' insides are theirs to read.
 */
import type { Definitions, SchemaNode } from '../validation/decode';
import {
  GO_BOOL,
  GO_RAW,
  GO_STRING,
  goMap,
  goNamed,
  goSlice,
  goStruct,
  TYPE_META_FIELDS,
} from '../validation/config-types';

export const KUBECONFIG_ROOT = 'v1.Config';

const BYTES: SchemaNode = { type: 'string', format: 'byte' };
const EXTENSIONS = goSlice(goNamed('v1.NamedExtension'));
/** A struct whose own fields this server does not read, typed as an object only. */
const OPAQUE_STRUCT: SchemaNode = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };

export const KUBECONFIG_TYPES: Definitions = {
  [KUBECONFIG_ROOT]: goStruct({
    ...TYPE_META_FIELDS,
    preferences: goNamed('v1.Preferences'),
    clusters: goSlice(goNamed('v1.NamedCluster')),
    users: goSlice(goNamed('v1.NamedAuthInfo')),
    contexts: goSlice(goNamed('v1.NamedContext')),
    'current-context': GO_STRING,
    extensions: EXTENSIONS,
  }),
  'v1.Preferences': goStruct({ colors: GO_BOOL, extensions: EXTENSIONS }),
  'v1.NamedCluster': goStruct({ name: GO_STRING, cluster: goNamed('v1.Cluster') }),
  'v1.Cluster': goStruct({
    server: GO_STRING,
    'tls-server-name': GO_STRING,
    'insecure-skip-tls-verify': GO_BOOL,
    'certificate-authority': GO_STRING,
    'certificate-authority-data': BYTES,
    'proxy-url': GO_STRING,
    'disable-compression': GO_BOOL,
    extensions: EXTENSIONS,
  }),
  'v1.NamedAuthInfo': goStruct({ name: GO_STRING, user: goNamed('v1.AuthInfo') }),
  'v1.AuthInfo': goStruct({
    'client-certificate': GO_STRING,
    'client-certificate-data': BYTES,
    'client-key': GO_STRING,
    'client-key-data': BYTES,
    token: GO_STRING,
    tokenFile: GO_STRING,
    as: GO_STRING,
    'as-uid': GO_STRING,
    'as-groups': goSlice(GO_STRING),
    'as-user-extra': goMap(goSlice(GO_STRING)),
    username: GO_STRING,
    password: GO_STRING,
    'auth-provider': goNamed('v1.AuthProviderConfig'),
    exec: goNamed('v1.ExecConfig'),
    extensions: EXTENSIONS,
  }),
  'v1.AuthProviderConfig': OPAQUE_STRUCT,
  'v1.ExecConfig': OPAQUE_STRUCT,
  'v1.NamedContext': goStruct({ name: GO_STRING, context: goNamed('v1.Context') }),
  'v1.Context': goStruct({ cluster: GO_STRING, user: GO_STRING, namespace: GO_STRING, extensions: EXTENSIONS }),
  'v1.NamedExtension': goStruct({ name: GO_STRING, extension: GO_RAW }),
};
