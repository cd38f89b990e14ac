/**
 * The PodSecurity plugin's configuration (PodSecurityConfiguration of
 * pod-security.admission.config.k8s.io/v1, v1beta1 or v1alpha1, from the AdmissionConfiguration
 * file): the policy of namespaces without labels (privileged:latest by default), and the users,
 * runtime classes and namespaces exempt from it. Invalid configuration stops the start, with
 * the reference's field errors.
 */
import { FieldPath, duplicate, invalid } from '../../../status/field-errors';
import { isDNS1123Label, isDNS1123Subdomain } from '../../../validation/names';
import { AdmissionConfigError } from '../../config-error';
import { aggregateFieldErrors, type FieldError } from '../../../status/field-error';
import { LATEST, MODES, levelError, parseLevel, parseVersion, versionError, type Policy } from './levels';
import { goAggregate } from '../../../../api/go-json-syntax';

const API_VERSIONS = [
  'pod-security.admission.config.k8s.io/v1',
  'pod-security.admission.config.k8s.io/v1beta1',
  'pod-security.admission.config.k8s.io/v1alpha1',
];

export interface PodSecurityConfiguration {
  readonly defaults: Policy;
  readonly exemptions: {
    readonly usernames: readonly string[];
    readonly namespaces: readonly string[];
    readonly runtimeClasses: readonly string[];
  };
}

export const DEFAULT_CONFIGURATION: PodSecurityConfiguration = {
  defaults: {
    enforce: { level: 'privileged', version: LATEST },
    audit: { level: 'privileged', version: LATEST },
    warn: { level: 'privileged', version: LATEST },
  },
  exemptions: { usernames: [], namespaces: [], runtimeClasses: [] },
};

const FAILED = 'failed to initialize admission plugin "PodSecurity":';

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : []);

function exemptionErrors(
  field: string,
  values: readonly string[],
  problem: (value: string) => string | undefined,
): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  values.forEach((value, index) => {
    const path = FieldPath.root('exemptions', field).index(index);
    const detail = problem(value);
    if (detail !== undefined) errors.push(invalid(path, value, detail));
    else if (seen.has(value)) errors.push(duplicate(path, value));
    else seen.add(value);
  });
  return errors;
}

/** The configuration from its decoded form; undefined gives the defaults. Throws on invalid input. */
export function podSecurityConfiguration(raw: unknown): PodSecurityConfiguration {
  if (raw === undefined) return DEFAULT_CONFIGURATION;
  const document = (raw ?? {}) as Record<string, unknown>;
  if (document.kind !== 'PodSecurityConfiguration' || !API_VERSIONS.includes(String(document.apiVersion))) {
    throw new AdmissionConfigError(`${FAILED} expected a PodSecurityConfiguration of ${API_VERSIONS.join(', ')}`);
  }
  const defaults = (document.defaults ?? {}) as Record<string, unknown>;
  const exemptions = (document.exemptions ?? {}) as Record<string, unknown>;
  const text = (key: string, fallback: string) =>
    typeof defaults[key] === 'string' && defaults[key] !== '' ? (defaults[key] as string) : fallback;
  // The defaults are read first, as the reference's plugin completes its configuration before validating it.
  const defaultErrors = MODES.flatMap((mode) => {
    const level = levelError(text(mode, 'privileged'));
    const version = versionError(text(`${mode}-version`, 'latest'));
    return [...(level ? [`${mode}: ${level}`] : []), ...(version ? [`${mode}-version: ${version}`] : [])];
  });
  if (defaultErrors.length > 0)
    throw new AdmissionConfigError(`${FAILED} PodSecurity configuration error: ${goAggregate(defaultErrors)}`);
  const configuration: PodSecurityConfiguration = {
    defaults: Object.fromEntries(
      MODES.map((mode) => [
        mode,
        {
          level: parseLevel(text(mode, 'privileged')) ?? 'privileged',
          version: parseVersion(text(`${mode}-version`, 'latest')) ?? LATEST,
        },
      ]),
    ) as unknown as Policy,
    exemptions: {
      usernames: strings(exemptions.usernames),
      namespaces: strings(exemptions.namespaces),
      runtimeClasses: strings(exemptions.runtimeClasses),
    },
  };
  const errors = [
    ...exemptionErrors(
      'namespaces',
      configuration.exemptions.namespaces,
      (name) => isDNS1123Label(name).join(', ') || undefined,
    ),
    ...exemptionErrors(
      'runtimeClasses',
      configuration.exemptions.runtimeClasses,
      (name) => isDNS1123Subdomain(name).join(', ') || undefined,
    ),
    ...exemptionErrors('usernames', configuration.exemptions.usernames, (name) =>
      name === '' ? 'username must not be empty' : undefined,
    ),
  ];
  if (errors.length > 0)
    throw new AdmissionConfigError(`${FAILED} PodSecurity invalid: ${aggregateFieldErrors(errors)}`);
  return configuration;
}
