/**
 * What the reference's configuration scheme (k8s.io/apiserver/pkg/apis/apiserver, strict) makes
 * of a file's apiVersion and kind before it looks for an AuthorizationConfiguration: a missing
 * kind or apiVersion, and a kind it does not register, are refused in the runtime's words; a
 * kind it registers in v1 is decoded into that kind's Go types, strictly, and only then refused
 * for not being the one wanted.
 */
import {
  ADMISSION_CONFIGURATION_ROOT,
  ADMISSION_CONFIGURATION_TYPES,
} from '../admission/admission-configuration-types';
import { AUTHENTICATION_CONFIG_ROOT, AUTHENTICATION_CONFIG_TYPES } from '../authn/authentication-config-types';
import type { Definitions } from '../validation/decode';
import { decodeConfigValue, GO_INT32, GO_STRING, goStruct, TYPE_META_FIELDS } from '../validation/config-types';
import { GoYamlConversionError, type GoYamlReading } from '../validation/go-yaml';

const GROUP_VERSION = 'apiserver.config.k8s.io/v1';

const TRACING_ROOT = 'v1.TracingConfiguration';
const TRACING_TYPES: Definitions = {
  [TRACING_ROOT]: goStruct({ ...TYPE_META_FIELDS, endpoint: GO_STRING, samplingRatePerMillion: GO_INT32 }),
};

/**
 * The other kinds the scheme registers in v1 whose Go types capstan declares. It registers
 * EncryptionConfiguration too, whose types sit above this layer: such a file keeps the plain
 * refusal of its kind.
 */
const OTHER_V1_KINDS: Readonly<Record<string, { readonly definitions: Definitions; readonly root: string }>> = {
  AdmissionConfiguration: { definitions: ADMISSION_CONFIGURATION_TYPES, root: ADMISSION_CONFIGURATION_ROOT },
  AuthenticationConfiguration: { definitions: AUTHENTICATION_CONFIG_TYPES, root: AUTHENTICATION_CONFIG_ROOT },
  TracingConfiguration: { definitions: TRACING_TYPES, root: TRACING_ROOT },
};

/** The kinds the scheme registers, by group version. */
const REGISTERED: Readonly<Record<string, readonly string[]>> = {
  [GROUP_VERSION]: [
    'AdmissionConfiguration',
    'AuthenticationConfiguration',
    'AuthorizationConfiguration',
    'EncryptionConfiguration',
    'TracingConfiguration',
  ],
  'apiserver.config.k8s.io/v1beta1': [
    'AuthenticationConfiguration',
    'AuthorizationConfiguration',
    'EgressSelectorConfiguration',
    'TracingConfiguration',
  ],
  'apiserver.config.k8s.io/v1alpha1': [
    'AdmissionConfiguration',
    'AuthenticationConfiguration',
    'AuthorizationConfiguration',
    'EgressSelectorConfiguration',
    'TracingConfiguration',
  ],
  v1: ['EncryptionConfig'],
};

/**
 * The runtime's refusal of the file's apiVersion and kind (a GoYamlConversionError, as a decoding
 * error), or undefined when it goes on to decode them as an AuthorizationConfiguration or as a
 * kind capstan does not judge further.
 */
export function configurationKindRefusal(text: string, reading: GoYamlReading): GoYamlConversionError | undefined {
  const { apiVersion, kind } = reading.value as { apiVersion?: unknown; kind?: unknown };
  if (typeof kind !== 'string' || kind === '')
    return new GoYamlConversionError(`Object 'Kind' is missing in '${text}'`);
  if (typeof apiVersion !== 'string' || apiVersion === '')
    return new GoYamlConversionError(`Object 'apiVersion' is missing in '${text}'`);
  if (!(REGISTERED[apiVersion] ?? []).includes(kind))
    return new GoYamlConversionError(
      `no kind "${kind}" is registered for version "${apiVersion}" in scheme "pkg/runtime/scheme.go:110"`,
    );
  const other = apiVersion === GROUP_VERSION ? OTHER_V1_KINDS[kind] : undefined;
  if (other === undefined) return undefined;
  try {
    decodeConfigValue(reading, { ...other, strict: true });
  } catch (error) {
    if (error instanceof GoYamlConversionError) return error;
    throw error;
  }
  return new GoYamlConversionError(`expected AuthorizationConfiguration, got *apiserver.${kind}`);
}
