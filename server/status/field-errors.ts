/**
 * Builders for `FieldError`s (server/registry/types.ts) that print exactly as the reference's
 * `field.Error.ErrorBody()`: `<Type text>[: <value>][: <detail>]`. Values print the way Go's
 * fmt does for the types the reference passes: strings as `%q` quotes them (escapes for what Go
 * cannot print), numbers and booleans bare, structs and maps in the form the reference prints
 * each in (JSON in 1.34, `%#v` where a message still has it), since kubectl users read these texts.
 */
import { goNumber } from '../../api/go-number';
import { goJSONEscaped, goJSONQuote, goQuote } from '../../api/go-quote';
import type { FieldError } from './field-error';

/** A field path in the reference's notation: `spec.containers[0].ports[1].name`, `metadata.labels[app]`. */
export class FieldPath {
  private constructor(private readonly text: string) {}

  static root(...names: string[]): FieldPath {
    return new FieldPath(names.join('.'));
  }

  /** A path of one empty name, which the reference writes `[]` (field.NewPath("")): an error of the whole object. */
  static wholeObject(): FieldPath {
    return new FieldPath('[]');
  }

  child(...names: string[]): FieldPath {
    // Empty names are skipped, as the reference's path joins them. Validation makes a child
    // path for every field it looks at, error or not, so this is on every write's path.
    let text = this.text;
    for (const name of names) if (name !== '') text = text === '' ? name : `${text}.${name}`;
    return new FieldPath(text);
  }

  index(i: number): FieldPath {
    return new FieldPath(`${this.text}[${i}]`);
  }

  key(k: string): FieldPath {
    return new FieldPath(`${this.text}[${k}]`);
  }

  toString(): string {
    return this.text;
  }
}

/** A value pre-rendered by the caller in the form the reference prints it in. */
export class GoValue {
  constructor(readonly text: string) {}
}

function withDetail(body: string, detail: string): string {
  return detail === '' ? body : `${body}: ${detail}`;
}

export function formatValue(value: unknown): string {
  if (value instanceof GoValue) return value.text;
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return goQuote(value);
  if (typeof value === 'number') return goNumber(value);
  if (typeof value === 'boolean') return String(value);
  return goJSONEscaped(JSON.stringify(value));
}

export function required(path: FieldPath, detail = ''): FieldError {
  return { type: 'FieldValueRequired', field: path.toString(), detail: withDetail('Required value', detail) };
}

export function invalid(path: FieldPath, value: unknown, detail: string): FieldError {
  return {
    type: 'FieldValueInvalid',
    field: path.toString(),
    detail: withDetail(`Invalid value: ${formatValue(value)}`, detail),
  };
}

/** An Invalid error whose value the reference leaves out (field.OmitValueType): `Invalid value: <detail>`. */
export function invalidWithoutValue(path: FieldPath, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field: path.toString(), detail: withDetail('Invalid value', detail) };
}

/**
 * The value of a string prints as JSON: the reference's enumerations are named string types
 * (core.ServiceType, core.Protocol, ...), which field.Error marshals rather than quotes; a caller
 * whose Go value is a plain string passes `new GoValue(goQuote(value))`. The supported values
 * are always strconv.Quote'd.
 */
export function notSupported(path: FieldPath, value: unknown, supported: readonly string[]): FieldError {
  const detail = supported.length > 0 ? `supported values: ${supported.map(goQuote).join(', ')}` : '';
  const shown = typeof value === 'string' ? goJSONQuote(value) : formatValue(value);
  return {
    type: 'FieldValueNotSupported',
    field: path.toString(),
    detail: withDetail(`Unsupported value: ${shown}`, detail),
  };
}

/**
 * The reference's field.NotFound: a value that names something absent (a volume a mount names).
 * `detail`: the explanation a caller sets on the error afterwards, which NotFound itself takes none of.
 */
export function fieldNotFound(path: FieldPath, value: unknown, detail = ''): FieldError {
  return {
    type: 'FieldValueNotFound',
    field: path.toString(),
    detail: withDetail(`Not found: ${formatValue(value)}`, detail),
  };
}

export function duplicate(path: FieldPath, value: unknown): FieldError {
  return { type: 'FieldValueDuplicate', field: path.toString(), detail: `Duplicate value: ${formatValue(value)}` };
}

export function tooMany(path: FieldPath, actual: number, max: number): FieldError {
  return {
    type: 'FieldValueTooMany',
    field: path.toString(),
    detail: `Too many: ${actual}: must have at most ${max} ${max === 1 ? 'item' : 'items'}`,
  };
}

export function forbidden(path: FieldPath, detail: string): FieldError {
  return { type: 'FieldValueForbidden', field: path.toString(), detail: withDetail('Forbidden', detail) };
}

/** The reference's field.InternalError: a check that could not run, reported among the others of a 422. */
export function internalError(path: FieldPath, detail: string): FieldError {
  return { type: 'InternalError', field: path.toString(), detail: `Internal error: ${detail}` };
}

export function tooLong(path: FieldPath, maxBytes: number): FieldError {
  return {
    type: 'FieldValueTooLong',
    field: path.toString(),
    detail: `Too long: may not be more than ${maxBytes} ${maxBytes === 1 ? 'byte' : 'bytes'}`,
  };
}

export const FIELD_IMMUTABLE = 'field is immutable';

/** The reference's ValidateImmutableField: compares deeply, reports the new value. */
export function immutable(path: FieldPath, next: unknown, old: unknown, shown: unknown = next): FieldError[] {
  return deepEqual(next, old) ? [] : [invalid(path, shown, FIELD_IMMUTABLE)];
}

interface LabelSelectorShape {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

/** A string map as Go's encoding/json writes it (keys sorted), as a 1.34 server prints one it is given. */
export function jsonStringMap(map: Record<string, string> | undefined): GoValue {
  if (map === undefined) return new GoValue('null');
  const sorted = Object.fromEntries(
    Object.keys(map)
      .sort()
      .map((k) => [k, map[k]]),
  );
  return new GoValue(goJSONEscaped(JSON.stringify(sorted)));
}

/**
 * A v1.LabelSelector as Go's encoding/json writes it, which is how a 1.34 server prints one it
 * is given: fields in declaration order, empty ones left out.
 */
export function jsonLabelSelector(selector: LabelSelectorShape | undefined): GoValue {
  if (selector === undefined) return new GoValue('null');
  const parts: string[] = [];
  if (Object.keys(selector.matchLabels ?? {}).length > 0)
    parts.push(`"matchLabels":${jsonStringMap(selector.matchLabels).text}`);
  const expressions = selector.matchExpressions ?? [];
  if (expressions.length > 0) {
    const requirements = expressions.map((e) =>
      goJSONEscaped(
        JSON.stringify({
          key: e.key ?? '',
          operator: e.operator ?? '',
          ...((e.values ?? []).length > 0 ? { values: e.values } : {}),
        }),
      ),
    );
    parts.push(`"matchExpressions":[${requirements.join(',')}]`);
  }
  return new GoValue(`{${parts.join(',')}}`);
}

/** Structural equality of JSON values, ignoring key order. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, i) => deepEqual(item, b[i]));
  }
  const ak = Object.keys(a as object).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const bk = Object.keys(b as object).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  if (ak.length !== bk.length) return false;
  return ak.every((k) => deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}
