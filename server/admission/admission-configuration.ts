/**
 * `--admission-control-config-file`: an AdmissionConfiguration (apiserver.config.k8s.io/v1, or
 * its older apiserver.k8s.io/v1alpha1 and v1alpha1 names) that gives plugins their
 * configuration by name, embedded (`configuration`) or in a file of its own (`path`, relative to
 * the AdmissionConfiguration's directory). Read once at start; plugins take their own part.
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { GoYamlConversionError, readGoYamlText, strictDecodingError } from '../validation/go-yaml';
import { AdmissionConfigError } from './config-error';

const API_VERSIONS = ['apiserver.config.k8s.io/v1', 'apiserver.k8s.io/v1alpha1', 'apiserver.config.k8s.io/v1alpha1'];

/** A plugin's configuration object (as decoded from YAML or JSON), or undefined when it has none. */
export type PluginConfigurations = (pluginName: string) => unknown;

export const NO_PLUGIN_CONFIGURATIONS: PluginConfigurations = () => undefined;

/**
 * The file's text as the reference reads it, through sigs.k8s.io/yaml (`yes` is true, `0x32`
 * is 50, `<<` merges): the AdmissionConfiguration strictly, as its codec does (a key set
 * twice, even inside a plugin's configuration, stops the start); a plugin's own file as the
 * plugin's lenient decoder reads it.
 */
function parseFile(path: string, options: { readonly strict: boolean }): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new AdmissionConfigError(
      `unable to read admission control configuration from "${path}" [${(error as Error).message}]`,
    );
  }
  try {
    const reading = readGoYamlText(text);
    const strict = options.strict ? strictDecodingError(reading) : undefined;
    if (strict !== undefined) throw strict;
    return reading.value;
  } catch (error) {
    if (!(error instanceof GoYamlConversionError)) throw error;
    throw new AdmissionConfigError(
      options.strict
        ? `failed to read plugin config: ${error.message}`
        : `unable to parse admission control configuration from "${path}": ${error.message}`,
    );
  }
}

export function readAdmissionConfiguration(path: string): PluginConfigurations {
  const document = parseFile(path, { strict: true }) as {
    apiVersion?: unknown;
    kind?: unknown;
    plugins?: unknown;
  } | null;
  if (
    document === null ||
    typeof document !== 'object' ||
    document.kind !== 'AdmissionConfiguration' ||
    !API_VERSIONS.includes(String(document.apiVersion))
  ) {
    throw new AdmissionConfigError(
      `admission control configuration "${path}" is not an AdmissionConfiguration of ${API_VERSIONS.join(', ')}`,
    );
  }
  const byName = new Map<string, unknown>();
  for (const entry of Array.isArray(document.plugins) ? (document.plugins as Array<Record<string, unknown>>) : []) {
    const name = String(entry?.name ?? '');
    if (entry.configuration !== undefined && entry.configuration !== null) byName.set(name, entry.configuration);
    else if (typeof entry.path === 'string' && entry.path !== '')
      byName.set(
        name,
        parseFile(isAbsolute(entry.path) ? entry.path : join(dirname(path), entry.path), { strict: false }),
      );
  }
  return (pluginName) => byName.get(pluginName);
}
