/**
 * The Kubernetes format library (in the base environment since 1.31): named string formats,
 * `format.dns1123Label()`, `format.named('uuid')` (an optional: none for an unknown name), and
 * `<format>.validate(s)`, which gives none when `s` is valid and else the list of the
 * reference's messages. The name formats are the server's own object-name checks
 * (validation/names.ts); the others follow the reference's OpenAPI formats (kube-openapi's
 * strfmt) and Go's `url.ParseRequestURI`.
 *
 * A validation costs as the reference prices a regular expression: 0.1 per character of the
 * string (one more counted) times a quarter of the size of the format's pattern; the estimate
 * assumes the largest pattern, 128.
 */
import { Optional, type Environment } from '@marcbachmann/cel-js';
import { parseGoRequestURI } from '../../net/go-url';
import {
  isQualifiedName,
  isValidLabelValue,
  nameIsDNS1035Label,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
} from '../../validation/names';
import { REGEX_LENGTH_FACTOR, STRING_TRAVERSAL_FACTOR } from '../runtime-cost';
import type { CelLibrary } from './library';

/** A named format: its messages for a string (none when valid) and the size of its pattern, for the cost. */
export class NamedFormat {
  constructor(
    readonly name: string,
    readonly validate: (text: string) => string[],
    readonly maxRegexSize: number,
  ) {}
}

/** Holder for the `format.` functions: the engine resolves `format.` as a variable of this type. */
class FormatNamespace {}

/** The largest pattern size of the formats, which the estimate assumes (the reference's MaxNameFormatRegexSize). */
export const MAX_FORMAT_REGEX_SIZE = 128;

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID_PATTERN_LENGTH = '(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$'.length;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$/;
const TIME_OF_DAY = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$/;
const TIME_PATTERN_LENGTH = '^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$'.length;
/** Sizes the reference assumes for formats with no pattern of their own. */
const BASE64_PATTERN_SIZE = 84;
const URL_PATTERN_SIZE = 1103;

/** A full date as Go's `time.Parse("2006-01-02", s)` accepts it: the day must exist in its month. */
function isDate(text: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return false;
  const [year, month, day] = match.slice(1).map(Number);
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** strfmt's IsDateTime: a date, a `t` (any case), and a time of day within 23:59:59 with a zone. */
function isDateTime(text: string): boolean {
  if (text.length < 4) return false;
  const parts = text.toLowerCase().split('t');
  if (parts.length < 2 || !isDate(parts[0])) return false;
  const time = TIME_OF_DAY.exec(parts[1]);
  return time !== null && time[1] <= '23' && time[2] <= '59' && time[3] <= '59';
}

const check =
  (valid: (text: string) => boolean, message: string) =>
  (text: string): string[] =>
    valid(text) ? [] : [message];

function uriErrors(text: string): string[] {
  const parsed = parseGoRequestURI(text);
  return 'error' in parsed ? [parsed.error] : [];
}

/** The formats by the name `format.named` and the function of the same name know them by. */
export const NAMED_FORMATS: ReadonlyMap<string, NamedFormat> = new Map(
  [
    new NamedFormat('dns1123Label', (text) => nameIsDNSLabel(text, false), 30),
    new NamedFormat('dns1123Subdomain', (text) => nameIsDNSSubdomain(text, false), 60),
    new NamedFormat('dns1035Label', (text) => nameIsDNS1035Label(text, false), 30),
    new NamedFormat('qualifiedName', isQualifiedName, 60),
    new NamedFormat('dns1123LabelPrefix', (text) => nameIsDNSLabel(text, true), 30),
    new NamedFormat('dns1123SubdomainPrefix', (text) => nameIsDNSSubdomain(text, true), 60),
    new NamedFormat('dns1035LabelPrefix', (text) => nameIsDNS1035Label(text, true), 30),
    new NamedFormat('labelValue', isValidLabelValue, 40),
    new NamedFormat('uri', uriErrors, URL_PATTERN_SIZE),
    new NamedFormat('uuid', check(UUID.test.bind(UUID), 'does not match the UUID format'), UUID_PATTERN_LENGTH),
    new NamedFormat('byte', check(BASE64.test.bind(BASE64), 'invalid base64'), BASE64_PATTERN_SIZE),
    new NamedFormat('date', check(isDate, 'invalid date'), TIME_PATTERN_LENGTH),
    new NamedFormat('datetime', check(isDateTime, 'invalid datetime'), TIME_PATTERN_LENGTH),
  ].map((format) => [format.name, format]),
);

const TYPE = 'kubernetes.NamedFormat';

export const formatLibrary: CelLibrary = {
  declare(env: Environment) {
    env
      .registerType(TYPE, NamedFormat)
      .registerType('kubernetes.FormatNamespace', FormatNamespace)
      .registerConstant('format', 'kubernetes.FormatNamespace', new FormatNamespace())
      .registerFunction(
        `kubernetes.FormatNamespace.named(string): optional<${TYPE}>`,
        (_ns: FormatNamespace, name: string) => {
          const format = NAMED_FORMATS.get(name);
          return format === undefined ? Optional.none() : Optional.of(format);
        },
      )
      .registerFunction(`${TYPE}.validate(string): optional<list<string>>`, (format: NamedFormat, text: string) => {
        const errors = format.validate(text);
        return errors.length === 0 ? Optional.none() : Optional.of(errors);
      })
      .registerOperator(`${TYPE} == ${TYPE}`, (a: NamedFormat, b: NamedFormat) => a.name === b.name);
    for (const [name, format] of NAMED_FORMATS) {
      env.registerFunction(`kubernetes.FormatNamespace.${name}(): ${TYPE}`, () => format);
    }
  },
  costs: {
    '.validate': ([format, text]) =>
      Math.ceil((1 + (text as string).length) * STRING_TRAVERSAL_FACTOR) *
      Math.ceil((format as NamedFormat).maxRegexSize * REGEX_LENGTH_FACTOR),
  },
};
