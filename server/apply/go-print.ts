/**
 * Go's fmt forms of the reference's unstructured values (what a decoded JSON body holds:
 * string, int64 or float64, bool, map[string]interface {}, []interface {}, nil), for the
 * apply texts that print them: `%T` (goTypeName), `%v` (goValue) and `%#v` (goSharpValue).
 * Map keys print sorted, as Go's fmt sorts them (by their bytes). A whole number is taken as the int64 the
 * reference's decoder makes of it, unless it is beyond int64's range.
 */
import { goNumber, isGoInt64 } from '../../api/go-number';
import { goQuote } from '../../api/go-quote';
import { isObject } from '../json/value';
import { compareUtf8 } from '../string-order';

export function goTypeName(value: unknown): string {
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return isGoInt64(value) ? 'int64' : 'float64';
  if (Array.isArray(value)) return '[]interface {}';
  if (isObject(value)) return 'map[string]interface {}';
  return '<nil>';
}

function sortedEntries(record: Record<string, unknown>): [string, unknown][] {
  return Object.keys(record)
    .sort(compareUtf8)
    .map((key) => [key, record[key]]);
}

/** `%v`: `abc`, `5`, `true`, `[a b]`, `map[k:v]`, `<nil>`. */
export function goValue(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  if (typeof value === 'number') return goNumber(value);
  if (Array.isArray(value)) return `[${value.map(goValue).join(' ')}]`;
  if (isObject(value))
    return `map[${sortedEntries(value)
      .map(([key, member]) => `${key}:${goValue(member)}`)
      .join(' ')}]`;
  return String(value);
}

/**
 * `%s` of an interface{} holding the value: a string as it is, a value of another type in Go's
 * form for a verb that does not fit it (`%!s(int64=1)`), a list or map element by element.
 */
export function goStringVerb(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '%!s(<nil>)';
  if (Array.isArray(value)) return `[${value.map(goStringVerb).join(' ')}]`;
  if (isObject(value))
    return `map[${sortedEntries(value)
      .map(([key, member]) => `${key}:${goStringVerb(member)}`)
      .join(' ')}]`;
  return `%!s(${goTypeName(value)}=${goValue(value)})`;
}

/** `%#v` of an interface{} holding the value: `"abc"`, `5`, `true`, `[]interface {}{"a"}`, `map[string]interface {}{"k":"v"}`. */
export function goSharpValue(value: unknown): string {
  if (value === null || value === undefined) return 'interface {}(nil)';
  if (typeof value === 'string') return goQuote(value);
  if (typeof value === 'number') return goNumber(value);
  if (Array.isArray(value)) return `[]interface {}{${value.map(goSharpValue).join(', ')}}`;
  if (isObject(value))
    return `map[string]interface {}{${sortedEntries(value)
      .map(([key, member]) => `${goQuote(key)}:${goSharpValue(member)}`)
      .join(', ')}}`;
  return String(value);
}
