/**
 * `--audit-policy-file`: an audit.k8s.io/v1 Policy (YAML or JSON), read once at start and
 * checked as the reference checks it (the only version it still accepts; v1beta1 is refused as
 * it refuses it). A policy that cannot be read, has no rules, or has an invalid field stops the
 * start with the reference's words (server/startup-failure.ts turns `AuditConfigError` into one
 * line and exit code 2). The text is read as the reference's lenient decoder reads it, through
 * sigs.k8s.io/yaml: `omitManagedFields: yes` is true, `<<` merges, a key set again wins.
 */
import { readFileSync } from 'node:fs';
import { decodeConfigValue } from '../../validation/config-types';
import { GoYamlConversionError, readGoYamlText, type GoYamlReading } from '../../validation/go-yaml';
import { POLICY_ROOT, POLICY_TYPES } from './policy-types';
import { isDNS1123Subdomain } from '../../validation/names';
import { formatValue } from '../../status/field-errors';
import { AuditConfigError } from './config-error';
import { goAggregate } from '../../../api/go-json-syntax';

export const AUDIT_LEVELS = ['None', 'Metadata', 'Request', 'RequestResponse'] as const;
export type AuditLevel = (typeof AUDIT_LEVELS)[number];

export const AUDIT_STAGES = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'] as const;
export type AuditStage = (typeof AUDIT_STAGES)[number];

export interface GroupResources {
  /** '' is the core group. */
  readonly group: string;
  /** Empty: every resource of the group. `pods/log`, `*`, `*\/status`, `pods/*` as the reference reads them. */
  readonly resources: readonly string[];
  readonly resourceNames: readonly string[];
}

export interface PolicyRule {
  readonly level: AuditLevel;
  readonly users: readonly string[];
  readonly userGroups: readonly string[];
  readonly verbs: readonly string[];
  readonly resources: readonly GroupResources[];
  /** '' matches cluster-scoped resources. */
  readonly namespaces: readonly string[];
  /** Exact paths, `*`, or a prefix ending in `*`. */
  readonly nonResourceURLs: readonly string[];
  /** The rule's own stages joined with the policy's. */
  readonly omitStages: readonly AuditStage[];
  /** Absent: the policy's. */
  readonly omitManagedFields?: boolean;
}

export interface AuditPolicy {
  readonly rules: readonly PolicyRule[];
  readonly omitStages: readonly AuditStage[];
  readonly omitManagedFields: boolean;
}

const POLICY_VERSION = 'audit.k8s.io/v1';

type Fields = Record<string, unknown>;

function isObject(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads and checks the policy file; throws `AuditConfigError` with the reference's message. */
export function loadAuditPolicy(path: string): AuditPolicy {
  const fail = (what: string) => new AuditConfigError(`loading audit policy file: ${what}: from file ${path}`);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw fail(`failed to read file: ${(error as Error).message}`);
  }
  let reading: GoYamlReading;
  try {
    reading = readGoYamlText(text);
  } catch (error) {
    if (!(error instanceof GoYamlConversionError)) throw error;
    throw fail(`failed decoding: ${error.message}`);
  }
  const found = reading.value;
  if (!isObject(found)) throw fail('failed decoding: not an object');
  if (found.kind !== 'Policy' || found.apiVersion !== POLICY_VERSION) {
    throw fail(
      `failed decoding: no kind ${JSON.stringify(found.kind)} is registered for version ${JSON.stringify(found.apiVersion)}`,
    );
  }
  let document: Fields;
  try {
    document = decodeConfigValue(reading, { definitions: POLICY_TYPES, root: POLICY_ROOT, strict: false }) as Fields;
  } catch (error) {
    if (!(error instanceof GoYamlConversionError)) throw error;
    throw fail(`failed decoding: ${error.message}`);
  }
  const problems: string[] = [];
  const policyOmitStages = stagesOf(document.omitStages, 'omitStages', problems);
  const rules = (Array.isArray(document.rules) ? document.rules : []).map((rule, index) =>
    ruleOf(isObject(rule) ? rule : {}, `rules[${index}]`, policyOmitStages, problems),
  );
  if (problems.length > 0) throw fail(goAggregate(problems));
  if (rules.length === 0) throw fail('loaded illegal policy with 0 rules');
  return { rules, omitStages: policyOmitStages, omitManagedFields: document.omitManagedFields === true };
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

function stagesOf(value: unknown, path: string, problems: string[]): AuditStage[] {
  const stages: AuditStage[] = [];
  for (const [index, stage] of strings(value).entries()) {
    if ((AUDIT_STAGES as readonly string[]).includes(stage)) stages.push(stage as AuditStage);
    else
      problems.push(
        `${path}[${index}]: Invalid value: ${JSON.stringify(stage)}: allowed stages are ${AUDIT_STAGES.join(',')}`,
      );
  }
  return stages;
}

function ruleOf(rule: Fields, path: string, policyOmitStages: readonly AuditStage[], problems: string[]): PolicyRule {
  const level = typeof rule.level === 'string' ? rule.level : '';
  if (level === '') problems.push(`${path}.level: Required value`);
  else if (!(AUDIT_LEVELS as readonly string[]).includes(level)) {
    problems.push(
      `${path}.level: Unsupported value: ${JSON.stringify(level)}: supported values: ${AUDIT_LEVELS.map((l) => JSON.stringify(l)).join(', ')}`,
    );
  }
  const nonResourceURLs = strings(rule.nonResourceURLs);
  const namespaces = strings(rule.namespaces);
  const resources = (Array.isArray(rule.resources) ? rule.resources : []).map((entry, index) =>
    groupResourcesOf(isObject(entry) ? entry : {}, `${path}.resources[${index}]`, problems),
  );
  for (const [index, url] of nonResourceURLs.entries()) {
    if (url === '*') continue;
    if (!url.startsWith('/'))
      problems.push(
        `${path}.nonResourceURLs[${index}]: Invalid value: ${JSON.stringify(url)}: non-resource URL rules must begin with a '/' character`,
      );
    else if (url.slice(0, -1).includes('*')) {
      problems.push(
        `${path}.nonResourceURLs[${index}]: Invalid value: ${JSON.stringify(url)}: non-resource URL wildcards '*' must be the final character of the rule`,
      );
    }
  }
  if (nonResourceURLs.length > 0 && (resources.length > 0 || namespaces.length > 0)) {
    problems.push(
      `${path}.nonResourceURLs: Invalid value: ${formatValue(nonResourceURLs)}: rules cannot apply to both regular resources and non-resource URLs`,
    );
  }
  const ruleOmitStages = stagesOf(rule.omitStages, `${path}.omitStages`, problems);
  return {
    level: level as AuditLevel,
    users: strings(rule.users),
    userGroups: strings(rule.userGroups),
    verbs: strings(rule.verbs),
    resources,
    namespaces,
    nonResourceURLs,
    omitStages: [...new Set([...policyOmitStages, ...ruleOmitStages])],
    ...(typeof rule.omitManagedFields === 'boolean' ? { omitManagedFields: rule.omitManagedFields } : {}),
  };
}

function groupResourcesOf(entry: Fields, path: string, problems: string[]): GroupResources {
  const group = typeof entry.group === 'string' ? entry.group : '';
  if (group !== '')
    for (const message of isDNS1123Subdomain(group))
      problems.push(`${path}.group: Invalid value: ${JSON.stringify(group)}: ${message}`);
  const resources = strings(entry.resources);
  const resourceNames = strings(entry.resourceNames);
  if (resourceNames.length > 0 && resources.length === 0) {
    problems.push(
      `${path}.resourceNames: Invalid value: ${formatValue(resourceNames)}: using resourceNames requires at least one resource`,
    );
  }
  return { group, resources, resourceNames };
}
