/**
 * `--admission-control-config-file`: an AdmissionConfiguration (apiserver.config.k8s.io/v1, or
 * its older apiserver.k8s.io/v1alpha1 and v1alpha1 names) that gives plugins their
 * configuration by name, embedded (`configuration`) or in a file of its own (`path`, relative to
 * the AdmissionConfiguration's directory). Read once at start; plugins take their own part.
 */
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { AdmissionConfigError } from './config-error';

const API_VERSIONS = ['apiserver.config.k8s.io/v1', 'apiserver.k8s.io/v1alpha1', 'apiserver.config.k8s.io/v1alpha1'];

/** A plugin's configuration object (as decoded from YAML or JSON), or undefined when it has none. */
export type PluginConfigurations = (pluginName: string) => unknown;

export const NO_PLUGIN_CONFIGURATIONS: PluginConfigurations = () => undefined;

function parseFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new AdmissionConfigError(
      `unable to read admission control configuration from "${path}" [${(error as Error).message}]`,
    );
  }
  try {
    return parseYaml(text);
  } catch (error) {
    throw new AdmissionConfigError(
      `unable to parse admission control configuration from "${path}": ${(error as Error).message}`,
    );
  }
}

export function readAdmissionConfiguration(path: string): PluginConfigurations {
  const document = parseFile(path) as { apiVersion?: unknown; kind?: unknown; plugins?: unknown } | null;
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
      byName.set(name, parseFile(isAbsolute(entry.path) ? entry.path : join(dirname(path), entry.path)));
  }
  return (pluginName) => byName.get(pluginName);
}
