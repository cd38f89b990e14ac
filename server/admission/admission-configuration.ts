/**
 * `--admission-control-config-file`: an AdmissionConfiguration (apiserver.config.k8s.io/v1, or
 * its older apiserver.k8s.io/v1alpha1 and v1alpha1 names) that gives plugins their
 * configuration by name, embedded (`configuration`) or in a file of its own (`path`, relative to
 * the AdmissionConfiguration's directory). Read once at start; plugins take their own part.
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { decodeConfigValue } from '../validation/config-types';
import { GoYamlConversionError, readGoYamlText, type GoYamlReading } from '../validation/go-yaml';
import { ADMISSION_CONFIGURATION_ROOT, ADMISSION_CONFIGURATION_TYPES } from './admission-configuration-types';
import { AdmissionConfigError } from './config-error';

const API_VERSIONS = ['apiserver.config.k8s.io/v1', 'apiserver.k8s.io/v1alpha1', 'apiserver.config.k8s.io/v1alpha1'];

/** A plugin's configuration object (as decoded from YAML or JSON), or undefined when it has none. */
export type PluginConfigurations = (pluginName: string) => unknown;

export const NO_PLUGIN_CONFIGURATIONS: PluginConfigurations = () => undefined;

/**
 * The file's text as the reference reads it, through sigs.k8s.io/yaml (`yes` is true, `0x32`
 * is 50, `<<` merges), its refusals in the words `refused` gives them.
 */
function readFile(path: string, refused: (message: string) => string): GoYamlReading {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new AdmissionConfigError(
      `unable to read admission control configuration from "${path}" [${(error as Error).message}]`,
    );
  }
  try {
    return readGoYamlText(text);
  } catch (error) {
    if (!(error instanceof GoYamlConversionError)) throw error;
    throw new AdmissionConfigError(refused(error.message));
  }
}

/**
 * The AdmissionConfiguration, decoded strictly into its Go types as its codec decodes it (a key
 * set twice, even inside a plugin's configuration, or a field the types lack stops the start);
 * a plugin's own file as the plugin's lenient decoder reads it.
 */
export function readAdmissionConfiguration(path: string): PluginConfigurations {
  const refused = (message: string) => `failed to read plugin config: ${message}`;
  const reading = readFile(path, refused);
  const found = reading.value as { apiVersion?: unknown; kind?: unknown } | null;
  if (
    found === null ||
    typeof found !== 'object' ||
    found.kind !== 'AdmissionConfiguration' ||
    !API_VERSIONS.includes(String(found.apiVersion))
  ) {
    throw new AdmissionConfigError(
      `admission control configuration "${path}" is not an AdmissionConfiguration of ${API_VERSIONS.join(', ')}`,
    );
  }
  let document: { plugins?: readonly { name?: string; path?: string; configuration?: unknown }[] };
  try {
    document = decodeConfigValue(reading, {
      definitions: ADMISSION_CONFIGURATION_TYPES,
      root: ADMISSION_CONFIGURATION_ROOT,
      strict: true,
    }) as typeof document;
  } catch (error) {
    if (!(error instanceof GoYamlConversionError)) throw error;
    throw new AdmissionConfigError(refused(error.message));
  }
  const byName = new Map<string, unknown>();
  for (const entry of document.plugins ?? []) {
    const name = entry.name ?? '';
    if (entry.configuration !== undefined) byName.set(name, entry.configuration);
    else if (entry.path !== undefined && entry.path !== '') {
      const pluginPath = isAbsolute(entry.path) ? entry.path : join(dirname(path), entry.path);
      byName.set(
        name,
        readFile(
          pluginPath,
          (message) => `unable to parse admission control configuration from "${pluginPath}": ${message}`,
        ).value,
      );
    }
  }
  return (pluginName) => byName.get(pluginName);
}
