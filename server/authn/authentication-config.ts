/**
 * `--authentication-config`: an `apiserver.config.k8s.io/v1` AuthenticationConfiguration
 * (YAML or JSON) with up to 64 `jwt` authenticators and the `anonymous` section. It is checked
 * as the reference checks it, with the reference's field-error wording, so a bad file stops
 * the start with a message that names the field. Expressions are CEL, type-checked here
 * against the server's expression environment (`claims` for claim rules and mappings, `user`
 * for user rules). The text is read as the reference's strict decoder reads it, through
 * sigs.k8s.io/yaml (`enabled: yes` is true, `<<` merges, a key set twice is refused).
 */
import { goQuote } from '../../api/go-quote';
import { GoYamlConversionError, readGoYamlText, type GoYamlReading } from '../validation/go-yaml';
import { decodeConfigValue } from '../validation/config-types';
import { AUTHENTICATION_CONFIG_ROOT, AUTHENTICATION_CONFIG_TYPES } from './authentication-config-types';
import { AuthenticationConfigError } from './config-error';
import type { CompiledExpression, ExpressionCompiler } from '../cel/environment';
import { celEnvironment } from '../cel/lazy';
import {
  JWT_ALGORITHMS,
  type ClaimMapping,
  type ClaimValidationRule,
  type JwtAuthenticatorConfig,
} from './jwt-authenticator';
import { goAggregate } from '../../api/go-json-syntax';

export const MAX_JWT_AUTHENTICATORS = 64;
const API_VERSIONS = [
  'apiserver.config.k8s.io/v1',
  'apiserver.config.k8s.io/v1beta1',
  'apiserver.config.k8s.io/v1alpha1',
];

let claimsCompiler: ExpressionCompiler | undefined;
let userCompiler: ExpressionCompiler | undefined;

/** Compiles `expression` over `claims` (or `user`), checking its result type; records a field error on failure. */
function compileAt(
  expression: unknown,
  at: string,
  errors: string[],
  options: { readonly over: 'claims' | 'user'; readonly types: readonly string[] },
): CompiledExpression | undefined {
  if (typeof expression !== 'string' || expression === '') {
    errors.push(`${at}: Required value: expression is required`);
    return undefined;
  }
  const { ExpressionCompiler } = celEnvironment();
  // A configuration file is stored text to the reference: its StoredExpressions environment.
  const compiler =
    options.over === 'claims'
      ? (claimsCompiler ??= new ExpressionCompiler({ claims: 'map<string, dyn>' }, { environment: 'stored' }))
      : (userCompiler ??= new ExpressionCompiler({ user: 'map<string, dyn>' }, { environment: 'stored' }));
  const result = compiler.compile(expression);
  if (!result.ok) {
    errors.push(`${at}: Invalid value: ${quote(expression)}: compilation failed: ${result.error}`);
    return undefined;
  }
  const type = result.compiled.outputType;
  if (type !== 'dyn' && !options.types.includes(type)) {
    errors.push(
      `${at}: Invalid value: ${quote(expression)}: must evaluate to one of ${options.types.join(', ')}, got ${type}`,
    );
    return undefined;
  }
  return result.compiled;
}

export interface AnonymousConfig {
  readonly enabled: boolean;
  /** Absent: every path; present: only these exact paths. */
  readonly paths?: readonly string[];
}

export interface AuthenticationConfig {
  readonly jwt: readonly JwtAuthenticatorConfig[];
  readonly anonymous?: AnonymousConfig;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const quote = (value: unknown) => JSON.stringify(value);

/**
 * Parses and checks the text of the file at `path`; throws one AuthenticationConfigError, worded
 * as the reference's, for a file it cannot decode or listing every problem of one it can.
 */
export function parseAuthenticationConfig(
  text: string,
  context: { readonly path: string; readonly serviceAccountIssuers: readonly string[] },
): AuthenticationConfig {
  const loadError = (detail: string) =>
    new AuthenticationConfigError(
      `failed to load authentication configuration from file ${goQuote(context.path)}: ${detail}`,
    );
  let reading: GoYamlReading;
  try {
    reading = readGoYamlText(text);
  } catch (error) {
    if (!(error instanceof GoYamlConversionError)) throw error;
    throw loadError(error.message);
  }
  if (!isObject(reading.value)) throw loadError('not an object');
  const { kind, apiVersion } = reading.value;
  if (kind !== 'AuthenticationConfiguration' || !API_VERSIONS.includes(String(apiVersion)))
    throw loadError(
      `no kind "${String(kind)}" is registered for version "${String(apiVersion)}" in scheme "pkg/runtime/scheme.go:110"`,
    );
  let document: Json;
  try {
    document = decodeConfigValue(reading, {
      definitions: AUTHENTICATION_CONFIG_TYPES,
      root: AUTHENTICATION_CONFIG_ROOT,
      strict: true,
    }) as Json;
  } catch (error) {
    if (!(error instanceof GoYamlConversionError)) throw error;
    throw loadError(error.message);
  }
  const errors: string[] = [];
  const rawJwt = document.jwt ?? [];
  const jwt: JwtAuthenticatorConfig[] = [];
  if (!Array.isArray(rawJwt)) errors.push('jwt: Invalid value: must be a list');
  else {
    if (rawJwt.length > MAX_JWT_AUTHENTICATORS)
      errors.push(`jwt: Too many: ${rawJwt.length}: must have at most ${MAX_JWT_AUTHENTICATORS} items`);
    const urls = new Set<string>();
    const discoveryUrls = new Set<string>();
    rawJwt.forEach((entry, index) => {
      const parsed = parseJwt(entry, `jwt[${index}]`, errors, context.serviceAccountIssuers);
      if (parsed === undefined) return;
      if (urls.has(parsed.issuer.url))
        errors.push(`jwt[${index}].issuer.url: Duplicate value: ${quote(parsed.issuer.url)}`);
      urls.add(parsed.issuer.url);
      if (parsed.issuer.discoveryURL !== undefined) {
        if (discoveryUrls.has(parsed.issuer.discoveryURL))
          errors.push(`jwt[${index}].issuer.discoveryURL: Duplicate value: ${quote(parsed.issuer.discoveryURL)}`);
        discoveryUrls.add(parsed.issuer.discoveryURL);
      }
      jwt.push(parsed);
    });
  }
  let anonymous: AnonymousConfig | undefined;
  if (document.anonymous !== undefined) {
    const section = document.anonymous;
    if (!isObject(section)) errors.push('anonymous: Invalid value: must be an object');
    else {
      const enabled = section.enabled === true;
      const conditions = section.conditions;
      let paths: string[] | undefined;
      if (conditions !== undefined) {
        if (!Array.isArray(conditions)) errors.push('anonymous.conditions: Invalid value: must be a list');
        else {
          if (!enabled && conditions.length > 0)
            errors.push('anonymous.conditions: Invalid value: conditions can only be set when anonymous is enabled');
          paths = [];
          conditions.forEach((condition, index) => {
            const path = isObject(condition) ? condition.path : undefined;
            if (typeof path !== 'string' || path === '')
              errors.push(`anonymous.conditions[${index}].path: Required value`);
            else if (paths?.includes(path))
              errors.push(`anonymous.conditions[${index}].path: Duplicate value: ${quote(path)}`);
            else paths?.push(path);
          });
        }
      }
      anonymous = { enabled, ...(paths && paths.length > 0 ? { paths } : {}) };
    }
  }
  if (errors.length > 0)
    throw new AuthenticationConfigError(`invalid authentication configuration: ${goAggregate(errors)}`);
  return { jwt, ...(anonymous ? { anonymous } : {}) };
}

function httpsUrlProblem(value: string): string | undefined {
  try {
    const url = new URL(value);
    if (url.protocol !== 'https:') return 'URL scheme must be https';
    if (url.username || url.password) return 'URL must not contain a username or password';
    if (url.search) return 'URL must not contain a query';
    if (url.hash) return 'URL must not contain a fragment';
    return undefined;
  } catch {
    return 'must be a valid URL';
  }
}

function parseJwt(
  entry: unknown,
  path: string,
  errors: string[],
  serviceAccountIssuers: readonly string[],
): JwtAuthenticatorConfig | undefined {
  if (!isObject(entry)) {
    errors.push(`${path}: Invalid value: must be an object`);
    return undefined;
  }
  const before = errors.length;
  const issuer = isObject(entry.issuer) ? entry.issuer : {};
  const url = typeof issuer.url === 'string' ? issuer.url : '';
  if (url === '') errors.push(`${path}.issuer.url: Required value`);
  else {
    const problem = httpsUrlProblem(url);
    if (problem) errors.push(`${path}.issuer.url: Invalid value: ${quote(url)}: ${problem}`);
    if (serviceAccountIssuers.includes(url)) {
      errors.push(
        `${path}.issuer.url: Invalid value: ${quote(url)}: URL must not overlap with disallowed issuers: ${quote(serviceAccountIssuers)}`,
      );
    }
  }
  const discoveryURL =
    typeof issuer.discoveryURL === 'string' && issuer.discoveryURL !== '' ? issuer.discoveryURL : undefined;
  if (discoveryURL !== undefined) {
    const problem = httpsUrlProblem(discoveryURL);
    if (problem) errors.push(`${path}.issuer.discoveryURL: Invalid value: ${quote(discoveryURL)}: ${problem}`);
    if (discoveryURL === url)
      errors.push(
        `${path}.issuer.discoveryURL: Invalid value: ${quote(discoveryURL)}: discoveryURL must be different from URL`,
      );
  }
  const audiences = Array.isArray(issuer.audiences) ? issuer.audiences : [];
  if (audiences.length === 0)
    errors.push(`${path}.issuer.audiences: Required value: at least one issuer.audiences is required`);
  audiences.forEach((audience, index) => {
    if (typeof audience !== 'string' || audience === '')
      errors.push(`${path}.issuer.audiences[${index}]: Required value: audience can't be empty`);
    else if (audiences.indexOf(audience) !== index)
      errors.push(`${path}.issuer.audiences[${index}]: Duplicate value: ${quote(audience)}`);
  });
  const policy = issuer.audienceMatchPolicy ?? '';
  if (audiences.length > 1 && policy !== 'MatchAny') {
    errors.push(
      `${path}.issuer.audienceMatchPolicy: Invalid value: ${quote(policy)}: audienceMatchPolicy must be MatchAny for multiple audiences`,
    );
  } else if (policy !== '' && policy !== 'MatchAny') {
    errors.push(
      `${path}.issuer.audienceMatchPolicy: Invalid value: ${quote(policy)}: audienceMatchPolicy must be empty or MatchAny for single audience`,
    );
  }
  if (issuer.egressSelectorType !== undefined)
    errors.push(`${path}.issuer.egressSelectorType: Forbidden: egressSelectorType is not supported`);
  const certificateAuthority =
    typeof issuer.certificateAuthority === 'string' && issuer.certificateAuthority !== ''
      ? issuer.certificateAuthority
      : undefined;
  if (certificateAuthority !== undefined && !certificateAuthority.includes('-----BEGIN CERTIFICATE-----')) {
    errors.push(
      `${path}.issuer.certificateAuthority: Invalid value: "<omitted>": data does not contain any valid RSA or ECDSA certificates`,
    );
  }

  const claimValidationRules: ClaimValidationRule[] = [];
  const rules = Array.isArray(entry.claimValidationRules) ? entry.claimValidationRules : [];
  rules.forEach((rule, index) => {
    const at = `${path}.claimValidationRules[${index}]`;
    if (!isObject(rule)) return errors.push(`${at}: Invalid value: must be an object`);
    if (rule.expression !== undefined && rule.expression !== '') {
      if (rule.claim !== undefined && rule.claim !== '')
        return errors.push(`${at}: Invalid value: claim and expression cannot both be set`);
      const compiled = compileAt(rule.expression, `${at}.expression`, errors, { over: 'claims', types: ['bool'] });
      if (compiled)
        claimValidationRules.push({
          expression: compiled,
          message: typeof rule.message === 'string' ? rule.message : '',
        });
      return;
    }
    if (typeof rule.claim !== 'string' || rule.claim === '')
      return errors.push(`${at}: Required value: claim or expression is required`);
    if (claimValidationRules.some((known) => 'claim' in known && known.claim === rule.claim))
      return errors.push(`${at}.claim: Duplicate value: ${quote(rule.claim)}`);
    claimValidationRules.push({
      claim: rule.claim,
      requiredValue: typeof rule.requiredValue === 'string' ? rule.requiredValue : '',
    });
  });

  const mappings = isObject(entry.claimMappings) ? entry.claimMappings : {};
  const username = mapping(mappings.username, `${path}.claimMappings.username`, errors, {
    required: true,
    prefixRequired: true,
    types: ['string'],
  });
  const groups =
    mappings.groups === undefined
      ? undefined
      : mapping(mappings.groups, `${path}.claimMappings.groups`, errors, {
          required: false,
          prefixRequired: false,
          types: ['string', 'list<string>', 'list', 'list<dyn>'],
        });
  const uid =
    mappings.uid === undefined
      ? undefined
      : mapping(mappings.uid, `${path}.claimMappings.uid`, errors, {
          required: false,
          prefixRequired: false,
          noPrefix: true,
          types: ['string'],
        });
  const extra: { key: string; valueExpression: CompiledExpression }[] = [];
  (Array.isArray(mappings.extra) ? mappings.extra : []).forEach((item: unknown, index) => {
    const at = `${path}.claimMappings.extra[${index}]`;
    const key = isObject(item) && typeof item.key === 'string' ? item.key : '';
    if (key === '') return errors.push(`${at}.key: Required value`);
    if (key !== key.toLowerCase()) return errors.push(`${at}.key: Invalid value: ${quote(key)}: key must be lowercase`);
    if (!/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?\/./.test(key))
      return errors.push(
        `${at}.key: Invalid value: ${quote(key)}: must be a domain-prefixed path (such as "acme.io/foo")`,
      );
    const domain = key.slice(0, key.indexOf('/'));
    if (['kubernetes.io', 'k8s.io'].some((reserved) => domain === reserved || domain.endsWith(`.${reserved}`))) {
      return errors.push(
        `${at}.key: Invalid value: ${quote(key)}: k8s.io, kubernetes.io and their subdomains are reserved for Kubernetes use`,
      );
    }
    if (extra.some((known) => known.key === key)) return errors.push(`${at}.key: Duplicate value: ${quote(key)}`);
    const compiled = compileAt(isObject(item) ? item.valueExpression : undefined, `${at}.valueExpression`, errors, {
      over: 'claims',
      types: ['string', 'list<string>', 'list', 'list<dyn>'],
    });
    if (compiled) extra.push({ key, valueExpression: compiled });
  });
  const userValidationRules: { expression: CompiledExpression; message: string }[] = [];
  (Array.isArray(entry.userValidationRules) ? entry.userValidationRules : []).forEach((rule: unknown, index) => {
    const at = `${path}.userValidationRules[${index}]`;
    const compiled = compileAt(isObject(rule) ? rule.expression : undefined, `${at}.expression`, errors, {
      over: 'user',
      types: ['bool'],
    });
    if (compiled)
      userValidationRules.push({
        expression: compiled,
        message: isObject(rule) && typeof rule.message === 'string' ? rule.message : '',
      });
  });
  // An email is an identity only once verified: the reference insists the expressions look.
  const usernameExpression = username?.expression?.expression ?? '';
  if (/claims\.email(?!_)/.test(usernameExpression)) {
    const checked = [
      usernameExpression,
      ...extra.map((item) => item.valueExpression.expression),
      ...claimValidationRules.map((rule) => ('expression' in rule ? rule.expression.expression : '')),
    ];
    if (!checked.some((expression) => expression.includes('claims.email_verified'))) {
      errors.push(
        `${path}.claimMappings.username.expression: Invalid value: ${quote(usernameExpression)}: claims.email_verified must be used in claimMappings.username.expression or claimMappings.extra[*].valueExpression or claimValidationRules[*].expression when claims.email is used in claimMappings.username.expression`,
      );
    }
  }
  if (errors.length > before || username === undefined) return undefined;
  return {
    issuer: {
      url,
      ...(discoveryURL ? { discoveryURL } : {}),
      ...(certificateAuthority ? { certificateAuthority } : {}),
      audiences: audiences as string[],
    },
    algorithms: JWT_ALGORITHMS,
    claimValidationRules,
    claimMappings: {
      username,
      ...(groups && (groups.claim || groups.expression) ? { groups } : {}),
      ...(uid && (uid.claim || uid.expression) ? { uid } : {}),
      ...(extra.length > 0 ? { extra } : {}),
    },
    ...(userValidationRules.length > 0 ? { userValidationRules } : {}),
  };
}

function mapping(
  value: unknown,
  path: string,
  errors: string[],
  rules: {
    readonly required: boolean;
    readonly prefixRequired: boolean;
    readonly noPrefix?: boolean;
    readonly types: readonly string[];
  },
): ClaimMapping | undefined {
  const object = isObject(value) ? value : {};
  if (object.expression !== undefined && object.expression !== '') {
    if (typeof object.claim === 'string' && object.claim !== '') {
      errors.push(`${path}: Invalid value: "": claim and expression cannot both be set`);
      return undefined;
    }
    if (object.prefix !== undefined) {
      errors.push(
        `${path}.prefix: Invalid value: ${quote(object.prefix)}: may not be specified when expression is set`,
      );
      return undefined;
    }
    const compiled = compileAt(object.expression, `${path}.expression`, errors, { over: 'claims', types: rules.types });
    return compiled ? { claim: '', expression: compiled } : undefined;
  }
  const claim = typeof object.claim === 'string' ? object.claim : '';
  if (claim === '') {
    if (rules.required) errors.push(`${path}: Required value: claim or expression is required`);
    return { claim: '' };
  }
  if (rules.noPrefix) return { claim };
  if (typeof object.prefix !== 'string') {
    if (rules.prefixRequired) {
      errors.push(
        `${path}.prefix: Required value: prefix is required when claim is set. It can be set to an empty string to disable prefixing`,
      );
      return undefined;
    }
    return { claim };
  }
  return { claim, prefix: object.prefix };
}
