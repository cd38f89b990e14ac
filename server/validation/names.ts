/**
 * The reference's string-format checks (apimachinery util/validation), each returning the list
 * of messages it would: empty when valid. The texts, including the double space that the
 * reference's example list prints before "or", are what clients show users.
 */
import { decodeGoBytes } from '../../api/go-bytes';

export function regexError(message: string, pattern: string, ...examples: string[]): string {
  if (examples.length === 0) return `${message} (regex used for validation is '${pattern}')`;
  let text = `${message} (e.g. `;
  examples.forEach((example, i) => {
    if (i > 0) text += ' or ';
    text += `'${example}', `;
  });
  return `${text}regex used for validation is '${pattern}')`;
}

export function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

/**
 * A string's length as Go's len counts it, in UTF-8 bytes: the reference's length rules count
 * bytes, so a name of 40 `é` is 80 long. A lone surrogate counts as the U+FFFD (3 bytes) Go sees.
 */
export function goLen(value: string): number {
  return Buffer.byteLength(value, 'utf8');
}

/**
 * Go's `s[start:end]` of a string, counted in its UTF-8 bytes, as the reference's JSON then
 * shows it: a character cut at either end leaves stray bytes, each written as one U+FFFD.
 */
export function goByteSlice(value: string, start: number, end?: number): string {
  return decodeGoBytes(Buffer.from(value, 'utf8').subarray(start, end), () => '\ufffd');
}

export const EMPTY_ERROR = 'must be non-empty';

export function inclusiveRangeError(lo: number, hi: number): string {
  return `must be between ${lo} and ${hi}, inclusive`;
}

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_LABEL_ERR =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
export const DNS1123_LABEL_MAX = 63;
const DNS1123_LABEL = new RegExp(`^${DNS1123_LABEL_FMT}$`);

export function isDNS1123Label(value: string): string[] {
  const errors: string[] = [];
  if (goLen(value) > DNS1123_LABEL_MAX) errors.push(maxLenError(DNS1123_LABEL_MAX));
  // A valid subdomain that is no label can only be one with dots (the length was checked above).
  if (!DNS1123_LABEL.test(value))
    errors.push(
      DNS1123_SUBDOMAIN.test(value)
        ? 'must not contain dots'
        : regexError(DNS1123_LABEL_ERR, DNS1123_LABEL_FMT, 'my-name', '123-abc'),
    );
  return errors;
}

const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN_ERR =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
export const DNS1123_SUBDOMAIN_MAX = 253;
const DNS1123_SUBDOMAIN = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);

/** A value of at most a subdomain's length that `pattern` matches, else the reference's two messages. */
function subdomainShapeErrors(
  value: string,
  pattern: RegExp,
  message: string,
  format: string,
  example: string,
): string[] {
  const errors: string[] = [];
  if (goLen(value) > DNS1123_SUBDOMAIN_MAX) errors.push(maxLenError(DNS1123_SUBDOMAIN_MAX));
  if (!pattern.test(value)) errors.push(regexError(message, format, example));
  return errors;
}

export function isDNS1123Subdomain(value: string): string[] {
  return subdomainShapeErrors(value, DNS1123_SUBDOMAIN, DNS1123_SUBDOMAIN_ERR, DNS1123_SUBDOMAIN_FMT, 'example.com');
}

const WILDCARD_DNS1123_SUBDOMAIN_FMT = `\\*\\.${DNS1123_SUBDOMAIN_FMT}`;
const WILDCARD_DNS1123_SUBDOMAIN_ERR =
  "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character";
const WILDCARD_DNS1123_SUBDOMAIN = new RegExp(`^${WILDCARD_DNS1123_SUBDOMAIN_FMT}$`);

/** `*.` and a DNS subdomain: an Ingress's wildcard host. */
export function isWildcardDNS1123Subdomain(value: string): string[] {
  return subdomainShapeErrors(
    value,
    WILDCARD_DNS1123_SUBDOMAIN,
    WILDCARD_DNS1123_SUBDOMAIN_ERR,
    WILDCARD_DNS1123_SUBDOMAIN_FMT,
    '*.example.com',
  );
}

const DNS1123_SUBDOMAIN_UNDERSCORE_LABEL_FMT = '_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN_UNDERSCORE_FMT = `${DNS1123_SUBDOMAIN_UNDERSCORE_LABEL_FMT}(\\.${DNS1123_SUBDOMAIN_UNDERSCORE_LABEL_FMT})*`;
const DNS1123_SUBDOMAIN_UNDERSCORE_ERR =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '_', '-' or '.', and must start and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_UNDERSCORE = new RegExp(`^${DNS1123_SUBDOMAIN_UNDERSCORE_FMT}$`);

/** A DNS subdomain whose labels may start with or hold '_' (DNS search paths, SRV-style names). */
export function isDNS1123SubdomainWithUnderscore(value: string): string[] {
  return subdomainShapeErrors(
    value,
    DNS1123_SUBDOMAIN_UNDERSCORE,
    DNS1123_SUBDOMAIN_UNDERSCORE_ERR,
    DNS1123_SUBDOMAIN_UNDERSCORE_FMT,
    'example.com',
  );
}

const DNS1035_LABEL_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const DNS1035_LABEL_ERR =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const DNS1035_LABEL = new RegExp(`^${DNS1035_LABEL_FMT}$`);

export function isDNS1035Label(value: string): string[] {
  const errors: string[] = [];
  if (goLen(value) > DNS1123_LABEL_MAX) errors.push(maxLenError(DNS1123_LABEL_MAX));
  if (!DNS1035_LABEL.test(value)) errors.push(regexError(DNS1035_LABEL_ERR, DNS1035_LABEL_FMT, 'my-name', 'abc-123'));
  return errors;
}

const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const QUALIFIED_NAME_ERR =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const QUALIFIED_NAME = new RegExp(`^${QUALIFIED_NAME_FMT}$`);
const QUALIFIED_NAME_MAX = 63;

/** A label key, annotation key or finalizer: `[prefix/]name`. */
export function isQualifiedName(value: string): string[] {
  const errors: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0];
  } else if (parts.length === 2) {
    const [prefix] = parts;
    name = parts[1];
    if (prefix.length === 0) errors.push(`prefix part ${EMPTY_ERROR}`);
    else for (const message of isDNS1123Subdomain(prefix)) errors.push(`prefix part ${message}`);
  } else {
    return [
      `a qualified name ${regexError(QUALIFIED_NAME_ERR, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errors.push(`name part ${EMPTY_ERROR}`);
  else if (goLen(name) > QUALIFIED_NAME_MAX) errors.push(`name part ${maxLenError(QUALIFIED_NAME_MAX)}`);
  if (!QUALIFIED_NAME.test(name))
    errors.push(`name part ${regexError(QUALIFIED_NAME_ERR, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`);
  return errors;
}

const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
const LABEL_VALUE_ERR =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE = new RegExp(`^${LABEL_VALUE_FMT}$`);
const LABEL_VALUE_MAX = 63;

export function isValidLabelValue(value: string): string[] {
  const errors: string[] = [];
  if (goLen(value) > LABEL_VALUE_MAX) errors.push(maxLenError(LABEL_VALUE_MAX));
  if (!LABEL_VALUE.test(value))
    errors.push(regexError(LABEL_VALUE_ERR, LABEL_VALUE_FMT, 'MyValue', 'my_value', '12345'));
  return errors;
}

/** Names that become one path segment (RBAC objects): with `prefix`, only the content rules apply. */
export function isValidPathSegmentName(value: string, prefix = false): string[] {
  const errors: string[] = [];
  if (!prefix && (value === '.' || value === '..')) errors.push(`may not be '${value}'`);
  for (const illegal of ['/', '%']) {
    if (value.includes(illegal)) errors.push(`may not contain '${illegal}'`);
  }
  return errors;
}

export function isValidPortNum(port: number): string[] {
  return Number.isInteger(port) && port >= 1 && port <= 65535 ? [] : [inclusiveRangeError(1, 65535)];
}

/** An IANA_SVC_NAME: at most 15 characters, lowercase alphanumerics and single inner hyphens. */
export function isValidPortName(name: string): string[] {
  const errors: string[] = [];
  if (goLen(name) > 15) errors.push(maxLenError(15));
  if (!/^[-a-z0-9]+$/.test(name)) errors.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(name)) errors.push('must contain at least one letter (a-z)');
  if (name.includes('--')) errors.push('must not contain consecutive hyphens');
  if (name.startsWith('-') || name.endsWith('-')) errors.push('must not begin or end with a hyphen');
  return errors;
}

const CONFIG_KEY_FMT = '[-._a-zA-Z0-9]+';
const CONFIG_KEY_ERR = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'";
const CONFIG_KEY = new RegExp(`^${CONFIG_KEY_FMT}$`);

/** Keys of ConfigMap and Secret data. */
export function isConfigMapKey(key: string): string[] {
  const errors: string[] = [];
  if (goLen(key) > DNS1123_SUBDOMAIN_MAX) errors.push(maxLenError(DNS1123_SUBDOMAIN_MAX));
  if (!CONFIG_KEY.test(key))
    errors.push(regexError(CONFIG_KEY_ERR, CONFIG_KEY_FMT, 'key.name', 'KEY_NAME', 'key-name'));
  if (key === '.') errors.push("must not be '.'");
  else if (key === '..') errors.push("must not be '..'");
  else if (key.startsWith('..')) errors.push("must not start with '..'");
  return errors;
}

const RELAXED_ENV_VAR_NAME = /^[\x20-\x3c\x3e-\x7e]*$/;

/** An environment variable's name as 1.34 takes it (RelaxedEnvironmentVariableValidation, locked on): printable ASCII but '='. */
export function isRelaxedEnvVarName(value: string): string[] {
  const errors: string[] = [];
  if (value.length === 0) errors.push(`environment variable name ${EMPTY_ERROR}`);
  if (!RELAXED_ENV_VAR_NAME.test(value))
    errors.push("a valid environment variable name must consist only of printable ASCII characters other than '='");
  return errors;
}

/** A name validator as the reference's ValidateNameFunc: `prefix` checks a generateName (trailing '-' allowed). */
export type NameValidator = (name: string, prefix: boolean) => string[];

function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith('-') ? `${name.slice(0, -2)}a` : name;
}

export const nameIsDNSSubdomain: NameValidator = (name, prefix) =>
  isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);
export const nameIsDNSLabel: NameValidator = (name, prefix) => isDNS1123Label(prefix ? maskTrailingDash(name) : name);
export const nameIsDNS1035Label: NameValidator = (name, prefix) =>
  isDNS1035Label(prefix ? maskTrailingDash(name) : name);
/** StorageVersions: `<group>.<resource>`, the group a DNS subdomain and the resource a DNS-1035 label. */
export const nameIsGroupResource: NameValidator = (name) => {
  const dot = name.lastIndexOf('.');
  if (dot < 0) return ['name must be in the form of <group>.<resource>'];
  return [
    ...isDNS1123Subdomain(name.slice(0, dot)).map((message) => `the group segment ${message}`),
    ...isDNS1035Label(name.slice(dot + 1)).map((message) => `the resource segment ${message}`),
  ];
};

/** LeaseCandidates: any config key; a generateName's trailing '-' is a key character already. */
export const nameIsConfigMapKey: NameValidator = (name) => isConfigMapKey(name);
export const nameIsPathSegment: NameValidator = (name, prefix) => isValidPathSegmentName(name, prefix);

const C_IDENTIFIER = '[A-Za-z_][A-Za-z0-9_]*';
const C_IDENTIFIER_PATTERN = new RegExp(`^${C_IDENTIFIER}$`);

export function isCIdentifier(value: string): string[] {
  return C_IDENTIFIER_PATTERN.test(value)
    ? []
    : [
        regexError(
          "a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_'",
          C_IDENTIFIER,
          'my_name',
          'MY_NAME',
          'MyName',
        ),
      ];
}
