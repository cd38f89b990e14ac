/**
 * `--authorization-config`: an AuthorizationConfiguration (apiserver.config.k8s.io/v1, YAML or
 * JSON) listing the authorizers in order: Webhook (each with its own TTLs, cache switches,
 * timeout, review versions, failure policy, connection and match conditions), Node and RBAC
 * (each at most once). `parseAuthorizationConfig` checks every field as the reference does and
 * throws one error listing all problems, so a broken file never replaces a working chain. The
 * text is read as the reference's strict decoder reads it, through sigs.k8s.io/yaml
 * (`cacheAuthorizedRequests: no` is false, `<<` merges, a key set twice is refused).
 */
import { GoYamlConversionError, readGoYamlText, type GoYamlReading } from '../validation/go-yaml';
import { decodeConfigValue } from '../validation/config-types';
import { AUTHORIZATION_CONFIG_ROOT, AUTHORIZATION_CONFIG_TYPES } from './authorization-config-types';
import { configurationKindRefusal } from './configuration-kinds';
import { parseGoDuration } from '../config/duration';

export const AUTHORIZATION_CONFIG_VERSION = 'apiserver.config.k8s.io/v1';
const MAX_TIMEOUT_MS = 30_000;
const MAX_MATCH_CONDITIONS = 64;
const DEFAULT_AUTHORIZED_TTL_MS = 5 * 60_000;
const DEFAULT_UNAUTHORIZED_TTL_MS = 30_000;
const NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export interface WebhookAuthorizerConfig {
  readonly authorizedTtlMs: number;
  readonly cacheAuthorizedRequests: boolean;
  readonly unauthorizedTtlMs: number;
  readonly cacheUnauthorizedRequests: boolean;
  readonly timeoutMs: number;
  readonly subjectAccessReviewVersion: 'v1' | 'v1beta1';
  readonly matchConditionSubjectAccessReviewVersion?: 'v1';
  readonly failurePolicy: 'NoOpinion' | 'Deny';
  readonly kubeConfigFile: string;
  readonly matchConditions: readonly string[];
}

export type AuthorizerConfig =
  | { readonly type: 'Webhook'; readonly name: string; readonly webhook: WebhookAuthorizerConfig }
  | { readonly type: 'Node' | 'RBAC'; readonly name: string };

export interface AuthorizationConfig {
  readonly authorizers: readonly AuthorizerConfig[];
}

type Fields = Record<string, unknown>;

function isObject(value: unknown): value is Fields {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export class AuthorizationConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(problems.join(', '));
    this.name = 'AuthorizationConfigError';
  }
}

export function parseAuthorizationConfig(text: string): AuthorizationConfig {
  const loadError = (error: unknown) => {
    if (!(error instanceof GoYamlConversionError)) return error;
    return new AuthorizationConfigError([`failed to load AuthorizationConfiguration from file: ${error.message}`]);
  };
  let reading: GoYamlReading;
  try {
    reading = readGoYamlText(text);
  } catch (error) {
    throw loadError(error);
  }
  if (!isObject(reading.value))
    throw new AuthorizationConfigError(['the authorization configuration must be an object']);
  const kindRefusal = configurationKindRefusal(text, reading);
  if (kindRefusal !== undefined) throw loadError(kindRefusal);
  if (
    reading.value.apiVersion !== AUTHORIZATION_CONFIG_VERSION ||
    reading.value.kind !== 'AuthorizationConfiguration'
  ) {
    throw new AuthorizationConfigError([
      `expected apiVersion ${AUTHORIZATION_CONFIG_VERSION} and kind AuthorizationConfiguration, got ${JSON.stringify(reading.value.apiVersion)} ${JSON.stringify(reading.value.kind)}`,
    ]);
  }
  let document: Fields;
  try {
    document = decodeConfigValue(reading, {
      definitions: AUTHORIZATION_CONFIG_TYPES,
      root: AUTHORIZATION_CONFIG_ROOT,
      strict: true,
    }) as Fields;
  } catch (error) {
    throw loadError(error);
  }
  const problems: string[] = [];
  const entries = document.authorizers;
  if (!Array.isArray(entries) || entries.length === 0)
    problems.push('authorizers: Required value: at least one authorization mode must be defined');
  const authorizers: AuthorizerConfig[] = [];
  const names = new Set<string>();
  const types = new Set<string>();
  (Array.isArray(entries) ? entries : []).forEach((entry: unknown, i) => {
    const at = `authorizers[${i}]`;
    if (!isObject(entry)) {
      problems.push(`${at}: Invalid value: must be an object`);
      return;
    }
    const { type, name } = entry;
    if (type !== 'Webhook' && type !== 'Node' && type !== 'RBAC') {
      problems.push(
        type === undefined
          ? `${at}.type: Required value`
          : `${at}.type: Unsupported value: ${JSON.stringify(type)}: supported values: "Node", "RBAC", "Webhook"`,
      );
      return;
    }
    if (type !== 'Webhook' && types.has(type)) problems.push(`${at}.type: Duplicate value: ${JSON.stringify(type)}`);
    types.add(type);
    if (typeof name !== 'string' || name === '') problems.push(`${at}.name: Required value`);
    else if (!NAME.test(name))
      problems.push(`${at}.name: Invalid value: ${JSON.stringify(name)}: must be a lowercase DNS-1123 subdomain`);
    else if (names.has(name)) problems.push(`${at}.name: Duplicate value: ${JSON.stringify(name)}`);
    names.add(String(name));
    if (type !== 'Webhook') {
      if (entry.webhook !== undefined)
        problems.push(`${at}.webhook: Invalid value: non-null webhook config is only allowed for type Webhook`);
      authorizers.push({ type, name: String(name) });
      return;
    }
    if (!isObject(entry.webhook)) {
      problems.push(`${at}.webhook: Required value: required when type=Webhook`);
      return;
    }
    const webhook = parseWebhook(entry.webhook, `${at}.webhook`, problems);
    if (webhook !== undefined) authorizers.push({ type, name: String(name), webhook });
  });
  if (problems.length > 0) throw new AuthorizationConfigError(problems);
  return { authorizers };
}

function duration(value: unknown, path: string, problems: string[], fallback: number | undefined): number | undefined {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'string') {
    problems.push(`${path}: Invalid value: must be a duration`);
    return undefined;
  }
  try {
    return parseGoDuration(value);
  } catch (error) {
    problems.push(`${path}: Invalid value: ${JSON.stringify(value)}: ${(error as Error).message}`);
    return undefined;
  }
}

function parseWebhook(webhook: Fields, at: string, problems: string[]): WebhookAuthorizerConfig | undefined {
  const before = problems.length;
  const authorizedTtlMs = duration(webhook.authorizedTTL, `${at}.authorizedTTL`, problems, 0) ?? 0;
  const unauthorizedTtlMs = duration(webhook.unauthorizedTTL, `${at}.unauthorizedTTL`, problems, 0) ?? 0;
  if (authorizedTtlMs < 0) problems.push(`${at}.authorizedTTL: Invalid value: must be > 0`);
  if (unauthorizedTtlMs < 0) problems.push(`${at}.unauthorizedTTL: Invalid value: must be > 0`);
  const timeoutMs = duration(webhook.timeout, `${at}.timeout`, problems, undefined);
  if (webhook.timeout === undefined) problems.push(`${at}.timeout: Required value`);
  else if (timeoutMs !== undefined && timeoutMs <= 0) problems.push(`${at}.timeout: Invalid value: must be > 0`);
  else if (timeoutMs !== undefined && timeoutMs > MAX_TIMEOUT_MS)
    problems.push(`${at}.timeout: Invalid value: must be <= 30s`);
  const boolean = (field: string): boolean => {
    const value = webhook[field];
    if (value === undefined || value === null) return true;
    if (typeof value !== 'boolean') problems.push(`${at}.${field}: Invalid value: must be a boolean`);
    return value !== false;
  };
  const version = webhook.subjectAccessReviewVersion;
  if (version === undefined) problems.push(`${at}.subjectAccessReviewVersion: Required value`);
  else if (version !== 'v1' && version !== 'v1beta1')
    problems.push(
      `${at}.subjectAccessReviewVersion: Unsupported value: ${JSON.stringify(version)}: supported values: "v1", "v1beta1"`,
    );
  const conditions = webhook.matchConditions ?? [];
  const matchVersion = webhook.matchConditionSubjectAccessReviewVersion;
  if (Array.isArray(conditions) && conditions.length > 0 && matchVersion === undefined)
    problems.push(`${at}.matchConditionSubjectAccessReviewVersion: Required value`);
  else if (matchVersion !== undefined && matchVersion !== 'v1')
    problems.push(
      `${at}.matchConditionSubjectAccessReviewVersion: Unsupported value: ${JSON.stringify(matchVersion)}: supported values: "v1"`,
    );
  const failurePolicy = webhook.failurePolicy;
  if (failurePolicy === undefined) problems.push(`${at}.failurePolicy: Required value`);
  else if (failurePolicy !== 'NoOpinion' && failurePolicy !== 'Deny')
    problems.push(
      `${at}.failurePolicy: Unsupported value: ${JSON.stringify(failurePolicy)}: supported values: "Deny", "NoOpinion"`,
    );
  const connection = isObject(webhook.connectionInfo) ? webhook.connectionInfo : undefined;
  let kubeConfigFile = '';
  if (connection === undefined || connection.type === undefined)
    problems.push(`${at}.connectionInfo.type: Required value`);
  else if (connection.type === 'InClusterConfig')
    problems.push(
      `${at}.connectionInfo.type: Unsupported value: "InClusterConfig": an InClusterConfig webhook is not allowed for kube-apiserver's own authorization`,
    );
  else if (connection.type !== 'KubeConfigFile')
    problems.push(
      `${at}.connectionInfo.type: Unsupported value: ${JSON.stringify(connection.type)}: supported values: "InClusterConfig", "KubeConfigFile"`,
    );
  else if (typeof connection.kubeConfigFile !== 'string' || connection.kubeConfigFile === '')
    problems.push(`${at}.connectionInfo.kubeConfigFile: Required value`);
  else kubeConfigFile = connection.kubeConfigFile;
  const expressions: string[] = [];
  if (!Array.isArray(conditions)) problems.push(`${at}.matchConditions: Invalid value: must be a list`);
  else {
    if (conditions.length > MAX_MATCH_CONDITIONS)
      problems.push(
        `${at}.matchConditions: Too many: ${conditions.length}: must have at most ${MAX_MATCH_CONDITIONS} items`,
      );
    conditions.forEach((condition: unknown, i) => {
      const expression = isObject(condition) ? condition.expression : undefined;
      if (typeof expression !== 'string' || expression.trim() === '')
        problems.push(`${at}.matchConditions[${i}].expression: Required value`);
      else if (expressions.includes(expression))
        problems.push(`${at}.matchConditions[${i}].expression: Duplicate value: ${JSON.stringify(expression)}`);
      else expressions.push(expression);
    });
  }
  const cacheAuthorizedRequests = boolean('cacheAuthorizedRequests');
  const cacheUnauthorizedRequests = boolean('cacheUnauthorizedRequests');
  if (problems.length > before) return undefined;
  return {
    authorizedTtlMs: authorizedTtlMs === 0 ? DEFAULT_AUTHORIZED_TTL_MS : authorizedTtlMs,
    cacheAuthorizedRequests,
    unauthorizedTtlMs: unauthorizedTtlMs === 0 ? DEFAULT_UNAUTHORIZED_TTL_MS : unauthorizedTtlMs,
    cacheUnauthorizedRequests,
    timeoutMs: timeoutMs ?? MAX_TIMEOUT_MS,
    subjectAccessReviewVersion: version as 'v1' | 'v1beta1',
    ...(matchVersion === 'v1' ? { matchConditionSubjectAccessReviewVersion: 'v1' as const } : {}),
    failurePolicy: failurePolicy as 'NoOpinion' | 'Deny',
    kubeConfigFile,
    matchConditions: expressions,
  };
}
