/**
 * The Go types the reference decodes an AdmissionConfiguration into
 * (k8s.io/apiserver/pkg/apis/apiserver/v1), as data: their JSON members, and the names Go's
 * unmarshal errors give them. A plugin's embedded configuration is raw JSON to it, for the
 * plugin to read.
 */
import type { Definitions } from '../validation/decode';
import { GO_RAW, GO_STRING, goNamed, goSlice, goStruct, TYPE_META_FIELDS } from '../validation/config-types';

export const ADMISSION_CONFIGURATION_ROOT = 'v1.AdmissionConfiguration';

export const ADMISSION_CONFIGURATION_TYPES: Definitions = {
  [ADMISSION_CONFIGURATION_ROOT]: goStruct({
    ...TYPE_META_FIELDS,
    plugins: goSlice(goNamed('v1.AdmissionPluginConfiguration')),
  }),
  'v1.AdmissionPluginConfiguration': goStruct({ name: GO_STRING, path: GO_STRING, configuration: GO_RAW }),
};
