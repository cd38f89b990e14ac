/**
 * `--encryption-provider-config`: an EncryptionConfiguration (apiserver.config.k8s.io/v1, the
 * only version the reference decodes), YAML or JSON, read strictly through sigs.k8s.io/yaml as
 * the reference reads it (`<<` merges, a key set twice is refused) and validated with the
 * reference's rules and texts, so an operator's file is refused here exactly where the
 * reference would refuse it. Nothing is built from it here: see encryption-providers.ts.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { decodeConfigValue } from '../validation/config-types';
import { GoYamlConversionError, readGoYamlText, type GoYamlReading } from '../validation/go-yaml';
import { ENCRYPTION_CONFIG_ROOT, ENCRYPTION_CONFIG_TYPES } from './encryption-config-types';
import { parseGoDuration } from '../config/duration';
import { EncryptionConfigError } from './config-error';
import { aggregateFieldErrors } from '../status/field-error';
import type { FieldError } from '../status/field-error';
import { FieldPath, GoValue, invalid, required } from '../status/field-errors';

export interface EncryptionKey {
  readonly name: string;
  readonly secret: string;
}

export interface KeysConfiguration {
  readonly keys: readonly EncryptionKey[];
}

export interface KmsConfiguration {
  readonly apiVersion: string;
  readonly name: string;
  /** v1 only (default 1000 there); v2 refuses it. */
  readonly cachesize?: number;
  readonly endpoint: string;
  readonly timeoutMs: number;
  /** As written, for messages: `3s`. */
  readonly timeoutText: string;
}

export interface ProviderConfiguration {
  readonly aesgcm?: KeysConfiguration;
  readonly aescbc?: KeysConfiguration;
  readonly secretbox?: KeysConfiguration;
  readonly identity?: Record<string, never>;
  readonly kms?: KmsConfiguration;
}

export interface ResourceConfiguration {
  readonly resources: readonly string[];
  readonly providers: readonly ProviderConfiguration[];
}

export interface EncryptionConfiguration {
  readonly resources: readonly ResourceConfiguration[];
  /** `sha256:<hex>` of the file's bytes: what reload compares, and what the metrics show. */
  readonly contentHash: string;
}

const API_VERSION = 'apiserver.config.k8s.io/v1';
const KIND = 'EncryptionConfiguration';
const DEFAULT_KMS_TIMEOUT = '3s';
const DEFAULT_KMS_V1_CACHE_SIZE = 1000;

/** Reads, decodes and validates the file; `reload` applies the stricter rules of automatic reload. */
export function loadEncryptionConfiguration(path: string, reload: boolean): EncryptionConfiguration {
  const data = readData(path);
  const contentHash = encryptionConfigHash(data);
  const config = decode(path, data.toString('utf8'));
  const errors = validateEncryptionConfiguration(config, reload);
  if (errors.length > 0) throw new EncryptionConfigError(`error while parsing file: ${aggregateFieldErrors(errors)}`);
  return { resources: config.resources, contentHash };
}

export function encryptionConfigHash(data: Buffer): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}

/** The file's bytes, refusing an unreadable or empty file with the reference's words. */
export function readData(path: string): Buffer {
  let data: Buffer;
  try {
    data = readFileSync(path);
  } catch (error) {
    const cause =
      (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : (error as Error).message;
    throw new EncryptionConfigError(
      `error while parsing file: error while loading file: error reading encryption provider configuration file "${path}": open ${path}: ${cause}`,
    );
  }
  if (data.length === 0)
    throw new EncryptionConfigError(
      `error while parsing file: error while loading file: encryption provider configuration file "${path}" is empty`,
    );
  return data;
}

function decode(path: string, text: string): { resources: ResourceConfiguration[] } {
  const decodeError = (detail: string) =>
    new EncryptionConfigError(
      `error while parsing file: error decoding encryption provider configuration file "${path}": ${detail}`,
    );
  let reading: GoYamlReading;
  try {
    reading = readGoYamlText(text);
  } catch (error) {
    if (!(error instanceof GoYamlConversionError)) throw error;
    throw decodeError(error.message);
  }
  const document = reading.value;
  if (!isRecord(document)) throw decodeError(`Object 'Kind' is missing in '${text.trim()}'`);
  if (document.apiVersion === undefined || document.apiVersion === '')
    throw decodeError(`Object 'apiVersion' is missing in '${text.trim()}'`);
  if (document.kind === undefined || document.kind === '')
    throw decodeError(`Object 'Kind' is missing in '${text.trim()}'`);
  if (document.apiVersion !== API_VERSION || document.kind !== KIND) {
    throw decodeError(
      `no kind "${String(document.kind)}" is registered for version "${String(document.apiVersion)}" in scheme "pkg/runtime/scheme.go:110"`,
    );
  }
  let typed: { resources?: readonly TypedResource[] };
  try {
    typed = decodeConfigValue(reading, {
      definitions: ENCRYPTION_CONFIG_TYPES,
      root: ENCRYPTION_CONFIG_ROOT,
      strict: true,
    }) as typeof typed;
  } catch (error) {
    if (!(error instanceof GoYamlConversionError)) throw error;
    throw decodeError(error.message);
  }
  return { resources: (typed.resources ?? []).map(resourceConfiguration) };
}

/** The configuration as its Go types hold it (decodeConfigValue's result): fields of the right types, or absent. */
interface TypedKeys {
  readonly keys?: readonly { readonly name?: string; readonly secret?: string }[];
}
interface TypedKms {
  readonly apiVersion?: string;
  readonly name?: string;
  readonly cachesize?: number;
  readonly endpoint?: string;
  readonly timeout?: string;
}
interface TypedProvider {
  readonly aesgcm?: TypedKeys;
  readonly aescbc?: TypedKeys;
  readonly secretbox?: TypedKeys;
  readonly identity?: object;
  readonly kms?: TypedKms;
}
interface TypedResource {
  readonly resources?: readonly string[];
  readonly providers?: readonly TypedProvider[];
}

function resourceConfiguration(entry: TypedResource): ResourceConfiguration {
  return { resources: entry.resources ?? [], providers: (entry.providers ?? []).map(providerConfiguration) };
}

function providerConfiguration(entry: TypedProvider): ProviderConfiguration {
  const provider: { -readonly [K in keyof ProviderConfiguration]: ProviderConfiguration[K] } = {};
  for (const name of ['aesgcm', 'aescbc', 'secretbox'] as const) {
    const configured = entry[name];
    if (configured !== undefined)
      provider[name] = {
        keys: (configured.keys ?? []).map((key) => ({ name: key.name ?? '', secret: key.secret ?? '' })),
      };
  }
  if (entry.identity !== undefined) provider.identity = {};
  if (entry.kms !== undefined) provider.kms = kmsConfiguration(entry.kms);
  return provider;
}

function kmsConfiguration(kms: TypedKms): KmsConfiguration {
  // The reference's defaults: v1 when absent, a 3 s timeout, and v1's cache of 1000 DEKs.
  const apiVersion = kms.apiVersion || 'v1';
  const timeoutText = kms.timeout ?? DEFAULT_KMS_TIMEOUT;
  let timeoutMs: number;
  try {
    timeoutMs = parseGoDuration(timeoutText);
  } catch {
    timeoutMs = 0;
  }
  const cachesize = kms.cachesize ?? (apiVersion === 'v1' ? DEFAULT_KMS_V1_CACHE_SIZE : undefined);
  return {
    apiVersion,
    name: kms.name ?? '',
    endpoint: kms.endpoint ?? '',
    timeoutMs,
    timeoutText,
    ...(cachesize === undefined ? {} : { cachesize }),
  };
}

// ---- validation (the reference's ValidateEncryptionConfiguration, in its order and words) ----

const AES_KEY_SIZES = [16, 24, 32];
const SECRETBOX_KEY_SIZES = [32];
const NOT_REST_RESOURCES = new Set(['apiserveripinfo', 'serviceipallocations', 'servicenodeportallocations']);

export function validateEncryptionConfiguration(
  config: { readonly resources: readonly ResourceConfiguration[] },
  reload: boolean,
): FieldError[] {
  const root = FieldPath.root('resources');
  if (config.resources.length === 0) return [required(root, `at least one ${root} is required`)];
  const errors: FieldError[] = [];
  const kmsNames = new Set<string>();
  config.resources.forEach((resourceConfig, i) => {
    const resourcesPath = root.index(i).child('resources');
    const providersPath = root.index(i).child('providers');
    if (resourceConfig.resources.length === 0)
      errors.push(required(resourcesPath, `at least one ${resourcesPath} is required`));
    errors.push(...validateResourceOverlap(resourceConfig.resources, resourcesPath));
    errors.push(...validateResourceNames(resourceConfig.resources, resourcesPath));
    if (resourceConfig.providers.length === 0)
      errors.push(required(providersPath, `at least one ${providersPath} is required`));
    resourceConfig.providers.forEach((provider, j) => {
      const path = providersPath.index(j);
      errors.push(...validateSingleProvider(provider, path));
      if (provider.kms !== undefined) {
        errors.push(...validateKms(provider.kms, path.child('kms'), kmsNames, reload));
        kmsNames.add(provider.kms.name);
      } else if (provider.aesgcm !== undefined) {
        errors.push(...validateKeys(provider.aesgcm.keys, path.child('aesgcm', 'keys'), AES_KEY_SIZES));
      } else if (provider.aescbc !== undefined) {
        errors.push(...validateKeys(provider.aescbc.keys, path.child('aescbc', 'keys'), AES_KEY_SIZES));
      } else if (provider.secretbox !== undefined) {
        errors.push(...validateKeys(provider.secretbox.keys, path.child('secretbox', 'keys'), SECRETBOX_KEY_SIZES));
      }
    });
  });
  return errors;
}

/** `group/resource` as the reference parses `resource.group`: the first dot splits. */
export function parseGroupResource(text: string): { readonly group: string; readonly resource: string } {
  const dot = text.indexOf('.');
  return dot < 0 ? { group: '', resource: text } : { group: text.slice(dot + 1), resource: text.slice(0, dot) };
}

function validateResourceOverlap(resources: readonly string[], path: FieldPath): FieldError[] {
  if (resources.length < 2) return [];
  const parsed = resources.map(parseGroupResource);
  let overlap = false;
  let duplicate = false;
  parsed.forEach((r1, i) => {
    parsed.forEach((r2, j) => {
      if (i === j) return;
      if (r1.group === r2.group && r1.resource === r2.resource && !duplicate) {
        duplicate = true;
        return;
      }
      if (overlap) return;
      if (r1.group === '*' && r1.resource === '*') {
        overlap = true;
        return;
      }
      if (r1.group !== r2.group) return;
      if (r1.resource === '*' || r2.resource === '*') overlap = true;
    });
  });
  const errors: FieldError[] = [];
  const value = goStrings(resources);
  if (duplicate) errors.push(invalid(path, value, 'the same resource cannot be specified multiple times'));
  if (overlap)
    errors.push(
      invalid(
        path,
        value,
        "using overlapping resources such as 'secrets' and '*.' in the same resource list is not allowed as they will be masked",
      ),
    );
  return errors;
}

function validateResourceNames(resources: readonly string[], path: FieldPath): FieldError[] {
  const errors: FieldError[] = [];
  resources.forEach((resource, j) => {
    const at = path.index(j);
    const { group, resource: name } = parseGroupResource(resource);
    if (resource.toLowerCase() !== resource)
      errors.push(invalid(at, resource, 'resource name should not contain capital letters'));
    else if (resource === '*')
      errors.push(
        invalid(
          at,
          resource,
          "use '*.' to encrypt all the resources from core API group or *.* to encrypt all resources",
        ),
      );
    else if (NOT_REST_RESOURCES.has(resource))
      errors.push(invalid(at, resource, 'resources which do not have REST API/s cannot be encrypted'));
    else if (group === 'events.k8s.io')
      errors.push(
        invalid(
          at,
          resource,
          "'*.events.k8s.io' objects are stored using the 'events' API group in etcd. Use 'events' instead in the config file",
        ),
      );
    else if (group === 'extensions')
      errors.push(invalid(at, resource, "'extensions' group has been removed and cannot be used for encryption"));
    else if (group === '*' && name !== '*')
      errors.push(invalid(at, resource, 'encrypting the same resource across groups is not supported'));
  });
  return errors;
}

function validateSingleProvider(provider: ProviderConfiguration, path: FieldPath): FieldError[] {
  const found = [provider.kms, provider.aesgcm, provider.aescbc, provider.secretbox, provider.identity].filter(
    (p) => p !== undefined,
  ).length;
  if (found === 0)
    return [
      invalid(
        path,
        goProvider(provider),
        'provider does not contain any of the expected providers: KMS, AESGCM, AESCBC, Secretbox, Identity',
      ),
    ];
  if (found > 1)
    return [
      invalid(
        path,
        goProvider(provider),
        'more than one provider specified in a single element, should split into different list elements',
      ),
    ];
  return [];
}

function validateKeys(keys: readonly EncryptionKey[], path: FieldPath, sizes: readonly number[]): FieldError[] {
  if (keys.length === 0) return [required(path, 'at least one keys is required')];
  const errors: FieldError[] = [];
  keys.forEach((key, i) => {
    const at = path.index(i);
    if (key.name === '') errors.push(required(at.child('name'), 'name is a mandatory field for a key'));
    if (key.secret === '') {
      errors.push(required(at.child('secret'), 'secret is a mandatory field for a key'));
      return;
    }
    const secret = decodeStdBase64(key.secret);
    if (secret === undefined) {
      errors.push(invalid(at.child('secret'), 'REDACTED', 'secrets must be base64 encoded'));
      return;
    }
    if (!sizes.includes(secret.length)) {
      errors.push(
        invalid(
          at.child('secret'),
          'REDACTED',
          `secret is not of the expected length, got ${secret.length}, expected one of [${sizes.join(' ')}]`,
        ),
      );
    }
  });
  return errors;
}

function validateKms(
  kms: KmsConfiguration,
  path: FieldPath,
  names: ReadonlySet<string>,
  reload: boolean,
): FieldError[] {
  const errors: FieldError[] = [];
  const namePath = path.child('name');
  if (kms.name === '') errors.push(required(namePath, 'name is a mandatory field for a provider'));
  if (kms.apiVersion !== 'v1' && kms.name.includes(':'))
    errors.push(invalid(namePath, kms.name, `invalid KMS provider name ${kms.name}, must not contain ':'`));
  if ((reload || kms.apiVersion !== 'v1') && names.has(kms.name))
    errors.push(invalid(namePath, kms.name, `duplicate KMS provider name ${kms.name}, names must be unique`));
  if (kms.timeoutMs <= 0)
    errors.push(
      invalid(
        path.child('timeout'),
        new GoValue(JSON.stringify(kms.timeoutText)),
        'timeout should be a positive value',
      ),
    );
  errors.push(...validateKmsEndpoint(kms, path.child('endpoint')));
  if (kms.apiVersion !== 'v1' && kms.cachesize !== undefined)
    errors.push(invalid(path.child('cachesize'), kms.cachesize, 'cachesize is not supported in v2'));
  if (kms.apiVersion === 'v1' && kms.cachesize === 0)
    errors.push(invalid(path.child('cachesize'), 0, 'cachesize should be a positive value, or negative to disable'));
  if (kms.apiVersion !== 'v1' && kms.apiVersion !== 'v2')
    errors.push(
      invalid(
        path.child('apiVersion'),
        kms.apiVersion,
        'unsupported apiVersion apiVersion for KMS provider, only v1 and v2 are supported',
      ),
    );
  return errors;
}

function validateKmsEndpoint(kms: KmsConfiguration, path: FieldPath): FieldError[] {
  if (kms.endpoint === '') return [invalid(path, '', 'endpoint is a mandatory field for a kms')];
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(kms.endpoint)?.[1] ?? '';
  if (scheme !== 'unix')
    return [
      invalid(
        path,
        kms.endpoint,
        `unsupported scheme ${JSON.stringify(scheme)} for KMS provider, only unix is supported`,
      ),
    ];
  return [];
}

/** The socket path of a `unix://` endpoint (`unix:///run/kms.sock` or `unix:@abstract`), as the reference's client reads it. */
export function kmsSocketPath(endpoint: string): string {
  const url = new URL(endpoint);
  return url.host !== ''
    ? `${url.host}${url.pathname}`
    : decodeURIComponent(url.pathname || endpoint.slice('unix:'.length));
}

export function decodeStdBase64(text: string): Buffer | undefined {
  if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(text)) return undefined;
  return Buffer.from(text, 'base64');
}

/** A provider as Go prints the reference's internal struct in `Invalid value: {...}` (secrets included, as there). */
function goProvider(provider: ProviderConfiguration): GoValue {
  const keys = (configured: KeysConfiguration | undefined) =>
    configured && { Keys: configured.keys.map((key) => ({ Name: key.name, Secret: key.secret })) };
  const kms = provider.kms && {
    APIVersion: provider.kms.apiVersion,
    Name: provider.kms.name,
    CacheSize: provider.kms.cachesize ?? null,
    Endpoint: provider.kms.endpoint,
    Timeout: provider.kms.timeoutText,
  };
  return new GoValue(
    JSON.stringify({
      AESGCM: keys(provider.aesgcm) ?? null,
      AESCBC: keys(provider.aescbc) ?? null,
      Secretbox: keys(provider.secretbox) ?? null,
      Identity: provider.identity ?? null,
      KMS: kms ?? null,
    }),
  );
}

function goStrings(values: readonly string[]): GoValue {
  return new GoValue(JSON.stringify(values));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
