/** Plain JSON values as the engines handle them. */
import { goJSONEscaped } from '../../api/go-quote';
import { compareUtf8 } from '../string-order';

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A list or an object without members. */
export function isEmptyContainer(value: unknown): boolean {
  if (Array.isArray(value)) return value.length === 0;
  return isObject(value) && Object.keys(value).length === 0;
}

/** Go's json.Marshal of an unstructured value (what a decoded JSON body holds): map keys sorted, strings as Go escapes them. */
export function goMarshal(value: unknown): string {
  return goJSONEscaped(sortedJson(value));
}

/**
 * JSON with every object's keys sorted by their UTF-8 bytes, as Go writes maps, whatever order
 * the object enumerates them in (array indices first, in JavaScript); strings as JSON.stringify
 * escapes them.
 */
export function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  if (!isObject(value)) return JSON.stringify(value) ?? 'null';
  const members = Object.keys(value)
    .filter((key) => value[key] !== undefined)
    .sort(compareUtf8)
    .map((key) => `${JSON.stringify(key)}:${sortedJson(value[key])}`);
  return `{${members.join(',')}}`;
}

/** The containers a patch opened, by member name or array index: the rest it left as bytes. */
export interface Touched {
  readonly [member: string]: Touched;
}

/**
 * A patched JSON value as the reference's json-patch library marshals it: the containers the
 * patch opened (the root, and those under `touched`) were decoded into Go maps and print their
 * keys sorted; what the patch did not open keeps its bytes, in the order they had, escaped as
 * Go escapes them.
 */
export function goMarshalPatched(value: unknown, touched: Touched, keptText?: KeptText): string {
  return goJSONEscaped(marshalTouched(value, touched, keptText));
}

/**
 * The text a value not opened is still held as, where it differs from what its parsed form
 * prints (a key repeated in it); the library writes it back compacted, as Go's encoder does.
 */
export type KeptText = (value: object) => string | undefined;

function marshalTouched(value: unknown, touched: Touched, keptText: KeptText | undefined): string {
  const untouched = (member: unknown): string => {
    const kept = keptText !== undefined && typeof member === 'object' && member !== null ? keptText(member) : undefined;
    return kept === undefined ? JSON.stringify(member) : compactJson(kept);
  };
  if (Array.isArray(value))
    return `[${value.map((item, index) => (touched[index] ? marshalTouched(item, touched[index], keptText) : untouched(item))).join(',')}]`;
  if (!isObject(value)) return JSON.stringify(value);
  const members = Object.keys(value)
    .filter((key) => value[key] !== undefined)
    .sort(compareUtf8)
    .map((key) => {
      const member = value[key];
      const text = touched[key] ? marshalTouched(member, touched[key], keptText) : untouched(member);
      return `${JSON.stringify(key)}:${text}`;
    });
  return `{${members.join(',')}}`;
}

/** A valid JSON text without the whitespace between its tokens (Go's json.Compact). */
function compactJson(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '"') {
      const start = i;
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
      out += text.slice(start, i + 1);
    } else if (char !== ' ' && char !== '\t' && char !== '\n' && char !== '\r') out += char;
  }
  return out;
}

/**
 * A deep copy of a JSON value. structuredClone is correct too but costs several microseconds
 * per call, which dominated an apply of a large pod when called per field.
 */
export function copyJson<T>(value: T): T {
  if (Array.isArray(value)) return value.map(copyJson) as T;
  if (isObject(value)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) out[key] = copyJson(value[key]);
    return out as T;
  }
  return value;
}

/**
 * The value at a dotted path (`spec.replicas`, or its segments split once by a caller that reads
 * it often), undefined where the path leaves the objects.
 */
export function valueAtPath(value: unknown, path: string | readonly string[]): unknown {
  let current = value;
  for (const segment of typeof path === 'string' ? path.split('.') : path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}
